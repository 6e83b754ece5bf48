import { createTxFromRLP } from "@ethereumjs/tx";
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../../../assert.ts";
import { BaseError } from "../../../../lib/common/errors.ts";
import {
  BlockBuilder,
  forkRules,
  importBlock,
  SenderCache,
  txCommon,
} from "../../../../lib/execution/evm/mod.ts";
import {
  attributes,
  ETHER,
  FEES,
  fund,
  genesisHeader,
  newState,
  opConfig,
  SENDER,
  setL1Block,
  transfer,
} from "./helpers.ts";

const config = opConfig("isthmus");

async function genesisState() {
  const sm = newState();
  await setL1Block(sm, FEES);
  await fund(sm, SENDER, ETHER);
  await sm.getStateRoot();
  return sm;
}

/** A block of three transfers built with `cache`, and its parent. */
async function build(cache: SenderCache) {
  const sm = await genesisState();
  const parent = genesisHeader(config, "isthmus", await sm.getStateRoot());
  const b = await BlockBuilder.open(config, parent, attributes("isthmus"), {
    stateManager: sm,
    senderCache: cache,
  });
  for (let n = 0n; n < 3n; n++) await b.addTransaction(transfer(config, 2n, n));
  return { parent, sealed: await b.seal() };
}

function decode(raw: Uint8Array) {
  return createTxFromRLP(raw, { common: txCommon(forkRules(config, 2n).common) });
}

Deno.test("sender cache: a remembered sender equals the recovered one; unknown txs miss", () => {
  const cache = new SenderCache();
  const tx = transfer(config, 2n, 0n);
  const raw = tx.serialize();
  assertEquals(cache.apply(decode(raw), raw), false);
  cache.remember(tx); // not recovered yet: nothing stored
  assertEquals(cache.size, 0);
  const recovered = tx.getSenderPublicKey();
  cache.remember(tx);
  assertEquals(cache.size, 1);
  const copy = decode(raw);
  assertEquals(cache.apply(copy, raw), true);
  assertEquals(copy.cache.senderPubKey, recovered);
  assertEquals(copy.getSenderAddress().bytes, SENDER);
  assertEquals(copy.cache.hash, tx.hash());
  assertEquals(cache.get(tx.hash()), recovered);
  const other = transfer(config, 2n, 1n).serialize();
  assertEquals(cache.apply(decode(other), other), false);
});

Deno.test("sender cache: an applied sender brings its address along (no keccak256 of the key again)", () => {
  const cache = new SenderCache();
  const tx = transfer(config, 2n, 0n);
  const raw = tx.serialize();
  tx.getSenderPublicKey();
  cache.remember(tx);
  const copy = decode(raw);
  assert(cache.apply(copy, raw));
  // The very object derived for the first transaction: the copy's address was not derived again.
  assert(copy.getSenderAddress() === tx.getSenderAddress());
  assertEquals(copy.getSenderAddress().bytes, SENDER);
});

Deno.test("sender cache: keeps at most `capacity` entries, dropping the oldest", () => {
  const cache = new SenderCache({ capacity: 2 });
  const txs = [0n, 1n, 2n].map((n) => transfer(config, 2n, n));
  for (const t of txs) {
    t.getSenderPublicKey();
    cache.remember(t);
  }
  assertEquals(cache.size, 2);
  assertEquals(cache.get(txs[0].hash()), undefined);
  assert(cache.get(txs[2].hash()) !== undefined);
});

Deno.test("sender cache: the builder records senders and import uses them, with the same result", async () => {
  const cache = new SenderCache();
  const { parent, sealed } = await build(cache);
  assertEquals(cache.size, 3);
  const warm = await genesisState();
  const a = await importBlock(config, parent, sealed.block, { stateManager: warm, senderCache: cache });
  // The same block imported with an empty cache recovers every sender: same header, same state.
  const cold = await genesisState();
  const empty = new SenderCache();
  const b = await importBlock(config, parent, sealed.block, { stateManager: cold, senderCache: empty });
  assertEquals(a.hash, sealed.hash);
  assertEquals(b.hash, sealed.hash);
  assertEquals(await warm.getStateRoot(), await cold.getStateRoot());
  assertEquals(a.receipts.map((r) => r.from), b.receipts.map((r) => r.from));
  assertEquals(empty.size, 3); // recovered senders are remembered too
});

Deno.test("sender cache: a tampered signature in a block from outside is still caught", async () => {
  const cache = new SenderCache();
  const { parent, sealed } = await build(cache);
  // Same transaction, its s replaced: another hash, so the cache cannot vouch for it.
  const bad = sealed.block.transactions[1].slice();
  bad.fill(0xff, bad.length - 32);
  const block = {
    ...sealed.block,
    transactions: [sealed.block.transactions[0], bad, sealed.block.transactions[2]],
  };
  const sm = await genesisState();
  const root = await sm.getStateRoot();
  const err = await assertRejects(() =>
    importBlock(config, parent, block, { stateManager: sm, senderCache: cache })
  );
  if (!(err instanceof BaseError)) throw err;
  assertEquals(err.code, "INVALID_BLOCK");
  assertEquals(err.meta.field, "transactions");
  assertStringIncludes(err.message, "transaction 1 is invalid");
  assertEquals(await sm.getStateRoot(), root);
});
