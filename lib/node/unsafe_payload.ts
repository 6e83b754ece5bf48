/**
 * admin_postUnsafePayload (op-node AdminAPI.PostUnsafePayload): an execution payload envelope, its block
 * hash checked against its contents, into the unsafe payload queue (rollup/p2p/payload_queue.ts) as a
 * gossiped block goes: inserted when it extends the unsafe head, else kept until its parent arrives. A
 * block the node has answers at once; one at or below the unsafe head that is not the node's is refused.
 */
import { BaseError, bytesToHex, equalBytes, hexToBytes } from "../common/mod.ts";
import { parseExecutionPayload } from "../execution/engine/wire.ts";
import { payloadToBlock } from "../execution/engine/payload.ts";
import { hashHeader, type RollupConfig } from "../protocol/mod.ts";
import type { ExecutionPayload } from "../protocol/engine.ts";
import { engineVersions, type L2Chain } from "../rollup/driver/mod.ts";
import type { ElSync, UnsafePayloadQueue } from "../rollup/p2p/mod.ts";

/**
 * The admin_postUnsafePayload handler of a node whose unsafe blocks go through `unsafe`; while EL sync
 * runs (`elSync`), to it, as op-node inserts posted payloads as gossiped ones.
 */
export function unsafePayloadPoster(
  cfg: RollupConfig,
  chain: L2Chain,
  unsafe: UnsafePayloadQueue,
  elSync: () => ElSync | undefined = () => undefined,
): (envelope: unknown) => Promise<void> {
  return async (json) => {
    const { payload, parentBeaconBlockRoot } = parseUnsafeEnvelope(json);
    checkPayloadHash(cfg, payload, parentBeaconBlockRoot);
    const block = { payload, parentBeaconBlockRoot, signature: new Uint8Array(65) };
    const el = elSync();
    if (el?.syncing) {
      // No sender: the blocks below it, if the engine needs them, come from any connected peer.
      const outcome = await el.offer(block, "").catch((e) => {
        // The chain cannot be had this way: derived from L1 instead, the block queued as usual.
        el.abandon((e as Error).message);
        return "skipped" as const;
      });
      if (outcome === "invalid") {
        throw new BaseError("UNSAFE_PAYLOAD_REFUSED", `block ${payload.blockNumber}: refused by the engine`);
      }
      if (outcome !== "skipped") return;
    }
    const head = await chain.headNumber();
    if (payload.blockNumber <= head) {
      const have = await chain.payloadByNumber(payload.blockNumber);
      if (have !== undefined && equalBytes(have.blockHash, payload.blockHash)) return;
      throw new BaseError(
        "UNSAFE_PAYLOAD_NOT_NEXT",
        `block ${payload.blockNumber} is not the node's and is at or below the unsafe head (${head})`,
      );
    }
    // As op-node: into the unsafe payload queue, inserted now if it extends the head, else later.
    unsafe.push(block);
    const { dropped } = await unsafe.drain();
    const mine = dropped.find((d) => d.block === block);
    if (mine !== undefined) {
      throw new BaseError("UNSAFE_PAYLOAD_REFUSED", `block ${payload.blockNumber}: ${mine.why}`);
    }
  };
}

/** op-node PostUnsafePayload: the payload's block hash must be the hash of its contents. */
function checkPayloadHash(
  cfg: RollupConfig,
  payload: ExecutionPayload,
  parentBeaconBlockRoot: Uint8Array | undefined,
): void {
  const v = engineVersions(cfg, payload.timestamp);
  const actual = hashHeader(
    payloadToBlock(payload, {
      parentBeaconBlockRoot,
      executionRequests: v.newPayload === 4 ? [] : undefined,
    }).header,
  );
  if (!equalBytes(actual, payload.blockHash)) {
    throw new BaseError(
      "UNSAFE_PAYLOAD_BAD_HASH",
      `payload has bad block hash: ${bytesToHex(payload.blockHash)}, actual block hash is: ${
        bytesToHex(actual)
      }`,
    );
  }
}

/** op-node's ExecutionPayloadEnvelope JSON ({executionPayload, parentBeaconBlockRoot?}) for admin_postUnsafePayload. */
export function parseUnsafeEnvelope(
  json: unknown,
): { payload: ExecutionPayload; parentBeaconBlockRoot?: Uint8Array } {
  if (typeof json !== "object" || json === null || !("executionPayload" in json)) {
    throw new BaseError(
      "UNSAFE_PAYLOAD_MALFORMED",
      "want an execution payload envelope {executionPayload, parentBeaconBlockRoot?}",
    );
  }
  const e = json as { executionPayload: unknown; parentBeaconBlockRoot?: unknown };
  let payload: ExecutionPayload;
  try {
    payload = parseExecutionPayload(e.executionPayload);
  } catch (err) {
    throw new BaseError("UNSAFE_PAYLOAD_MALFORMED", `invalid execution payload: ${(err as Error).message}`);
  }
  const root = e.parentBeaconBlockRoot;
  if (root === undefined || root === null) return { payload };
  if (typeof root !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(root)) {
    throw new BaseError("UNSAFE_PAYLOAD_MALFORMED", "parentBeaconBlockRoot: want a 32-byte hex string");
  }
  return { payload, parentBeaconBlockRoot: hexToBytes(root) };
}
