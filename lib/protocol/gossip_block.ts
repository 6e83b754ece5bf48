/**
 * Unsafe L2 blocks as the rollup nodes gossip them (specs/protocol/rollup-node-p2p.md "Gossip Topics",
 * "Block encoding", "Block signatures", "Block validation", "Message ID computation"):
 * - topics `/optimism/<chainId>/<version>/blocks`, version 0 before Canyon, 1 from Canyon, 2 from
 *   Ecotone, 3 from Isthmus;
 * - a message is snappy block-compressed `signature(65) ++ [parentBeaconBlockRoot(32), v2+] ++ payload`,
 *   the payload SSZ-encoded as the consensus layer's ExecutionPayload (op-node op-service/eth/ssz.go:
 *   V1 Bellatrix, V2 + withdrawals, V3 + blobGasUsed and excessBlobGas, V4 + OP's withdrawalsRoot at the
 *   end of the fixed part, isthmus/exec-engine.md "Update to ExecutionPayload");
 * - the sequencer signs keccak256(domain(32 zero bytes) ++ chainId(uint256) ++ keccak256(signed bytes)),
 *   the signed bytes being the payload (v0, v1) or parentBeaconBlockRoot ++ payload (v2, v3); the
 *   signature is r ++ s ++ y_parity.
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import * as snappy from "snappyjs";
import { bigIntToBytes, concatBytes } from "../common/bytes.ts";
import { BaseError } from "../common/errors.ts";
import { keccak256 } from "../common/hash.ts";
import type { ExecutionPayload, Withdrawal } from "./engine.ts";
import { isRollupForkActive, type RollupConfig } from "./rollup_config.ts";

/** Topic versions: blocksv1..blocksv4 are versions 0..3 of the topic name. */
export type BlocksTopicVersion = 0 | 1 | 2 | 3;

/** "Message compression and limits": 10 MiB, compressed and not. */
export const MAX_GOSSIP_SIZE = 10 * 1024 * 1024;

/** "Block validation": timestamps more than 60 s old or 5 s ahead are rejected. */
export const MAX_BLOCK_AGE_SECONDS = 60n;
export const MAX_BLOCK_FUTURE_SECONDS = 5n;

/** The consensus layer's MAX_TRANSACTIONS_PER_PAYLOAD and MAX_WITHDRAWALS_PER_PAYLOAD. */
const MAX_TRANSACTIONS = 1 << 20;
const MAX_WITHDRAWALS = 16;

const FIXED_V1 = 32 + 20 + 32 + 32 + 256 + 32 + 8 + 8 + 8 + 8 + 4 + 32 + 32 + 4;
const FIXED: Record<BlocksTopicVersion, number> = {
  0: FIXED_V1,
  1: FIXED_V1 + 4,
  2: FIXED_V1 + 4 + 16,
  3: FIXED_V1 + 4 + 16 + 32,
};
const WITHDRAWAL_SIZE = 8 + 8 + 20 + 8;
const SIGNATURE_SIZE = 65;

/** "Message ID computation": the 4-byte domains of a valid and an invalid snappy message. */
const MESSAGE_DOMAIN_VALID_SNAPPY = Uint8Array.of(1, 0, 0, 0);
const MESSAGE_DOMAIN_INVALID_SNAPPY = Uint8Array.of(0, 0, 0, 0);

function invalid(message: string): BaseError {
  return new BaseError("GOSSIP_BLOCK_INVALID", `Cannot accept gossiped block: ${message}`);
}

/** The topic version of a block at `timestamp` ("Gossip Topics"). */
export function blocksTopicVersion(cfg: RollupConfig, timestamp: bigint): BlocksTopicVersion {
  if (isRollupForkActive(cfg, "isthmus", timestamp)) return 3;
  if (isRollupForkActive(cfg, "ecotone", timestamp)) return 2;
  if (isRollupForkActive(cfg, "canyon", timestamp)) return 1;
  return 0;
}

/** `/optimism/<chainId>/<version>/blocks` ("Topic configuration"). */
export function blocksTopic(chainId: bigint, version: BlocksTopicVersion): string {
  return `/optimism/${chainId}/${version}/blocks`;
}

function u64(view: DataView, at: number, v: bigint): void {
  if (v < 0n || v >= 1n << 64n) throw invalid(`value ${v} does not fit 64 bits`);
  view.setBigUint64(at, v, true);
}

function fixedBytes(
  out: Uint8Array,
  at: number,
  v: Uint8Array | undefined,
  size: number,
  name: string,
): void {
  if (v === undefined || v.length !== size) throw invalid(`${name} must be ${size} bytes`);
  out.set(v, at);
}

