import { Address } from "@ethereumjs/util";
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../../../assert.ts";
import { BaseError } from "../../../../lib/common/errors.ts";
import type { Block, Header } from "../../../../lib/protocol/block.ts";
import type { ChainConfig } from "../../../../lib/protocol/chain_config.ts";
import type { DepositTx } from "../../../../lib/protocol/deposit_tx.ts";
import type { OpFork } from "../../../../lib/protocol/hardforks.ts";
import {
  BEACON_ROOTS_ADDRESS,
  L2_TO_L1_MESSAGE_PASSER_ADDRESS,
} from "../../../../lib/protocol/predeploys.ts";
import type { TypedTransaction } from "@ethereumjs/tx";
import {
  BlockBuilder,
  importBlock,
  type ImportTimings,
  logsBloom,
  SenderCache,
} from "../../../../lib/execution/evm/mod.ts";
import {
  BlockSenderRecovery,
  loadWasmSecp256k1,
  recoverSenderInto,
} from "../../../../lib/execution/txpool/mod.ts";
import {
  attributes,
  ETHER,
  FEES,
  fund,
  genesisHeader,
  newState,
  opConfig,
  RECIPIENT,
  SENDER,
  setL1Block,
  setStorage,
  transfer,
} from "./helpers.ts";

const LOGGER = new Uint8Array(20).fill(0x10);
/** LOG1(0, 0, topic 0x2a) then STOP: gives the block a non-empty bloom. */
const LOG_CODE = new Uint8Array([0x60, 0x2a, 0x60, 0x00, 0x60, 0x00, 0xa1, 0x00]);

async function genesisState() {
  const sm = newState();
  await setL1Block(sm, FEES);
  await fund(sm, SENDER, ETHER);
  await sm.putCode(new Address(BEACON_ROOTS_ADDRESS), new Uint8Array([0]));
  await sm.putCode(new Address(LOGGER), LOG_CODE);
  await setStorage(sm, L2_TO_L1_MESSAGE_PASSER_ADDRESS, 0n, 1n);
  await sm.getStateRoot();
  return sm;
}

async function build(config: ChainConfig, fork: OpFork) {
  const sm = await genesisState();
  const parent = genesisHeader(config, fork, await sm.getStateRoot());
  const b = await BlockBuilder.open(config, parent, attributes(fork), { stateManager: sm });
  const dep: DepositTx = {
    sourceHash: new Uint8Array(32).fill(4),
    from: new Uint8Array(20).fill(0xdd),
    to: RECIPIENT,
    mint: 5n,
    value: 1n,
    gas: 50_000n,
    isSystemTx: false,
    data: new Uint8Array(),
  };
  await b.addTransaction(dep);
  await b.addTransaction(transfer(config, 2n, 0n));
  await b.addTransaction(transfer(config, 2n, 1n, { to: LOGGER, gasLimit: 60_000n }));
  const sealed = await b.seal();
  return { parent, sealed };
}

for (const fork of ["regolith", "ecotone", "holocene", "isthmus", "jovian"] as OpFork[]) {
  Deno.test(`import (${fork}): a built block re-executes to the same header on a fresh state`, async () => {
    const config = opConfig(fork);
    const { parent, sealed } = await build(config, fork);
    const sm = await genesisState();
    const imported = await importBlock(config, parent, sealed.block, { stateManager: sm });
    assertEquals(imported.hash, sealed.hash);
    assertEquals(await sm.getStateRoot(), sealed.stateRoot);
    assertEquals(imported.receipts.length, 3);
    assertEquals(imported.receipts[2].logs.length, 1);
    // The receipt's bloom (taken from runTx) is the bloom of its logs.
    assertEquals(imported.receipts[2].receipt.logsBloom, logsBloom(imported.receipts[2].logs));
    assert(imported.receipts[2].receipt.logsBloom.some((b) => b !== 0));
  });
}

type Tamper = [string, (h: Header, b: Block) => void];

