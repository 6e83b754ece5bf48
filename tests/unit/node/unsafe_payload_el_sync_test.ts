/**
 * admin_postUnsafePayload during EL sync (op-node inserts a posted payload as a gossiped one): the block
 * goes to the engine through EL sync instead of the unsafe queue; once EL sync is over, to the queue.
 */
import { assertEquals } from "../../assert.ts";
import { bytesToHex } from "../../../lib/common/bytes.ts";
import { executionPayloadToJson } from "../../../lib/execution/engine/wire.ts";
import { payloadToBlock } from "../../../lib/execution/engine/payload.ts";
import { hashHeader } from "../../../lib/protocol/block.ts";
import type { EngineApi, ExecutionPayload } from "../../../lib/protocol/engine.ts";
import type { L2BlockRef } from "../../../lib/protocol/block_ref.ts";
import type { L2Chain } from "../../../lib/rollup/driver/mod.ts";
import { ElSync, UnsafePayloadQueue } from "../../../lib/rollup/p2p/mod.ts";
import { unsafePayloadPoster } from "../../../lib/node/unsafe_payload.ts";
import { l1InfoDeposit, testPayload, testRollupConfig } from "../rollup/p2p_helpers.ts";

const cfg = testRollupConfig();

/** Block `n` (before Canyon) with its real block hash. */
function payload(n: bigint): ExecutionPayload {
  const p = { ...testPayload(n, 1000n), transactions: [l1InfoDeposit(n)] };
  return { ...p, blockHash: hashHeader(payloadToBlock(p, {}).header) };
}

Deno.test("admin_postUnsafePayload: to EL sync while it runs, to the unsafe queue after", async () => {
  const calls: string[] = [];
  const engine: EngineApi = {
    newPayload: (_v, p) => {
      calls.push(`new ${p.blockNumber}`);
      return Promise.resolve({ status: "VALID", latestValidHash: p.blockHash, validationError: null });
    },
    forkchoiceUpdated: (_v, s) => {
      calls.push(`fcu ${bytesToHex(s.headBlockHash).slice(0, 10)}`);
      return Promise.resolve({
        payloadStatus: { status: "VALID", latestValidHash: null, validationError: null },
        payloadId: null,
      });
    },
    getPayload: () => Promise.reject(new Error("not here")),
  };
  const chain = {
    headNumber: () => Promise.resolve(0n),
    payloadByNumber: () => Promise.resolve(undefined),
  } as unknown as L2Chain;
  const finished: L2BlockRef[] = [];
  const el = new ElSync(cfg, {
    engine,
    l2: chain,
    finalizedNumber: () => Promise.resolve(undefined),
    safe: () => ({ hash: new Uint8Array(32), number: 0n }) as L2BlockRef,
    onFinished: (ref) => finished.push(ref),
  });
  const queue = new UnsafePayloadQueue({
    head: () => Promise.resolve(undefined),
    insert: () => Promise.reject(),
  });
  const post = unsafePayloadPoster(cfg, chain, queue, () => el);
  const envelope = (p: ExecutionPayload) => ({ executionPayload: executionPayloadToJson(p) });

  const p40 = payload(40n);
  await post(envelope(p40));
  assertEquals(calls, ["new 40", `fcu ${bytesToHex(p40.blockHash).slice(0, 10)}`]);
  assertEquals(finished.map((r) => r.number), [40n]);
  assertEquals(queue.size, 0);
  // EL sync is over: the next posted block waits in the queue for its parent, as without EL sync.
  await post(envelope(payload(42n)));
  assertEquals(queue.size, 1);
  assertEquals(calls.length, 2);
});
