/**
 * A StateDelta in one buffer, for the trip to the state-root worker (root_task.ts).
 *
 * Posting the delta as objects made the executing thread structured-clone about a thousand small
 * arrays a message (each with its own strings, bigints and byte arrays): ~2.5 ms of a 500-transfer
 * block, measured. Packed, the copy is one write pass here and the buffer is transferred, not cloned;
 * the worker unpacks it on its own thread.
 *
 * Layout (big-endian): u32 resets, u32 accounts, u32 slots; then each reset as a string; each account
 * as its address string and a tag (0 [a], 1 [a, null], 2 [a, nonce u64, balance u256, storageRoot 32,
 * codeHash 32]); each slot as address and key strings and a value (u8 length, 0xff for null, bytes).
 * A string is u8 length + its ASCII characters (unprefixed hex).
 */
import { BaseError } from "../../common/errors.ts";
import type { DeltaAccount, StateDelta } from "./state_manager.ts";

const NULL_VALUE = 0xff;
const U64 = (1n << 64n) - 1n;

function tooLarge(what: string): BaseError {
  return new BaseError("STATE_DELTA_ENCODING", `Cannot pack state delta: ${what}`);
}

/** The packed bytes of `delta`. */
export function packDelta(delta: StateDelta): Uint8Array {
  let size = 12;
  for (const a of delta.resets) size += 1 + a.length;
  for (const d of delta.accounts) size += 2 + d[0].length + (d.length === 5 ? 8 + 32 + 64 : 0);
  for (const [a, k, v] of delta.slots) size += 3 + a.length + k.length + (v === null ? 0 : v.length);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  let at = 0;
  const str = (s: string) => {
    if (s.length >= 256) throw tooLarge(`a key of ${s.length} characters`);
    out[at++] = s.length;
    for (let i = 0; i < s.length; i++) out[at++] = s.charCodeAt(i);
  };
  const bytes = (b: Uint8Array, length: number) => {
    if (b.length !== length) throw tooLarge(`a ${b.length}-byte field where ${length} bytes belong`);
    out.set(b, at);
    at += length;
  };
  view.setUint32(0, delta.resets.length);
  view.setUint32(4, delta.accounts.length);
  view.setUint32(8, delta.slots.length);
  at = 12;
  for (const a of delta.resets) str(a);
  for (const d of delta.accounts) {
    str(d[0]);
    if (d.length === 1) out[at++] = 0;
    else if (d.length === 2) out[at++] = 1;
    else {
      const [, nonce, balance, storageRoot, codeHash] = d;
      if (nonce > U64) throw tooLarge(`nonce ${nonce} above 2^64-1`);
      if (balance >> 256n !== 0n) throw tooLarge(`balance ${balance} above 2^256-1`);
      out[at++] = 2;
      view.setBigUint64(at, nonce);
      view.setBigUint64(at + 8, balance >> 192n);
      view.setBigUint64(at + 16, (balance >> 128n) & U64);
      view.setBigUint64(at + 24, (balance >> 64n) & U64);
      view.setBigUint64(at + 32, balance & U64);
      at += 40;
      bytes(storageRoot, 32);
      bytes(codeHash, 32);
    }
  }
  for (const [a, k, v] of delta.slots) {
    str(a);
    str(k);
    if (v === null) out[at++] = NULL_VALUE;
    else {
      if (v.length >= NULL_VALUE) throw tooLarge(`a ${v.length}-byte slot value`);
      out[at++] = v.length;
      out.set(v, at);
      at += v.length;
    }
  }
  return out;
}

/** The delta `packDelta` packed; throws STATE_DELTA_ENCODING on bytes it did not write. */
export function unpackDelta(packed: Uint8Array): StateDelta {
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  let at = 12;
  const need = (n: number) => {
    if (at + n > packed.length) {
      throw new BaseError("STATE_DELTA_ENCODING", `Cannot unpack state delta: truncated at byte ${at}`);
    }
  };
  const str = () => {
    need(1);
    const n = packed[at++];
    need(n);
    const s = String.fromCharCode.apply(null, packed.subarray(at, at + n) as unknown as number[]);
    at += n;
    return s;
  };
  const bytes = (n: number) => {
    need(n);
    const b = packed.slice(at, at + n);
    at += n;
    return b;
  };
  if (packed.length < 12) {
    throw new BaseError("STATE_DELTA_ENCODING", `Cannot unpack state delta: ${packed.length} bytes`);
  }
  const resets: string[] = new Array(view.getUint32(0));
  const accounts: DeltaAccount[] = new Array(view.getUint32(4));
  const slots: StateDelta["slots"] = new Array(view.getUint32(8));
  for (let i = 0; i < resets.length; i++) resets[i] = str();
  for (let i = 0; i < accounts.length; i++) {
    const a = str();
    need(1);
    const tag = packed[at++];
    if (tag === 0) accounts[i] = [a];
    else if (tag === 1) accounts[i] = [a, null];
    else if (tag === 2) {
      need(40);
      const nonce = view.getBigUint64(at);
      const balance = (view.getBigUint64(at + 8) << 192n) | (view.getBigUint64(at + 16) << 128n) |
        (view.getBigUint64(at + 24) << 64n) | view.getBigUint64(at + 32);
      at += 40;
      accounts[i] = [a, nonce, balance, bytes(32), bytes(32)];
    } else {
      throw new BaseError("STATE_DELTA_ENCODING", `Cannot unpack state delta: account tag ${tag}`);
    }
  }
  for (let i = 0; i < slots.length; i++) {
    const a = str();
    const k = str();
    need(1);
    const n = packed[at++];
    slots[i] = [a, k, n === NULL_VALUE ? null : bytes(n)];
  }
  if (at !== packed.length) {
    throw new BaseError(
      "STATE_DELTA_ENCODING",
      `Cannot unpack state delta: ${packed.length - at} bytes left over`,
    );
  }
  return { resets, accounts, slots };
}

/**
 * Receipts in one buffer, for the same trip (the worker builds the block's receipts trie beside its
 * state tries): u32 index of the first, u32 count, then per receipt u32 length and its encoding.
 */
export function packReceipts(first: number, receipts: Uint8Array[]): Uint8Array {
  let size = 8;
  for (const r of receipts) size += 4 + r.length;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, first);
  view.setUint32(4, receipts.length);
  let at = 8;
  for (const r of receipts) {
    view.setUint32(at, r.length);
    out.set(r, at + 4);
    at += 4 + r.length;
  }
  return out;
}

/** What packReceipts packed (views into `packed`); throws STATE_DELTA_ENCODING on bytes it did not write. */
export function unpackReceipts(packed: Uint8Array): { first: number; receipts: Uint8Array[] } {
  const fail = (why: string) => new BaseError("STATE_DELTA_ENCODING", `Cannot unpack receipts: ${why}`);
  if (packed.length < 8) throw fail(`${packed.length} bytes`);
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  const first = view.getUint32(0);
  const receipts: Uint8Array[] = new Array(view.getUint32(4));
  let at = 8;
  for (let i = 0; i < receipts.length; i++) {
    if (at + 4 > packed.length) throw fail(`truncated at byte ${at}`);
    const n = view.getUint32(at);
    if (at + 4 + n > packed.length) throw fail(`truncated at byte ${at}`);
    receipts[i] = packed.subarray(at + 4, at + 4 + n);
    at += 4 + n;
  }
  if (at !== packed.length) throw fail(`${packed.length - at} bytes left over`);
  return { first, receipts };
}