const TAMPERS: Tamper[] = [
  ["parentHash", (h) => (h.parentHash = new Uint8Array(32).fill(1))],
  ["number", (h) => (h.number = 2n)],
  ["timestamp", (h) => (h.timestamp = 0n)],
  ["baseFeePerGas", (h) => (h.baseFeePerGas = h.baseFeePerGas! + 1n)],
  ["gasUsed", (h) => (h.gasUsed = h.gasUsed + 1n)],
  ["stateRoot", (h) => (h.stateRoot = new Uint8Array(32).fill(2))],
  ["receiptsRoot", (h) => (h.receiptsRoot = new Uint8Array(32).fill(3))],
  ["transactionsRoot", (h) => (h.transactionsRoot = new Uint8Array(32).fill(4))],
  ["logsBloom", (h) => (h.logsBloom = new Uint8Array(256))],
  ["withdrawalsRoot", (h) => (h.withdrawalsRoot = new Uint8Array(32).fill(5))],
  ["blobGasUsed", (h) => (h.blobGasUsed = h.blobGasUsed! + 1n)],
  ["excessBlobGas", (h) => (h.excessBlobGas = 1n)],
  ["requestsHash", (h) => (h.requestsHash = new Uint8Array(32))],
  ["extraData", (h) => (h.extraData = new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0]))],
  ["parentBeaconBlockRoot", (h) => (h.parentBeaconBlockRoot = undefined)],
  ["difficulty", (h) => (h.difficulty = 1n)],
  ["gasUsed", (h) => (h.gasUsed = h.gasLimit + 1n)],
  ["transactions", (_h, b) => (b.transactions[1] = new Uint8Array([2, 0xc0]))],
  ["gasUsed", (_h, b) => b.transactions.pop()],
  ["withdrawals", (_h, b) => (b.withdrawals = [[new Uint8Array([1])]])],
];

Deno.test("import (jovian): each tampered field fails with its name, and the state stays at the parent's", async () => {
  const config = opConfig("jovian");
  const { parent, sealed } = await build(config, "jovian");
  for (const [field, tamper] of TAMPERS) {
    const header = { ...sealed.block.header };
    const block: Block = { ...sealed.block, header, transactions: [...sealed.block.transactions] };
    tamper(header, block);
    const sm = await genesisState();
    const root = await sm.getStateRoot();
    const err = await assertRejects(() => importBlock(config, parent, block, { stateManager: sm }));
    if (!(err instanceof BaseError)) throw err;
    assertEquals(err.code, "INVALID_BLOCK");
    assertEquals(err.meta.field, field, `${field}: ${err.message}`);
    assertStringIncludes(err.message, "Cannot import block ");
    assertEquals(await sm.getStateRoot(), root, `${field}: state restored`);
  }
});

Deno.test("import: the message names got and want", async () => {
  const config = opConfig("ecotone");
  const { parent, sealed } = await build(config, "ecotone");
  const header = { ...sealed.block.header, stateRoot: new Uint8Array(32).fill(0xab) };
  const sm = await genesisState();
  const err = await assertRejects(() =>
    importBlock(config, parent, { ...sealed.block, header }, { stateManager: sm })
  );
  assertStringIncludes(err.message, "Cannot import block 1: stateRoot mismatch, got 0xabab");
});

Deno.test("import: senders missing from the cache go to recoverSender (libsecp256k1): same block; a bad signature is named", async () => {
  const config = opConfig("isthmus");
  const { parent, sealed } = await build(config, "isthmus");
  const secp = await loadWasmSecp256k1();
  const seen: TypedTransaction[] = [];
  const recoverSender = (tx: TypedTransaction) => {
    seen.push(tx);
    recoverSenderInto(secp, tx);
    return Promise.resolve();
  };
  const sm = await genesisState();
  const imported = await importBlock(
    config,
    parent,
    sealed.block,
    { stateManager: sm, senderCache: new SenderCache() },
    { recoverSender },
  );
  assertEquals(imported.hash, sealed.hash);
  // The two user transactions (not the deposit), each with its key cached before it ran.
  assertEquals(seen.length, 2);
  assert(seen.every((tx) => tx.cache.senderPubKey !== undefined));
  const bad = sealed.block.transactions[1].slice();
  bad.fill(0xff, bad.length - 32);
  const block = {
    ...sealed.block,
    transactions: [sealed.block.transactions[0], bad, sealed.block.transactions[2]],
  };
  const err = await assertRejects(() =>
    importBlock(config, parent, block, { stateManager: newState(), senderCache: new SenderCache() }, {
      recoverSender,
    })
  );
  if (!(err instanceof BaseError)) throw err;
  assertEquals(err.meta.field, "transactions");
  assertStringIncludes(err.message, "transaction 1 is invalid");
});