/** The payload as op-node's ExecutionPayload.MarshalSSZ writes it for topic `version`. */
export function encodePayloadSsz(p: ExecutionPayload, version: BlocksTopicVersion): Uint8Array {
  const fixed = FIXED[version];
  if (p.extraData.length > 32) throw invalid("extraData above 32 bytes");
  const withdrawals = version >= 1 ? p.withdrawals ?? [] : [];
  if (version === 0 && p.withdrawals !== undefined) throw invalid("withdrawals before Canyon");
  let txSize = 4 * p.transactions.length;
  for (const tx of p.transactions) txSize += tx.length;
  const size = fixed + p.extraData.length + txSize + WITHDRAWAL_SIZE * withdrawals.length;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  let at = 0;
  fixedBytes(out, at, p.parentHash, 32, "parentHash");
  fixedBytes(out, at += 32, p.feeRecipient, 20, "feeRecipient");
  fixedBytes(out, at += 20, p.stateRoot, 32, "stateRoot");
  fixedBytes(out, at += 32, p.receiptsRoot, 32, "receiptsRoot");
  fixedBytes(out, at += 32, p.logsBloom, 256, "logsBloom");
  fixedBytes(out, at += 256, p.prevRandao, 32, "prevRandao");
  u64(view, at += 32, p.blockNumber);
  u64(view, at += 8, p.gasLimit);
  u64(view, at += 8, p.gasUsed);
  u64(view, at += 8, p.timestamp);
  view.setUint32(at += 8, fixed, true); // offset of extraData
  if (p.baseFeePerGas < 0n || p.baseFeePerGas >= 1n << 256n) throw invalid("baseFeePerGas out of range");
  out.set(bigIntToBytes(p.baseFeePerGas, 32).reverse(), at += 4); // uint256, little-endian
  fixedBytes(out, at += 32, p.blockHash, 32, "blockHash");
  view.setUint32(at += 32, fixed + p.extraData.length, true); // offset of transactions
  at += 4;
  if (version >= 1) {
    view.setUint32(at, fixed + p.extraData.length + txSize, true); // offset of withdrawals
    at += 4;
  }
  if (version >= 2) {
    u64(view, at, p.blobGasUsed ?? 0n);
    u64(view, at + 8, p.excessBlobGas ?? 0n);
    at += 16;
  }
  if (version >= 3) {
    fixedBytes(out, at, p.withdrawalsRoot, 32, "withdrawalsRoot");
    at += 32;
  }
  out.set(p.extraData, at);
  at += p.extraData.length;
  let txAt = 4 * p.transactions.length;
  for (let i = 0; i < p.transactions.length; i++) {
    view.setUint32(at + 4 * i, txAt, true);
    out.set(p.transactions[i], at + txAt);
    txAt += p.transactions[i].length;
  }
  at += txSize;
  for (const w of withdrawals) {
    u64(view, at, w.index);
    u64(view, at + 8, w.validatorIndex);
    fixedBytes(out, at + 16, w.address, 20, "withdrawal address");
    u64(view, at + 36, w.amount);
    at += WITHDRAWAL_SIZE;
  }
  return out;
}

/**
 * Decodes an SSZ payload of topic `version`, with op-node's checks (UnmarshalSSZ): the extraData offset
 * right after the fixed part, offsets in order and in scope, extraData of at most 32 bytes, transaction
 * offsets multiples of 4, at most 2^20 transactions and 16 withdrawals. Throws GOSSIP_BLOCK_INVALID.
 */
export function decodePayloadSsz(b: Uint8Array, version: BlocksTopicVersion): ExecutionPayload {
  const fixed = FIXED[version];
  if (b.length < fixed) {
    throw invalid(`payload of ${b.length} bytes is shorter than its fixed part (${fixed})`);
  }
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const bytes = (at: number, n: number) => b.slice(at, at + n);
  const scope = b.length;
  const extraOffset = view.getUint32(436, true);
  if (extraOffset !== fixed) throw invalid(`extraData offset ${extraOffset}, expected ${fixed}`);
  const txOffset = view.getUint32(504, true);
  if (txOffset < extraOffset) throw invalid("transactions offset below the extraData offset");
  if (txOffset > extraOffset + 32 || txOffset > scope) throw invalid("extraData above 32 bytes");
  let withdrawalsOffset = scope;
  if (version >= 1) {
    withdrawalsOffset = view.getUint32(508, true);
    if (withdrawalsOffset < txOffset) throw invalid("withdrawals offset below the transactions offset");
    if (withdrawalsOffset > scope) throw invalid("withdrawals offset out of scope");
  }
  const p: ExecutionPayload = {
    parentHash: bytes(0, 32),
    feeRecipient: bytes(32, 20),
    stateRoot: bytes(52, 32),
    receiptsRoot: bytes(84, 32),
    logsBloom: bytes(116, 256),
    prevRandao: bytes(372, 32),
    blockNumber: view.getBigUint64(404, true),
    gasLimit: view.getBigUint64(412, true),
    gasUsed: view.getBigUint64(420, true),
    timestamp: view.getBigUint64(428, true),
    extraData: bytes(extraOffset, txOffset - extraOffset),
    baseFeePerGas: leUint256(b.subarray(440, 472)),
    blockHash: bytes(472, 32),
    transactions: decodeTransactions(b.subarray(txOffset, withdrawalsOffset)),
  };
  if (version >= 1) p.withdrawals = decodeWithdrawals(b.subarray(withdrawalsOffset));
  if (version >= 2) {
    p.blobGasUsed = view.getBigUint64(512, true);
    p.excessBlobGas = view.getBigUint64(520, true);
  }
  if (version >= 3) p.withdrawalsRoot = bytes(528, 32);
  return p;
}

