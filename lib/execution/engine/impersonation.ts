/**
 * Impersonated accounts of `keel execution --dev` (anvil_impersonateAccount,
 * anvil_autoImpersonateAccount): which addresses may send without a key, and the senders of the
 * transactions sent so (evm/impersonation.ts), kept under PREFIXES.devSender so a restart still knows
 * who sent a stored transaction (receipts, traces). The set of accounts lives in memory, as anvil's.
 */
import { bytesToHex } from "../../common/bytes.ts";
import { type KvStore, prefixedKey, PREFIXES } from "../../db/mod.ts";
import { registerImpersonated } from "../evm/mod.ts";

export class Impersonation {
  readonly #store: KvStore;
  readonly #accounts = new Set<string>();
  #auto = false;

  /** Registers the senders kept in `store`. */
  constructor(store: KvStore) {
    this.#store = store;
    for (const [key, sender] of store.iterate(new Uint8Array([PREFIXES.devSender]))) {
      registerImpersonated(key.subarray(1), sender);
    }
  }

  /** anvil_impersonateAccount: `address` may send without a key. */
  impersonate(address: Uint8Array): void {
    this.#accounts.add(bytesToHex(address));
  }

  /** anvil_stopImpersonatingAccount. */
  stop(address: Uint8Array): void {
    this.#accounts.delete(bytesToHex(address));
  }

  /** anvil_autoImpersonateAccount: every address may send without a key. */
  setAuto(on: boolean): void {
    this.#auto = on;
  }

  /** Whether `address` may send without a key. */
  canSend(address: Uint8Array): boolean {
    return this.#auto || this.#accounts.has(bytesToHex(address));
  }

  /** Records (and stores) the sender of the impersonated transaction `hash`. */
  register(hash: Uint8Array, sender: Uint8Array): void {
    this.#store.put(prefixedKey(PREFIXES.devSender, hash), sender);
    registerImpersonated(hash, sender);
  }
}
