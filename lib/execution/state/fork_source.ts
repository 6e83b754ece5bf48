/**
 * Fork mode's remote state (`keel execution --dev --dev.fork-url`, anvil's `--fork-url`): the accounts,
 * code and storage of another node at one block, read over JSON-RPC when the local state has never held
 * them (state_manager.ts), each read once (the remote's state at a past block does not change).
 *
 * The local chain holds only what was read or written since the fork: an account or slot not in the
 * local tries is the remote's. What the local chain deletes must then stay deleted, so the flush writes
 * a tombstone instead of deleting when the remote has the account or a non-zero slot: an empty account
 * (which EIP-161 never leaves in a state) and a slot holding the RLP of zero. The local state roots are
 * therefore roots of the local tries, not of the remote's state (as anvil's in fork mode).
 */
import { Account } from "@ethereumjs/util";
import { bytesToHex, bytesToUnprefixedHex } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import { keccak256 } from "../../common/hash.ts";
import type { JsonRpcClient } from "../../common/json_rpc_client.ts";
import type { KvStore } from "../../db/kv_store.ts";
import { hexToBytes } from "../../common/bytes.ts";

/** An account of the remote state (one that exists: EIP-161's non-empty). */
export interface RemoteAccount {
  nonce: bigint;
  balance: bigint;
  code: Uint8Array;
  codeHash: Uint8Array;
}

/** The reads fork mode makes of the remote (ForkSource; tests give their own). */
export interface ForkRemote {
  /** The account at the fork block, or null when it does not exist there. */
  account(address: Uint8Array): Promise<RemoteAccount | null>;
  /** The 32-byte value of storage slot `key` of `address` at the fork block. */
  storage(address: Uint8Array, key: Uint8Array): Promise<Uint8Array>;
}

const ATTEMPTS = 3;
/** Milliseconds before the first retry of a failed remote read; the next waits twice as long, and so on. */
export const FORK_RETRY_BACKOFF_MS = 200;

/** The remote node's state at `blockNumber`, through `client`, each account and slot read once. */
export class ForkSource implements ForkRemote {
  /** The remote's client (anvil_setRpcUrl replaces it: the same chain through another endpoint). */
  client: JsonRpcClient;
  readonly blockNumber: bigint;
  readonly #tag: string;
  readonly #accounts = new Map<string, Promise<RemoteAccount | null>>();
  readonly #slots = new Map<string, Promise<Uint8Array>>();
  /** Remote reads made (not counting those answered from memory). */
  reads = 0;

  constructor(client: JsonRpcClient, blockNumber: bigint) {
    this.client = client;
    this.blockNumber = blockNumber;
    this.#tag = `0x${blockNumber.toString(16)}`;
  }

  account(address: Uint8Array): Promise<RemoteAccount | null> {
    const key = bytesToUnprefixedHex(address);
    return this.#once(this.#accounts, key, async () => {
      const hex = bytesToHex(address);
      const [balance, nonce, code] = await this.#call(`account ${hex}`, (c) =>
        c.batch<string>([
          { method: "eth_getBalance", params: [hex, this.#tag] },
          { method: "eth_getTransactionCount", params: [hex, this.#tag] },
          { method: "eth_getCode", params: [hex, this.#tag] },
        ]));
      const bytes = hexToBytes(code);
      const account = {
        nonce: BigInt(nonce),
        balance: BigInt(balance),
        code: bytes,
        codeHash: keccak256(bytes),
      };
      return account.nonce === 0n && account.balance === 0n && bytes.length === 0 ? null : account;
    });
  }

  storage(address: Uint8Array, key: Uint8Array): Promise<Uint8Array> {
    const id = `${bytesToUnprefixedHex(address)}:${bytesToUnprefixedHex(key)}`;
    return this.#once(this.#slots, id, async () => {
      const value = await this.#call(
        `slot ${bytesToHex(key)} of ${bytesToHex(address)}`,
        (c) => c.call<string>("eth_getStorageAt", [bytesToHex(address), bytesToHex(key), this.#tag]),
      );
      const bytes = hexToBytes(value);
      if (bytes.length > 32) {
        throw new BaseError("FORK_REMOTE", `The fork's remote answered a slot of ${bytes.length} bytes`);
      }
      const out = new Uint8Array(32);
      out.set(bytes, 32 - bytes.length);
      return out;
    });
  }

  /** A read once: concurrent readers share it; a failure is not kept (the next read asks again). */
  #once<T>(map: Map<string, Promise<T>>, key: string, read: () => Promise<T>): Promise<T> {
    let p = map.get(key);
    if (p === undefined) {
      this.reads++;
      p = read();
      map.set(key, p);
      p.catch(() => map.delete(key));
    }
    return p;
  }

  /** One remote call, tried up to ATTEMPTS times (anvil's --retries) on a transport failure. */
  async #call<T>(what: string, fn: (c: JsonRpcClient) => Promise<T>): Promise<T> {
    for (let attempt = 1;; attempt++) {
      try {
        return await fn(this.client);
      } catch (e) {
        const transport = e instanceof BaseError && e.code === "RPC_TRANSPORT";
        if (!transport || attempt >= ATTEMPTS) {
          throw new BaseError(
            "FORK_REMOTE",
            `Cannot read ${what} at block ${this.blockNumber} from the fork's remote: ${
              redactUrl((e as Error).message, this.client.url)
            }`,
          );
        }
        await new Promise((r) => setTimeout(r, FORK_RETRY_BACKOFF_MS * 2 ** (attempt - 1)));
      }
    }
  }
}

/**
 * `message` with the remote's URL replaced by its host: fork URLs often carry an API key (in the path,
 * the query or the user info), which must not reach logs or RPC answers.
 */
export function redactUrl(message: string, url: string): string {
  let host = "the remote";
  try {
    host = new URL(url).host;
  } catch {
    // not a URL: named as "the remote"
  }
  return message.replaceAll(url, host);
}

/** An empty account: fork mode's tombstone of an account the local chain deleted (EIP-161 leaves none). */
export function isTombstone(account: Account): boolean {
  return account.isEmpty();
}

export const ACCOUNT_TOMBSTONE: Uint8Array = new Account().serialize();

const forks = new WeakMap<KvStore, ForkRemote>();

/** Makes every state manager over `store` (createStateManager) read what it lacks from `remote`. */
export function attachFork(store: KvStore, remote: ForkRemote): void {
  forks.set(store, remote);
}

/** The remote the state of `store` is forked from, if any. */
export function forkOf(store: KvStore): ForkRemote | undefined {
  return forks.get(store);
}
