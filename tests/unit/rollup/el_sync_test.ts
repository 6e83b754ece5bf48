/**
 * EL sync (--syncmode=execution-layer, op-node's EngineController): the gossiped block goes to the
 * engine whatever its parent while the engine syncs (SYNCING is fine), the first VALID ends it with the
 * block as head, safe and finalized, and an engine with a finalized block skips it. The engine here is
 * scripted as an execution client that syncs itself (op-geth: SYNCING until it has the chain).
 */
import { assertEquals, assertRejects } from "../../assert.ts";
import type {
  EngineApi,
  ExecutionPayload,
  ForkchoiceState,
  PayloadStatus,
  PayloadStatusKind,
} from "../../../lib/protocol/engine.ts";
import type { L2BlockRef } from "../../../lib/protocol/block_ref.ts";
import { ElSync, type ElSyncDeps } from "../../../lib/rollup/p2p/el_sync.ts";
import type { L2Chain } from "../../../lib/rollup/driver/mod.ts";
import { l1InfoDeposit, testRollupConfig } from "./p2p_helpers.ts";

const cfg = testRollupConfig();

/** Block `n` on L1 origin 7: its first transaction the L1-info deposit (bedrock format). */
function block(n: bigint) {
  const payload = {
    parentHash: new Uint8Array(32).fill(Number(n) - 1),
    blockHash: new Uint8Array(32).fill(Number(n)),
    blockNumber: n,
    timestamp: 1000n + 2n * n,
    transactions: [l1InfoDeposit(n)],
  } as unknown as ExecutionPayload;
  return { payload, signature: new Uint8Array(65) };
}

const GENESIS_REF = { hash: new Uint8Array(32), number: 0n } as unknown as L2BlockRef;

/** An engine that has blocks up to `synced` (it syncs by itself): VALID for those, SYNCING above. */
function syncingEngine() {
  const calls: string[] = [];
  const fcus: ForkchoiceState[] = [];
  let synced = 0n;
  const status = (s: PayloadStatusKind): PayloadStatus => ({
    status: s,
    latestValidHash: null,
    validationError: null,
  });
  const engine: EngineApi = {
    newPayload: (_v, p) => {
      calls.push(`new ${p.blockNumber}`);
      return Promise.resolve(status(p.blockNumber <= synced ? "VALID" : "SYNCING"));
    },
    forkchoiceUpdated: (_v, state) => {
      fcus.push(state);
      const n = BigInt(state.headBlockHash[0]);
      calls.push(`fcu ${n}`);
      return Promise.resolve({ payloadStatus: status(n <= synced ? "VALID" : "SYNCING"), payloadId: null });
    },
    getPayload: () => Promise.reject(new Error("not here")),
  };
  return { engine, calls, fcus, syncTo: (n: bigint) => (synced = n) };
}

function elSync(engine: EngineApi, finalized: bigint | undefined, extra: Partial<ElSyncDeps> = {}) {
  const finished: L2BlockRef[] = [];
  const sync = new ElSync(cfg, {
    engine,
    l2: {} as L2Chain,
    finalizedNumber: () => Promise.resolve(finalized),
    safe: () => GENESIS_REF,
    onFinished: (ref) => finished.push(ref),
    ...extra,
  });
  return { sync, finished };
}

Deno.test("EL sync: blocks go to a syncing engine whatever their parent; the first VALID makes the block head, safe and finalized", async () => {
  const e = syncingEngine();
  const { sync, finished } = elSync(e.engine, undefined);
  await sync.init();
  assertEquals(sync.state, "will-start");
  assertEquals(sync.syncing, true);
  // Block 50 with nothing below it: newPayload and a forkchoice to it, both SYNCING; finalized left empty.
  assertEquals(await sync.offer(block(50n), "peer"), "syncing");
  assertEquals(sync.state, "started");
  assertEquals(e.calls, ["new 50", "fcu 50"]);
  assertEquals(e.fcus[0].safeBlockHash, GENESIS_REF.hash);
  assertEquals(e.fcus[0].finalizedBlockHash, new Uint8Array(32));
  assertEquals(finished.length, 0);
  // The engine caught up meanwhile: the next block is VALID, and becomes head, safe and finalized.
  e.syncTo(51n);
  assertEquals(await sync.offer(block(51n), "peer"), "finished");
  assertEquals(sync.state, "finished");
  assertEquals(sync.syncing, false);
  const last = e.fcus.at(-1)!;
  assertEquals([last.headBlockHash[0], last.safeBlockHash[0], last.finalizedBlockHash[0]], [51, 51, 51]);
  assertEquals(finished.map((r) => [r.number, r.l1Origin.number, r.sequenceNumber]), [[51n, 7n, 51n]]);
  // Over: blocks go the usual way.
  assertEquals(await sync.offer(block(52n), "peer"), "skipped");
});

Deno.test("EL sync: an engine with a finalized block past genesis skips it (at start, or at the first block)", async () => {
  const e = syncingEngine();
  const { sync } = elSync(e.engine, 10n);
  await sync.init();
  assertEquals(sync.state, "finished");
  assertEquals(await sync.offer(block(50n), "peer"), "skipped");
  assertEquals(e.calls, []);
  // Finalized at genesis: EL sync runs.
  const g = elSync(syncingEngine().engine, 0n);
  await g.sync.init();
  assertEquals(g.sync.syncing, true);
});

Deno.test("EL sync: an engine that cannot sync itself gets the blocks below from peers, then the block", async () => {
  const e = syncingEngine();
  const asked: [bigint, string][] = [];
  const { sync, finished } = elSync(e.engine, undefined, {
    backfill: (b, from) => {
      asked.push([b.payload.blockNumber, from]);
      e.syncTo(b.payload.blockNumber); // the engine now has the parent: the block itself is VALID
      return Promise.resolve(49);
    },
  });
  assertEquals(await sync.offer(block(50n), "peerA"), "finished");
  assertEquals(asked, [[50n, "peerA"]]);
  assertEquals(e.calls.slice(0, 3), ["new 50", "fcu 50", "new 50"]);
  assertEquals(finished.length, 1);
});

Deno.test("EL sync: INVALID is reported, a failed backfill rejects (the caller gives up EL sync)", async () => {
  const invalid: EngineApi = {
    newPayload: () => Promise.resolve({ status: "INVALID", latestValidHash: null, validationError: "bad" }),
    forkchoiceUpdated: () => Promise.reject(new Error("not called")),
    getPayload: () => Promise.reject(new Error("not here")),
  };
  assertEquals(await elSync(invalid, undefined).sync.offer(block(5n), "p"), "invalid");
  const { sync } = elSync(syncingEngine().engine, undefined, {
    backfill: () => Promise.reject(new Error("over 524288000 bytes held")),
  });
  await assertRejects(() => sync.offer(block(5n), "p"), Error, "bytes held");
  sync.abandon("over 524288000 bytes held");
  assertEquals(sync.syncing, false);
});

Deno.test("EL sync: reth (--l2.enginekind=reth) syncs past a finalized block, as op-node's SupportsPostFinalizationELSync", async () => {
  const e = syncingEngine();
  const { sync } = elSync(e.engine, 10n, { postFinalization: true });
  await sync.init();
  assertEquals(sync.state, "will-start");
  assertEquals(await sync.offer(block(50n), "peer"), "syncing");
  assertEquals(e.calls, ["new 50", "fcu 50"]);
});
