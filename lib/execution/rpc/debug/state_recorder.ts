/**
 * Records the state a transaction touches, for the prestate tracer and the Parity stateDiff: a
 * proxy over the state manager that, while recording, keeps the value of every account, code and
 * storage slot as it was at its first access in the transaction (a read or a write). The post
 * state is read back from the state manager after the transaction. Nothing is wrapped when not
 * tracing: the replay passes the plain state manager to blocks it does not trace.
 */
import type { StateManagerInterface } from "@ethereumjs/common";
import type { Account, Address } from "@ethereumjs/util";
import { bytesToHex, type Hex } from "../../../common/mod.ts";

/** An account as the tracers report it (absent accounts: exists false, zero fields). */
export interface AccountState {
  exists: boolean;
  balance: bigint;
  nonce: bigint;
  code: Uint8Array;
  /** Slot (32-byte hex) -> value (32-byte hex, zero-padded). */
  storage: Map<Hex, Hex>;
}

const ZERO_WORD = ("0x" + "00".repeat(32)) as Hex;

export function wordHex(bytes: Uint8Array): Hex {
  if (bytes.length === 32) return bytesToHex(bytes);
  const out = new Uint8Array(32);
  out.set(bytes.subarray(Math.max(0, bytes.length - 32)), 32 - Math.min(32, bytes.length));
  return bytesToHex(out);
}

export class StateRecorder {
  readonly target: StateManagerInterface;
  /** The proxy the traced VM runs on. */
  readonly proxy: StateManagerInterface;
  #recording = false;
  /** Address hex -> pre state (storage holds only the touched slots). */
  #pre = new Map<Hex, Promise<AccountState>>();
  #slots = new Map<Hex, Map<Hex, Promise<Hex>>>();

  constructor(target: StateManagerInterface) {
    this.target = target;
    const intercept: Record<string, (...args: unknown[]) => Promise<unknown>> = {
      getAccount: async (a) => (await this.#touch(a as Address), target.getAccount(a as Address)),
      putAccount: async (
        a,
        acc,
      ) => (await this.#touch(a as Address), target.putAccount(a as Address, acc as Account)),
      deleteAccount: async (a) => (await this.#touch(a as Address), target.deleteAccount(a as Address)),
      modifyAccountFields: async (a, f) => (
        await this.#touch(a as Address),
          target.modifyAccountFields(
            a as Address,
            f as Parameters<StateManagerInterface["modifyAccountFields"]>[1],
          )
      ),
      getCode: async (a) => (await this.#touch(a as Address), target.getCode(a as Address)),
      getCodeSize: async (a) => (await this.#touch(a as Address), target.getCodeSize(a as Address)),
      putCode: async (
        a,
        c,
      ) => (await this.#touch(a as Address), target.putCode(a as Address, c as Uint8Array)),
      getStorage: async (a, k) => (
        await this.#touchSlot(a as Address, k as Uint8Array), target.getStorage(a as Address, k as Uint8Array)
      ),
      putStorage: async (a, k, v) => (
        await this.#touchSlot(a as Address, k as Uint8Array),
          target.putStorage(a as Address, k as Uint8Array, v as Uint8Array)
      ),
    };
    this.proxy = new Proxy(target, {
      get: (t, prop, receiver) => {
        if (this.#recording && typeof prop === "string" && prop in intercept) return intercept[prop];
        const v = Reflect.get(t, prop, receiver);
        return typeof v === "function" ? v.bind(t) : v;
      },
    });
  }

  /** Starts recording a new transaction (forgets the previous one). */
  start(): void {
    this.#pre = new Map();
    this.#slots = new Map();
    this.#recording = true;
  }

  stop(): void {
    this.#recording = false;
  }

  /** Marks an account touched before the transaction runs (sender, recipient, coinbase). */
  async touch(address: Address): Promise<void> {
    await this.#touch(address);
  }

  #touch(address: Address): Promise<AccountState> {
    const key = address.toString() as Hex;
    let pre = this.#pre.get(key);
    if (pre === undefined) {
      pre = this.#read(address, new Map());
      this.#pre.set(key, pre);
    }
    return pre;
  }

  async #touchSlot(address: Address, slot: Uint8Array): Promise<void> {
    await this.#touch(address);
    const key = address.toString() as Hex;
    let slots = this.#slots.get(key);
    if (slots === undefined) this.#slots.set(key, slots = new Map());
    const s = wordHex(slot);
    if (!slots.has(s)) slots.set(s, this.target.getStorage(address, slot).then(wordHex));
  }

  async #read(address: Address, slots: Map<Hex, unknown>): Promise<AccountState> {
    const acc = await this.target.getAccount(address);
    const code = acc === undefined ? new Uint8Array() : await this.target.getCode(address);
    const storage = new Map<Hex, Hex>();
    for (const slot of slots.keys()) {
      // A missing (e.g. self-destructed) account has all-zero storage.
      const v = acc === undefined ? new Uint8Array() : await this.target.getStorage(address, hexBytes(slot));
      storage.set(slot, wordHex(v));
    }
    return {
      exists: acc !== undefined,
      balance: acc?.balance ?? 0n,
      nonce: acc?.nonce ?? 0n,
      code,
      storage,
    };
  }

  /** The touched accounts before the transaction, with their touched slots. */
  async pre(): Promise<Map<Hex, AccountState>> {
    const out = new Map<Hex, AccountState>();
    for (const [addr, p] of this.#pre) {
      const state = await p;
      const storage = new Map<Hex, Hex>();
      for (const [slot, v] of this.#slots.get(addr) ?? []) storage.set(slot, await v);
      out.set(addr, { ...state, storage });
    }
    return out;
  }

  /** The same accounts and slots now (after the transaction). */
  async post(addressOf: (hex: Hex) => Address): Promise<Map<Hex, AccountState>> {
    const out = new Map<Hex, AccountState>();
    for (const addr of this.#pre.keys()) {
      out.set(addr, await this.#read(addressOf(addr), this.#slots.get(addr) ?? new Map()));
    }
    return out;
  }
}

function hexBytes(h: Hex): Uint8Array {
  const out = new Uint8Array((h.length - 2) / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(h.slice(2 + 2 * i, 4 + 2 * i), 16);
  return out;
}

export { ZERO_WORD };