Deno.test("import: with BlockSenderRecovery (two threads) the block is the same; a bad signature is named", async () => {
  const config = opConfig("isthmus");
  const { parent, sealed } = await build(config, "isthmus");
  const blockSenders = new BlockSenderRecovery({ minTxs: 1 });
  try {
    const imported = await importBlock(
      config,
      parent,
      sealed.block,
      { stateManager: await genesisState(), senderCache: new SenderCache() },
      { blockSenders },
    );
    assertEquals(imported.hash, sealed.hash);
    const bad = sealed.block.transactions[2].slice();
    bad.fill(0xff, bad.length - 32);
    const block = { ...sealed.block, transactions: [...sealed.block.transactions.slice(0, 2), bad] };
    const err = await assertRejects(() =>
      importBlock(config, parent, block, { stateManager: newState(), senderCache: new SenderCache() }, {
        blockSenders,
      })
    );
    if (!(err instanceof BaseError)) throw err;
    assertEquals(err.meta.field, "transactions");
    assertStringIncludes(err.message, "transaction 2 is invalid");
  } finally {
    blockSenders.close();
  }
});

Deno.test("import: reports the milliseconds of its phases when asked", async () => {
  const config = opConfig("isthmus");
  const { parent, sealed } = await build(config, "isthmus");
  const sm = await genesisState();
  const timings: ImportTimings = { open: -1, decode: -1, execute: -1, seal: -1, commit: -1 };
  const t0 = performance.now();
  await importBlock(config, parent, sealed.block, { stateManager: sm }, { timings });
  const elapsed = performance.now() - t0;
  const phases = Object.values(timings);
  assert(phases.every((ms) => ms >= 0), JSON.stringify(timings));
  assert(phases.reduce((a, b) => a + b, 0) <= elapsed + 0.01, `${JSON.stringify(timings)} in ${elapsed} ms`);
  assert(timings.execute > 0);
});

/** SSTORE(0, 1) then REVERT(0, 0). */
const STORE_REVERT = new Uint8Array([0x60, 0x01, 0x60, 0x00, 0x55, 0x60, 0x00, 0x60, 0x00, 0xfd]);
/** JUMPDEST PUSH1 0 JUMP: burns all its gas. */
const BURNER = new Uint8Array([0x5b, 0x60, 0x00, 0x56]);
const REVERTER = new Uint8Array(20).fill(0x11);
const LOOPER = new Uint8Array(20).fill(0x12);

Deno.test("import: failing calls mid-block (a revert, all gas burnt) keep their gas and nonce, not their writes", async () => {
  // Import applies calls without a checkpoint of its own per transaction (a failing transaction
  // discards the whole block); a failing call still loses its writes to the EVM's frame checkpoint.
  const config = opConfig("isthmus");
  const state = async () => {
    const sm = await genesisState();
    await sm.putCode(new Address(REVERTER), STORE_REVERT);
    await sm.putCode(new Address(LOOPER), BURNER);
    await sm.getStateRoot();
    return sm;
  };
  const built = await state();
  const parent = genesisHeader(config, "isthmus", await built.getStateRoot());
  const b = await BlockBuilder.open(config, parent, attributes("isthmus"), { stateManager: built });
  await b.addTransaction(transfer(config, 2n, 0n));
  await b.addTransaction(transfer(config, 2n, 1n, { to: REVERTER, value: 0n, gasLimit: 60_000n }));
  await b.addTransaction(transfer(config, 2n, 2n, { to: LOOPER, value: 0n, gasLimit: 40_000n }));
  await b.addTransaction(transfer(config, 2n, 3n, { to: LOGGER, gasLimit: 60_000n }));
  const sealed = await b.seal();
  assertEquals(sealed.receipts.map((r) => r.receipt.status), [1, 0, 0, 1]);
  assertEquals(sealed.receipts[2].gasUsed, 40_000n);

  const sm = await state();
  const imported = await importBlock(config, parent, sealed.block, { stateManager: sm });
  assertEquals(imported.hash, sealed.hash);
  assertEquals(await sm.getStateRoot(), sealed.stateRoot);
  assertEquals((await sm.getStorage(new Address(REVERTER), new Uint8Array(32))).length, 0);
  assertEquals((await sm.getAccount(new Address(SENDER)))?.nonce, 4n);

  // A block whose last transaction is invalid (a nonce gap) leaves the state at the parent's.
  const bad: Block = { ...sealed.block, transactions: [...sealed.block.transactions] };
  bad.transactions[bad.transactions.length - 1] = transfer(config, 2n, 9n, { to: LOGGER, gasLimit: 60_000n })
    .serialize();
  const again = await state();
  await assertRejects(
    () => importBlock(config, parent, bad, { stateManager: again }),
    BaseError,
    "transaction",
  );
  assertEquals(await again.getStateRoot(), parent.stateRoot);
});