function leUint256(b: Uint8Array): bigint {
  let v = 0n;
  for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]);
  return v;
}

function decodeTransactions(b: Uint8Array): Uint8Array[] {
  const scope = b.length;
  if (scope === 0) return [];
  if (scope < 4) throw invalid("no room for the first transaction offset");
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const first = view.getUint32(0, true);
  if (first % 4 !== 0) throw invalid(`first transaction offset ${first} is not a multiple of 4`);
  if (first > scope) throw invalid(`first transaction offset ${first} out of scope ${scope}`);
  const count = first / 4;
  if (count > MAX_TRANSACTIONS) throw invalid(`${count} transactions`);
  const txs: Uint8Array[] = [];
  let current = first;
  for (let i = 0; i < count; i++) {
    const next = i + 1 < count ? view.getUint32(4 * (i + 1), true) : scope;
    if (next < current || next > scope) throw invalid(`transaction ${i} has a bad end offset ${next}`);
    txs.push(b.slice(current, next));
    current = next;
  }
  return txs;
}

function decodeWithdrawals(b: Uint8Array): Withdrawal[] {
  if (b.length % WITHDRAWAL_SIZE !== 0) {
    throw invalid("withdrawals data is not a whole number of withdrawals");
  }
  const count = b.length / WITHDRAWAL_SIZE;
  if (count > MAX_WITHDRAWALS) throw invalid(`${count} withdrawals`);
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out: Withdrawal[] = [];
  for (let i = 0; i < count; i++) {
    const at = i * WITHDRAWAL_SIZE;
    out.push({
      index: view.getBigUint64(at, true),
      validatorIndex: view.getBigUint64(at + 8, true),
      address: b.slice(at + 16, at + 36),
      amount: view.getBigUint64(at + 36, true),
    });
  }
  return out;
}

/** A block as gossiped: the payload, the L1 origin's parent beacon block root (v2+), the signature. */
export interface GossipBlock {
  payload: ExecutionPayload;
  parentBeaconBlockRoot?: Uint8Array;
  /** r(32) ++ s(32) ++ y_parity(1). */
  signature: Uint8Array;
}

/** The bytes the sequencer signs: the SSZ payload, prefixed by the parent beacon block root from v2. */
export function gossipSignedBytes(
  payload: ExecutionPayload,
  parentBeaconBlockRoot: Uint8Array | undefined,
  version: BlocksTopicVersion,
): Uint8Array {
  const ssz = encodePayloadSsz(payload, version);
  if (version < 2) return ssz;
  if (parentBeaconBlockRoot?.length !== 32) {
    throw invalid("a v3+ block needs its 32-byte parent beacon block root");
  }
  return concatBytes(parentBeaconBlockRoot, ssz);
}

/**
 * "Block signatures": keccak256(domain ++ chain_id ++ payload_hash), domain all zero (v1), payload_hash =
 * keccak256 of the signed bytes (what a remote signer is sent).
 */
export function blockSigningHash(chainId: bigint, payloadHash: Uint8Array): Uint8Array {
  return keccak256(concatBytes(new Uint8Array(32), bigIntToBytes(chainId, 32), payloadHash));
}

export function gossipSigningHash(chainId: bigint, signed: Uint8Array): Uint8Array {
  return blockSigningHash(chainId, keccak256(signed));
}

/** Signs a block signing hash: r ++ s ++ y_parity, as gossiped. */
export function signBlockHash(signingHash: Uint8Array, key: Uint8Array): Uint8Array {
  const rec = secp256k1.sign(signingHash, key, { prehash: false, format: "recovered" });
  // noble's recovered form is recovery ++ r ++ s; the gossip form is r ++ s ++ y_parity.
  return concatBytes(rec.subarray(1), rec.subarray(0, 1));
}

