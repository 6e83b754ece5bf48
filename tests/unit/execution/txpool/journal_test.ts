/**
 * The local transaction journal (journal.ts): geth's format (each transaction as `rlp.Encode` writes it,
 * the same items as a block body's transaction list), a torn end keeps what came before, and TxJournal
 * over a real TxPool: local transactions (pending and queued) written by sender and nonce, remote,
 * impersonated and `noLocals` ones not, and put back as local ones by load().
 */
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { assert, assertEquals } from "../../../assert.ts";
import { rlpDecode } from "../../../../lib/common/rlp.ts";
import { encodeBlock } from "../../../../lib/execution/chain/mod.ts";
import {
  placeholderSignature,
  registerImpersonated,
  unregisterImpersonated,
} from "../../../../lib/execution/evm/impersonation.ts";
import { decodeJournal, encodeJournal, TxJournal, TxPool } from "../../../../lib/execution/txpool/mod.ts";
import { makeBlock } from "../chain/block_fixtures.ts";
import {
  ADDRESSES,
  CHAIN_ID,
  common,
  GWEI,
  TestChain,
  TO,
  tx1559,
  tx2930,
  tx7702,
  txLegacy,
} from "./fixtures.ts";

/** Any header: the body's encoding does not depend on it. */
const HEADER = makeBlock(undefined, []).block.header;

Deno.test("journal: geth's items (a block body's transaction list), and back", () => {
  const txs = [txLegacy(), tx2930({ nonce: 1n }), tx1559({ nonce: 2n }), tx7702({ nonce: 3n })].map((t) =>
    t.serialize()
  );
  const journal = encodeJournal(txs);
  // The block's RLP: [header, [tx...], []]; its transaction list's payload is the journal.
  const [, list] = rlpDecode(encodeBlock({ header: HEADER, transactions: txs })) as [unknown, unknown[]];
  assertEquals(list.length, 4);
  const block = encodeBlock({ header: HEADER, transactions: txs });
  const at = block.length - 1 - journal.length; // the list's payload, then the empty uncle list (0xc0)
  assertEquals(block.subarray(at, at + journal.length), journal);
  assertEquals(journal[0] >= 0xc0, true, "legacy: a list");
  assertEquals(decodeJournal(journal), { txs });
  assertEquals(decodeJournal(new Uint8Array()), { txs: [] });
});

Deno.test("journal: a torn end keeps the transactions before it", () => {
  const txs = [tx1559().serialize(), tx1559({ nonce: 1n }).serialize()];
  const journal = encodeJournal(txs);
  const torn = decodeJournal(journal.subarray(0, journal.length - 3));
  assertEquals(torn.txs, [txs[0]]);
  assert(torn.error?.includes("runs past the end"), torn.error);
  const junk = decodeJournal(new Uint8Array([...encodeJournal([txs[0]]), 0x82, 0xff, 0xff]));
  assertEquals(junk.txs, [txs[0]]);
  assert(junk.error?.includes("neither a legacy nor a typed transaction"), junk.error);
});

Deno.test("TxJournal: local transactions by sender and nonce, back into a pool after a restart", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-journal-" });
  const path = `${dir}/transactions.rlp`;
  try {
    const chain = new TestChain();
    const pool = new TxPool({}, chain.deps());
    const a2 = tx1559({ key: 1, nonce: 2n });
    const a0 = tx1559({ key: 1, nonce: 0n });
    const b0 = txLegacy({ key: 2 });
    await pool.add(a2, { local: true }); // queued behind the gap
    await pool.add(a0, { local: true });
    await pool.add(b0, { local: true });
    await pool.add(tx1559({ key: 3 })); // remote: not journaled
    const unsigned = createFeeMarket1559Tx({
      chainId: CHAIN_ID,
      maxFeePerGas: 10n * GWEI,
      maxPriorityFeePerGas: GWEI,
      gasLimit: 21_000n,
      to: TO,
    }, { common });
    const [v, r, s] = placeholderSignature(ADDRESSES[4]);
    const impersonated = unsigned.addSignature(v, r, s);
    registerImpersonated(impersonated.hash(), ADDRESSES[4]);
    try {
      await pool.add(impersonated, { local: true });
      assertEquals(pool.status(), { pending: 4, queued: 1 });
      const journal = new TxJournal(path, pool);
      assertEquals(await journal.rotate(), 3);
    } finally {
      unregisterImpersonated(impersonated.hash());
    }
    const written = decodeJournal(await Deno.readFile(path)).txs;
    const order = [a0, a2, b0].map((t) => t.serialize());
    assertEquals(new Set(written.map(String)), new Set(order.map(String)));
    assert(
      written.findIndex((t) => String(t) === String(order[0])) <
        written.findIndex((t) => String(t) === String(order[1])),
      "nonce 0 before 2",
    );
    assertEquals(await Deno.stat(`${path}.new`).catch(() => undefined), undefined, "renamed into place");

    // A restart: a new pool, the account of key 2 moved on meanwhile (its transaction was included).
    chain.set(2, { nonce: 1n });
    const next = new TxPool({}, chain.deps());
    assertEquals(await new TxJournal(path, next).load(), { loaded: 2, dropped: 1 });
    assertEquals(next.status(), { pending: 1, queued: 1 });
    assertEquals(next.locals().map((t) => t.serialize()), [a0, a2].map((t) => t.serialize()));
    assertEquals(decodeJournal(await Deno.readFile(path)).txs.length, 2, "rewritten with what the pool kept");

    // No journal yet: nothing to load.
    assertEquals(await new TxJournal(`${dir}/none.rlp`, next).load(), { loaded: 0, dropped: 0 });
    // geth --txpool.nolocals: nothing sent here counts as local.
    const remoteOnly = new TxPool({ noLocals: true }, chain.deps());
    await remoteOnly.add(tx1559({ key: 5 }), { local: true });
    assertEquals(remoteOnly.locals(), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
