/**
 * Conditional transactions (op-geth's eth_sendRawTransactionConditional, for ERC-4337 bundlers): a
 * transaction with preconditions the sequencer enforces out of protocol: known storage roots or slot
 * values of accounts, and inclusive ranges of block number and timestamp (op-geth core/types
 * TransactionConditional). Checked when submitted (the header against the head, the state against the
 * head's parent) and again when a block takes the transaction from the pool, against the block being
 * built; a transaction that fails then leaves the pool.
 */
import type { StateManagerInterface } from "@ethereumjs/common";
import { Address } from "@ethereumjs/util";
import { bytesToHex, equalBytes, type Hex } from "../../common/mod.ts";
import { EMPTY_TRIE_ROOT } from "../../protocol/mod.ts";

/** op-geth params.TransactionConditionalMaxCost: storage lookups one conditional may ask for. */
export const TX_CONDITIONAL_MAX_COST = 1000;
/** op-geth params.TransactionConditionalRejectedErrCode. */
export const TX_CONDITIONAL_REJECTED = -32003;
/** op-geth params.TransactionConditionalCostExceededMaxErrCode. */
export const TX_CONDITIONAL_COST_EXCEEDED = -32005;

export interface KnownAccount {
  address: Uint8Array;
  /** The account's storage root must be this. */
  storageRoot?: Uint8Array;
  /** Or these slots must hold these 32-byte values. */
  slots?: [Uint8Array, Uint8Array][];
}

export interface TxConditional {
  knownAccounts: KnownAccount[];
  blockNumberMin?: bigint;
  blockNumberMax?: bigint;
  timestampMin?: bigint;
  timestampMax?: bigint;
}

/** The storage lookups the conditional asks for (op-geth TransactionConditional.Cost). */
export function conditionalCost(c: TxConditional): number {
  let cost = 0;
  for (const a of c.knownAccounts) cost += 1 + (a.storageRoot !== undefined ? 1 : a.slots?.length ?? 0);
  if (c.blockNumberMin !== undefined || c.blockNumberMax !== undefined) cost++;
  if (c.timestampMin !== undefined || c.timestampMax !== undefined) cost++;
  return cost;
}

/** Why the ranges are malformed (op-geth Validate), or undefined. */
export function conditionalRangeError(c: TxConditional): string | undefined {
  if (
    c.blockNumberMin !== undefined && c.blockNumberMax !== undefined && c.blockNumberMin > c.blockNumberMax
  ) {
    return "block number minimum constraint must be less than the maximum";
  }
  if (c.timestampMin !== undefined && c.timestampMax !== undefined && c.timestampMin > c.timestampMax) {
    return "timestamp minimum constraint must be less than the maximum";
  }
  return undefined;
}

/** Which header constraint a block of `number` at `timestamp` fails, or undefined. */
export function headerConditionalError(
  c: TxConditional,
  header: { number: bigint; timestamp: bigint },
): string | undefined {
  if (c.blockNumberMin !== undefined && c.blockNumberMin > header.number) {
    return "failed block number minimum constraint";
  }
  if (c.blockNumberMax !== undefined && c.blockNumberMax < header.number) {
    return "failed block number maximum constraint";
  }
  if (c.timestampMin !== undefined && c.timestampMin > header.timestamp) {
    return "failed timestamp minimum constraint";
  }
  if (c.timestampMax !== undefined && c.timestampMax < header.timestamp) {
    return "failed timestamp maximum constraint";
  }
  return undefined;
}

/** Which known-account constraint `state` fails (op-geth StateDB.CheckTransactionConditional), or undefined. */
export async function stateConditionalError(
  c: TxConditional,
  state: StateManagerInterface,
): Promise<string | undefined> {
  const cost = conditionalCost(c);
  if (cost > TX_CONDITIONAL_MAX_COST) {
    return `conditional cost, ${cost}, exceeded max: ${TX_CONDITIONAL_MAX_COST}`;
  }
  for (const known of c.knownAccounts) {
    const address = new Address(known.address);
    if (known.storageRoot !== undefined) {
      const root = (await state.getAccount(address))?.storageRoot ?? EMPTY_TRIE_ROOT;
      if (!equalBytes(root, known.storageRoot)) {
        return `failed account storage root constraint. Got ${bytesToHex(root)}, Expected ${
          bytesToHex(known.storageRoot)
        }`;
      }
    }
    for (const [key, want] of known.slots ?? []) {
      const value = await state.getStorage(address, key);
      const got = new Uint8Array(32);
      got.set(value, 32 - value.length);
      if (!equalBytes(got, want)) {
        return `failed account storage slot key ${bytesToHex(key)} constraint. Got ${
          bytesToHex(got)
        }, Expected ${bytesToHex(want)}`;
      }
    }
  }
  return undefined;
}

/** How many conditionals of transactions that left the pool are kept for a reorg to bring them back. */
export const LEFT_CONDITIONALS_KEPT = 4096;

/**
 * The conditionals of the pool's conditional transactions, by hash (lowercase hex). Those of transactions
 * that left the pool (included, replaced, evicted) are kept a while: a reorg that puts an included one back
 * in the pool puts its conditional back too (op-geth keeps it on the transaction).
 */
export class TxConditionals {
  readonly #map = new Map<Hex, TxConditional>();
  /** Conditionals of transactions no longer in the pool, oldest first. */
  readonly #left = new Map<Hex, TxConditional>();
  readonly #pool: { has(hash: Hex): boolean; remove(hash: Hex): boolean };

  constructor(pool: { has(hash: Hex): boolean; remove(hash: Hex): boolean }) {
    this.#pool = pool;
  }

  /** Conditional transactions in the pool. */
  get size(): number {
    return this.#map.size;
  }

  set(hash: Hex, c: TxConditional): void {
    this.#left.delete(hash);
    this.#map.set(hash, c);
  }

  get(hash: Hex): TxConditional | undefined {
    return this.#map.get(hash);
  }

  delete(hash: Hex): void {
    this.#map.delete(hash);
  }

  /** The transaction failed its conditional in a block being built: it leaves the pool, for good. */
  reject(hash: Hex): void {
    this.#map.delete(hash);
    this.#pool.remove(hash);
  }

  /**
   * Follows the pool: the conditionals of transactions that left it move aside (the oldest beyond
   * LEFT_CONDITIONALS_KEPT forgotten), those of transactions back in it (a reorg) return.
   */
  prune(): void {
    for (const [hash, c] of this.#left) {
      if (!this.#pool.has(hash)) continue;
      this.#left.delete(hash);
      this.#map.set(hash, c);
    }
    for (const [hash, c] of this.#map) {
      if (this.#pool.has(hash)) continue;
      this.#map.delete(hash);
      this.#left.set(hash, c);
    }
    for (const hash of this.#left.keys()) {
      if (this.#left.size <= LEFT_CONDITIONALS_KEPT) break;
      this.#left.delete(hash);
    }
  }
}
