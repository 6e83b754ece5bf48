/**
 * `tx.getSenderAddress()` once per transaction. @ethereumjs/tx derives the address from the public
 * key on every call (a pure-JS keccak256, ~5 us), and a transaction's sender is asked for several
 * times on its way through the pool, runTx and the receipt. Signed transactions are frozen
 * (immutable), so the address of one object never changes: it is kept in a WeakMap beside it and
 * derived with keel's WebAssembly keccak256.
 */
import {
  AccessList2930Tx,
  Blob4844Tx,
  EOACode7702Tx,
  FeeMarket1559Tx,
  LegacyTx,
  type TypedTransaction,
} from "@ethereumjs/tx";
import { Address } from "@ethereumjs/util";
import { keccak256 } from "../../common/hash.ts";
import { impersonatedSender } from "./impersonation.ts";

const ADDRESSES = new WeakMap<TypedTransaction, Address>();
let installed = false;

/**
 * The sender address of a signed transaction (recovering the public key when not cached); an
 * impersonated transaction's is the registered one (impersonation.ts).
 */
function senderAddress(this: TypedTransaction): Address {
  let address = ADDRESSES.get(this);
  if (address === undefined) {
    address = impersonatedSender(this) ?? new Address(keccak256(this.getSenderPublicKey()).slice(12));
    // An unfrozen transaction can still be changed: its address is derived each time.
    if (Object.isFrozen(this)) ADDRESSES.set(this, address);
  }
  return address;
}

/**
 * Records the sender address of a frozen transaction whose public key was put into its cache from a
 * cache of earlier recoveries (sender_cache.ts), sparing the keccak256 of the key.
 */
export function rememberSenderAddress(tx: TypedTransaction, address: Address): void {
  if (Object.isFrozen(tx)) ADDRESSES.set(tx, address);
}

/** The memoized sender address of `tx`, if it was derived before. */
export function knownSenderAddress(tx: TypedTransaction): Address | undefined {
  return ADDRESSES.get(tx);
}

/** Installs the memo on every transaction class (idempotent). */
export function memoizeSenderAddresses(): void {
  if (installed) return;
  installed = true;
  for (const C of [LegacyTx, AccessList2930Tx, FeeMarket1559Tx, Blob4844Tx, EOACode7702Tx]) {
    C.prototype.getSenderAddress = senderAddress as () => Address;
  }
}
