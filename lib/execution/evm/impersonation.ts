/**
 * Transactions sent from an impersonated account (anvil_impersonateAccount, then eth_sendTransaction
 * or eth_sendUnsignedTransaction from an address whose key the node does not hold), as anvil has them:
 * the transaction carries a placeholder signature, and its sender is known by its hash.
 *
 * The placeholder is y-parity 0, r = the sender address as an integer, s = 1: it decodes as any
 * signed transaction (r and s in range, s low), makes the hash unique per sender, and no real
 * signature has s = 1. `getSenderAddress()` (sender_address.ts) asks `impersonatedSender` first, which
 * answers only for a transaction with s = 1 whose hash was registered here, so a forged placeholder
 * from outside is recovered (and refused) as usual. The engine keeps the registrations in its database
 * (dev mode) and registers them again when it opens, so stored transactions keep their sender.
 */
import type { TypedTransaction } from "@ethereumjs/tx";
import { Address } from "@ethereumjs/util";
import { bytesToHex } from "../../common/bytes.ts";

/** Transaction hash (0x hex) -> sender. */
const SENDERS = new Map<string, Address>();

/** The placeholder signature of a transaction from `sender`: [y-parity, r, s]. */
export function placeholderSignature(sender: Uint8Array): [bigint, bigint, bigint] {
  return [0n, BigInt(bytesToHex(sender)), 1n];
}

/** Records that the transaction with `hash` is sent by `sender`. */
export function registerImpersonated(hash: Uint8Array, sender: Uint8Array): void {
  SENDERS.set(bytesToHex(hash), new Address(sender.slice()));
}

/** Forgets a registration (eth_simulateV1's transactions live only for the request). */
export function unregisterImpersonated(hash: Uint8Array): void {
  SENDERS.delete(bytesToHex(hash));
}

/** The sender of an impersonated transaction, or undefined for every other transaction. */
export function impersonatedSender(tx: TypedTransaction): Address | undefined {
  if (SENDERS.size === 0 || tx.s !== 1n || !tx.isSigned()) return undefined;
  return SENDERS.get(bytesToHex(tx.hash()));
}
