/**
 * geth's `prestateTracer` (eth/tracers/native/prestate.go): the touched accounts as they were
 * before the transaction (balance, nonce, code, the touched storage slots), or with `diffMode`
 * `{pre, post}` holding only what changed. Accounts come from the StateRecorder: every account and
 * slot the transaction read or wrote.
 */
import { bytesToHex, type Hex, toQuantity } from "../../../common/mod.ts";
import { type AccountState, ZERO_WORD } from "./state_recorder.ts";

export interface PrestateConfig {
  diffMode?: boolean;
}

export interface PrestateAccountJson {
  balance?: Hex;
  nonce?: number;
  code?: Hex;
  storage?: Record<Hex, Hex>;
}

export type PrestateJson = Record<Hex, PrestateAccountJson>;

/** The full account; zero slots stay in the plain prestate (geth reads them) and leave the diff's pre. */
function full(a: AccountState, storage: Map<Hex, Hex>, keepZero: boolean): PrestateAccountJson {
  const out: PrestateAccountJson = { balance: toQuantity(a.balance) };
  if (a.nonce > 0n) out.nonce = Number(a.nonce);
  if (a.code.length > 0) out.code = bytesToHex(a.code);
  const slots = [...storage].filter(([, v]) => keepZero || v !== ZERO_WORD);
  if (slots.length > 0) out.storage = Object.fromEntries(slots);
  return out;
}

/** The prestate (non-diff) result: accounts that existed before the transaction. */
export function prestateResult(pre: Map<Hex, AccountState>): PrestateJson {
  const out: PrestateJson = {};
  for (const [addr, a] of pre) {
    if (!a.exists) continue;
    out[addr] = full(a, a.storage, true);
  }
  return out;
}

/** The diffMode result (prestate.go processDiffState). */
export function prestateDiff(
  pre: Map<Hex, AccountState>,
  post: Map<Hex, AccountState>,
): { post: PrestateJson; pre: PrestateJson } {
  const outPre: PrestateJson = {};
  const outPost: PrestateJson = {};
  for (const [addr, a] of pre) {
    const b = post.get(addr);
    if (b === undefined) continue;
    if (a.exists && !b.exists) {
      // Deleted: kept in pre, absent from post.
      outPre[addr] = full(a, a.storage, false);
      continue;
    }
    let modified = false;
    const p: PrestateAccountJson = {};
    if (a.balance !== b.balance) (modified = true, p.balance = toQuantity(b.balance));
    if (a.nonce !== b.nonce) (modified = true, p.nonce = Number(b.nonce));
    if (bytesToHex(a.code) !== bytesToHex(b.code)) (modified = true, p.code = bytesToHex(b.code));
    const preSlots = new Map<Hex, Hex>();
    const postSlots: Record<Hex, Hex> = {};
    for (const [slot, v] of a.storage) {
      const nv = b.storage.get(slot) ?? ZERO_WORD;
      if (nv === v) continue;
      modified = true;
      preSlots.set(slot, v);
      if (nv !== ZERO_WORD) postSlots[slot] = nv;
    }
    if (Object.keys(postSlots).length > 0) p.storage = postSlots;
    if (!modified) continue;
    outPost[addr] = p;
    if (a.exists) outPre[addr] = full(a, preSlots, false);
  }
  return { post: outPost, pre: outPre };
}
