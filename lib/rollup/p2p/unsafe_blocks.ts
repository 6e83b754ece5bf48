/**
 * Gossiped unsafe blocks into the engine (rollup-node-p2p.md "Block processing", "Branch selection";
 * derivation.md "Engine API usage"): a block that extends the unsafe head is inserted with
 * engine_newPayload and made the head with engine_forkchoiceUpdated, the safe and finalized heads kept;
 * the first block at a height wins, so a block at or below the head is ignored, and so is one whose
 * parent is not the head (no req-resp sync here: derivation from L1 fills such gaps).
 *
 * The expected signer is the SystemConfig's unsafe block signer, read from its storage on L1 as op-node
 * does (SystemConfig.sol UNSAFE_BLOCK_SIGNER_SLOT = keccak256("systemconfig.unsafeblocksigner")).
 */
import { bytesToHex, equalBytes, hexToBytes } from "../../common/bytes.ts";
import { keccak256 } from "../../common/hash.ts";
import type { JsonRpcClient } from "../../common/json_rpc_client.ts";
import type { L2BlockRef } from "../../protocol/block_ref.ts";
import type { EngineApi } from "../../protocol/engine.ts";
import type { GossipBlock } from "../../protocol/gossip_block.ts";
import type { RollupConfig } from "../../protocol/rollup_config.ts";
import { engineVersions, type L2Chain } from "../driver/mod.ts";

/** SystemConfig.sol's storage slot of the unsafe block signer. */
export const UNSAFE_BLOCK_SIGNER_SLOT: Uint8Array = keccak256(
  new TextEncoder().encode("systemconfig.unsafeblocksigner"),
);

/** The unsafe block signer in the SystemConfig's storage on L1, or undefined when the slot is empty. */
export async function readUnsafeBlockSigner(
  l1: JsonRpcClient,
  systemConfig: Uint8Array,
): Promise<Uint8Array | undefined> {
  const word = hexToBytes(
    await l1.call<string>("eth_getStorageAt", [
      bytesToHex(systemConfig),
      bytesToHex(UNSAFE_BLOCK_SIGNER_SLOT),
      "latest",
    ]),
  );
  const address = word.slice(word.length - 20);
  return address.every((b) => b === 0) ? undefined : address;
}

export type UnsafeInsertResult = "inserted" | "known" | "not-next" | "invalid";

/**
 * Inserts a gossiped block when it extends the engine's head. `heads` are the driver's safe and
 * finalized blocks, kept in the forkchoice update.
 */
export async function insertUnsafeBlock(
  cfg: RollupConfig,
  engine: EngineApi,
  l2: L2Chain,
  heads: () => { safe: L2BlockRef; finalized: L2BlockRef },
  block: GossipBlock,
): Promise<UnsafeInsertResult> {
  const p = block.payload;
  const headNumber = await l2.headNumber();
  if (p.blockNumber <= headNumber) {
    const have = await l2.payloadByNumber(p.blockNumber);
    return have !== undefined && equalBytes(have.blockHash, p.blockHash) ? "known" : "not-next";
  }
  if (p.blockNumber !== headNumber + 1n) return "not-next";
  const head = await l2.payloadByNumber(headNumber);
  if (head === undefined || !equalBytes(head.blockHash, p.parentHash)) return "not-next";
  const v = engineVersions(cfg, p.timestamp);
  const status = v.newPayload === 2 ? await engine.newPayload(2, p) : await engine.newPayload(
    v.newPayload,
    p,
    [],
    block.parentBeaconBlockRoot,
    v.newPayload === 4 ? [] : undefined,
  );
  if (status.status !== "VALID") return "invalid";
  const { safe, finalized } = heads();
  await engine.forkchoiceUpdated(v.fcu, {
    headBlockHash: p.blockHash,
    safeBlockHash: safe.hash,
    finalizedBlockHash: finalized.hash,
  });
  return "inserted";
}