/** The address whose key made `signature` (r ++ s ++ y_parity) over `signingHash`; throws when none does. */
export function blockSigner(signingHash: Uint8Array, signature: Uint8Array): Uint8Array {
  const y = signature[64];
  if (signature.length !== SIGNATURE_SIZE || (y !== 0 && y !== 1)) {
    throw invalid(`signature of ${signature.length} bytes, y_parity ${y}`);
  }
  try {
    const rec = concatBytes(signature.subarray(64), signature.subarray(0, 64));
    const compressed = secp256k1.recoverPublicKey(rec, signingHash, { prehash: false });
    return keccak256(secp256k1.Point.fromBytes(compressed).toBytes(false).subarray(1)).slice(12);
  } catch (e) {
    throw invalid(`no signer recovers from the signature (${(e as Error).message})`);
  }
}

/** The message of the blocks topic: `signature` ++ the signed bytes, snappy-compressed. */
export function encodeSignedGossipBlock(signed: Uint8Array, signature: Uint8Array): Uint8Array {
  return snappy.compress(concatBytes(signature, signed));
}

/** The message a sequencer publishes on the blocks topic of `version`: signed with `key`, snappy-compressed. */
export function encodeGossipBlock(
  payload: ExecutionPayload,
  parentBeaconBlockRoot: Uint8Array | undefined,
  version: BlocksTopicVersion,
  chainId: bigint,
  key: Uint8Array,
): Uint8Array {
  const signed = gossipSignedBytes(payload, parentBeaconBlockRoot, version);
  return encodeSignedGossipBlock(signed, signBlockHash(gossipSigningHash(chainId, signed), key));
}

/** Validation flags the caller knows from the block's timestamp and its clock. */
export interface GossipCheckContext {
  /** Jovian at the block's timestamp: blobGasUsed carries the DA footprint (jovian/exec-engine.md). */
  jovian?: boolean;
  /** Seconds since the epoch, for the age and future limits; skipped when omitted. */
  now?: bigint;
  /** The most a block may be behind `now`, in seconds (--p2p.gossip.timestamp.threshold; default 60). */
  maxAge?: bigint;
}

/**
 * Decodes and checks a message of the blocks topic of `version` in the spec's order ("Block
 * validation"): compression, encoding, timestamp window, the fields each topic version allows. Returns
 * the block and the address that signed it (the caller compares it with the unsafe block signer and
 * checks the block hash). Throws GOSSIP_BLOCK_INVALID (a REJECT).
 */
export function decodeGossipBlock(
  data: Uint8Array,
  version: BlocksTopicVersion,
  chainId: bigint,
  ctx: GossipCheckContext = {},
): { block: GossipBlock; signer: Uint8Array } {
  if (data.length > MAX_GOSSIP_SIZE) throw invalid(`message of ${data.length} bytes`);
  let raw: Uint8Array;
  try {
    raw = snappy.uncompress(data, MAX_GOSSIP_SIZE);
  } catch (e) {
    throw invalid(`bad snappy compression (${(e as Error).message})`);
  }
  const head = SIGNATURE_SIZE + (version >= 2 ? 32 : 0);
  if (raw.length < head) throw invalid(`message of ${raw.length} bytes after decompression`);
  const signature = raw.slice(0, SIGNATURE_SIZE);
  const parentBeaconBlockRoot = version >= 2 ? raw.slice(SIGNATURE_SIZE, head) : undefined;
  const payload = decodePayloadSsz(raw.subarray(head), version);
  if (ctx.now !== undefined) {
    const maxAge = ctx.maxAge ?? MAX_BLOCK_AGE_SECONDS;
    if (payload.timestamp + maxAge < ctx.now) {
      throw invalid(`timestamp ${payload.timestamp} is more than ${maxAge} s old`);
    }
    if (payload.timestamp > ctx.now + MAX_BLOCK_FUTURE_SECONDS) {
      throw invalid(`timestamp ${payload.timestamp} is more than 5 s ahead`);
    }
  }
  if (version >= 1 && payload.withdrawals!.length !== 0) throw invalid("withdrawals must be empty");
  if (version >= 2 && payload.blobGasUsed !== 0n && !ctx.jovian) throw invalid("blobGasUsed must be 0");
  if (version >= 2 && payload.excessBlobGas !== 0n) throw invalid("excessBlobGas must be 0");
  const signer = blockSigner(gossipSigningHash(chainId, raw.subarray(SIGNATURE_SIZE)), signature);
  return { block: { payload, parentBeaconBlockRoot, signature }, signer };
}

/** "Message ID computation": SHA256(domain ++ data)[:20], over the decompressed data when it decompresses. */
export function gossipMessageId(data: Uint8Array): Uint8Array {
  try {
    const raw = snappy.uncompress(data, MAX_GOSSIP_SIZE);
    return sha256(concatBytes(MESSAGE_DOMAIN_VALID_SNAPPY, raw)).slice(0, 20);
  } catch {
    return sha256(concatBytes(MESSAGE_DOMAIN_INVALID_SNAPPY, data)).slice(0, 20);
  }
}
