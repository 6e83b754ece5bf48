/**
 * geth's `prestateTracer` (op-geth eth/tracers/native/prestate.go): the touched accounts as they were
 * before the transaction (balance, nonce, code, the touched storage slots), or with `diffMode`
 * `{pre, post}` holding only what changed. Accounts come from the StateRecorder: every account and
 * slot the transaction read or wrote (geth looks up the sender, recipient, coinbase, on OP chains
 * the L1 and base fee vaults, and every account an opcode names). As geth:
 * - an account that did not exist is reported too ({"balance": "0x0"}), unless the transaction
 *   created it (a CREATE, CREATE2 or creation transaction, whether or not it succeeded);
 * - in diffMode an account that ran SELFDESTRUCT stays in `pre` whole and is left out of `post`.
 */
import type { EVMResult, InterpreterStep, Message } from "@ethereumjs/evm";
import { bytesToHex, type Hex, toQuantity } from "../../../common/mod.ts";
import type { Tracer } from "./hooks.ts";
import { type AccountState, ZERO_WORD } from "./state_recorder.ts";

const SELFDESTRUCT = 0xff;

/** What the prestate results need beyond the recorded state: the created and self-destructed accounts. */
export class PrestateTracer implements Tracer {
  readonly steps = true;
  /** Addresses (lower-case hex) a create of this transaction was for. */
  readonly created = new Set<Hex>();
  /** Addresses (lower-case hex) that ran SELFDESTRUCT. */
  readonly deleted = new Set<Hex>();
  readonly #creates: boolean[] = [];

  onStep(step: InterpreterStep): void {
    if (step.opcode.code === SELFDESTRUCT) this.deleted.add(step.address.toString() as Hex);
  }

  onEnter(msg: Message): void {
    this.#creates.push(msg.to === undefined);
  }

  onExit(result: EVMResult): void {
    if (this.#creates.pop() === true && result.createdAddress !== undefined) {
      this.created.add(result.createdAddress.toString() as Hex);
    }
  }
}

export interface PrestateConfig {
  diffMode?: boolean;
  /** Leave code out (geth 1.14.12 PrestateTracerConfig.DisableCode): not reported, nor compared in diffMode. */
  disableCode?: boolean;
  /** Leave storage out (DisableStorage): not reported, nor compared in diffMode. */
  disableStorage?: boolean;
}

type PrestateOmit = Pick<PrestateConfig, "disableCode" | "disableStorage">;

export interface PrestateAccountJson {
  balance?: Hex;
  nonce?: number;
  code?: Hex;
  storage?: Record<Hex, Hex>;
}

export type PrestateJson = Record<Hex, PrestateAccountJson>;

/** The full account; zero slots stay in the plain prestate (geth reads them) and leave the diff's pre. */
function full(
  a: AccountState,
  storage: Map<Hex, Hex>,
  keepZero: boolean,
  omit: PrestateOmit,
): PrestateAccountJson {
  const out: PrestateAccountJson = { balance: toQuantity(a.balance) };
  if (a.nonce > 0n) out.nonce = Number(a.nonce);
  if (a.code.length > 0 && omit.disableCode !== true) out.code = bytesToHex(a.code);
  if (omit.disableStorage === true) return out;
  const slots = [...storage].filter(([, v]) => keepZero || v !== ZERO_WORD);
  if (slots.length > 0) out.storage = Object.fromEntries(slots);
  return out;
}

/** The prestate (non-diff) result: the touched accounts but those this transaction created. */
export function prestateResult(
  pre: Map<Hex, AccountState>,
  created: ReadonlySet<Hex> = new Set(),
  omit: PrestateOmit = {},
): PrestateJson {
  const out: PrestateJson = {};
  for (const [addr, a] of pre) {
    if (!a.exists && created.has(addr)) continue;
    out[addr] = full(a, a.storage, true, omit);
  }
  return out;
}

/** The diffMode result (prestate.go processDiffState). */
export function prestateDiff(
  pre: Map<Hex, AccountState>,
  post: Map<Hex, AccountState>,
  created: ReadonlySet<Hex> = new Set(),
  deleted: ReadonlySet<Hex> = new Set(),
  omit: PrestateOmit = {},
): { post: PrestateJson; pre: PrestateJson } {
  const outPre: PrestateJson = {};
  const outPost: PrestateJson = {};
  for (const [addr, a] of pre) {
    const b = post.get(addr);
    if (b === undefined) continue;
    if (deleted.has(addr)) {
      // geth prunes a self-destructed account from post and keeps it whole in pre (also after
      // Cancun, when SELFDESTRUCT only moves the balance of an account it did not create).
      if (a.exists || !created.has(addr)) outPre[addr] = full(a, a.storage, true, omit);
      continue;
    }
    if (a.exists && !b.exists) {
      // Deleted: kept in pre, absent from post.
      outPre[addr] = full(a, a.storage, false, omit);
      continue;
    }
    let modified = false;
    const p: PrestateAccountJson = {};
    if (a.balance !== b.balance) (modified = true, p.balance = toQuantity(b.balance));
    if (a.nonce !== b.nonce) (modified = true, p.nonce = Number(b.nonce));
    if (omit.disableCode !== true && bytesToHex(a.code) !== bytesToHex(b.code)) {
      modified = true;
      p.code = bytesToHex(b.code);
    }
    const preSlots = new Map<Hex, Hex>();
    const postSlots: Record<Hex, Hex> = {};
    for (const [slot, v] of omit.disableStorage === true ? [] : a.storage) {
      const nv = b.storage.get(slot) ?? ZERO_WORD;
      if (nv === v) continue;
      modified = true;
      preSlots.set(slot, v);
      if (nv !== ZERO_WORD) postSlots[slot] = nv;
    }
    if (Object.keys(postSlots).length > 0) p.storage = postSlots;
    if (!modified) continue;
    outPost[addr] = p;
    if (a.exists || !created.has(addr)) outPre[addr] = full(a, preSlots, false, omit);
  }
  return { post: outPost, pre: outPre };
}
