/**
 * The one registry of key prefixes in keel's key-value store. Every key starts with one byte
 * from this table, so two users of the shared database can never collide. Add a row here
 * (never reuse a number) before writing under a new prefix; a test checks the numbers are unique.
 */
export const PREFIXES = {
  /** Store metadata: schema version (lib/db). */
  meta: 0x00,
  /** State trie nodes and contract code, keyed by node hash (execution/state TrieDb). */
  trieNode: 0x01,
  /** Block header RLP by block hash (execution/chain). */
  header: 0x10,
  /** Block body (rlp [txs, withdrawals?]) by block hash (execution/chain). */
  body: 0x11,
  /** Stored receipts of a block by block hash (execution/chain). */
  receipts: 0x12,
  /** Block hash -> number (u64) and total difficulty (execution/chain). */
  blockInfo: 0x13,
  /** Canonical number (u64 big-endian) -> block hash (execution/chain). */
  canonical: 0x14,
  /** Canonical tx hash -> (block hash, index) (execution/chain). */
  txIndex: 0x15,
  /** Head labels latest / safe / finalized -> block hash (execution/chain). */
  headLabel: 0x16,
  /** Canonical number (u64) -> block hash, bloom and logs of blocks with logs (execution/chain). */
  logIndex: 0x17,
  /** Reserved for the execution client's other users (txpool journal, ...): 0x20-0x2f. */
  executionReserved: 0x20,
  /** Block hash -> the state root the dev methods gave that block (execution/engine IrregularState). */
  devStateRoot: 0x21,
  /** Tx hash -> sender of a transaction sent from an impersonated account (execution/engine Impersonation). */
  devSender: 0x22,
  /** Address, and address ‖ slot, of every account and storage slot written (execution/state preimages). */
  statePreimage: 0x23,
  /** Block hash -> the RLP of a block an import found invalid, the 10 highest kept (execution/engine BadBlocks). */
  badBlock: 0x24,
  /**
   * 0x00 ‖ versioned hash -> blob ‖ KZG commitment ‖ proof, 0x01 ‖ tx hash -> its versioned hashes: the blobs
   * of blocks built here on a plain chain (execution/engine BlobStore).
   */
  blob: 0x25,
  /** Reserved for the rollup node (safe-head db, ...): 0x40-0x4f. */
  rollupReserved: 0x40,
  /** L1 block number (u64) -> the L1 block and the safe L2 head derived up to it (rollup/driver SafeDb). */
  safeHeadByL1: 0x41,
  /** Reserved for the batcher: 0x50-0x5f. */
  batcherReserved: 0x50,
} as const;

export type PrefixName = keyof typeof PREFIXES;

/** A key under `prefix`: the prefix byte followed by `parts`. */
export function prefixedKey(prefix: number, ...parts: Uint8Array[]): Uint8Array {
  let len = 1;
  for (const p of parts) len += p.length;
  const out = new Uint8Array(len);
  out[0] = prefix;
  let off = 1;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

/** The smallest key greater than every key starting with `prefix`, or undefined if none exists (all 0xff). */
export function prefixUpperBound(prefix: Uint8Array): Uint8Array | undefined {
  const out = prefix.slice();
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i] !== 0xff) {
      out[i]++;
      return out.subarray(0, i + 1);
    }
  }
  return undefined;
}

/** u64 big-endian, so numeric order equals key order. */
export function u64Key(n: bigint | number): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(n));
  return out;
}

/** Reads a u64 big-endian at `offset`. */
export function readU64(bytes: Uint8Array, offset = 0): bigint {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(offset);
}
