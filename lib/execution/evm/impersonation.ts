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

/**
 * Transaction hash (0x hex) -> sender, and how many registrations hold it: the same hash always has
 * the same sender (the placeholder's r is the sender), and eth_simulateV1's short-lived registration
 * of a transaction must not take away a lasting one (eth_sendUnsignedTransaction) of the same bytes.
 */
const SENDERS = new Map<string, { sender: Address; holds: number }>();

/** The placeholder signature of a transaction from `sender`: [y-parity, r, s]. */
export function placeholderSignature(sender: Uint8Array): [bigint, bigint, bigint] {
  return [0n, BigInt(bytesToHex(sender)), 1n];
}

/** Records that the transaction with `hash` is sent by `sender`. */
export function registerImpersonated(hash: Uint8Array, sender: Uint8Array): void {
  const key = bytesToHex(hash);
  const entry = SENDERS.get(key);
  if (entry !== undefined) entry.holds++;
  else SENDERS.set(key, { sender: new Address(sender.slice()), holds: 1 });
}

/** Releases one registration (eth_simulateV1's transactions live only for the request). */
export function unregisterImpersonated(hash: Uint8Array): void {
  const key = bytesToHex(hash);
  const entry = SENDERS.get(key);
  if (entry !== undefined && --entry.holds <= 0) SENDERS.delete(key);
}

/** The sender of an impersonated transaction, or undefined for every other transaction. */
export function impersonatedSender(tx: TypedTransaction): Address | undefined {
  if (SENDERS.size === 0 || tx.s !== 1n || !tx.isSigned()) return undefined;
  return SENDERS.get(bytesToHex(tx.hash()))?.sender;
}
