/**
 * An account's history found without an index, by bisecting the canonical chain on a property of its
 * state that, once true, stays true: a nonce past a value (nonces only grow), code or a nonce present
 * (a contract stays). O(log n) state reads; used by eth_getTransactionBySenderAndNonce and the
 * Otterscan lookups (ots/).
 */
import { Address } from "@ethereumjs/util";
import { equalBytes } from "../../common/mod.ts";
import type { Block } from "../../protocol/block.ts";
import { type EthBackend, LATEST, resolveHeader } from "./backend.ts";
import { decodeTx, isDepositTx } from "./format.ts";

/** What the bisection tests of an account's state at a block. */
export interface AccountAt {
  nonce: bigint;
  hasCode: boolean;
}

/**
 * The first canonical block after the genesis whose state of `address` passes `test` (which must hold
 * from some block on), with its hash; undefined when the head's does not, or the genesis' already does.
 */
export async function firstBlockOf(
  backend: EthBackend,
  address: Uint8Array,
  test: (account: AccountAt) => boolean,
): Promise<{ hash: Uint8Array; block: Block } | undefined> {
  const at = async (n: bigint) => {
    const hash = backend.chain.getCanonicalHash(n);
    const header = hash === undefined ? undefined : backend.chain.getHeaderByHash(hash);
    if (header === undefined) return false;
    const sm = await backend.stateAt(header);
    const a = new Address(address);
    const account = await sm.getAccount(a);
    const code = account === undefined ? new Uint8Array() : await sm.getCode(a);
    return test({ nonce: account?.nonce ?? 0n, hasCode: code.length > 0 });
  };
  let lo = 0n;
  let hi = resolveHeader(backend, LATEST)!.header.number;
  if (!(await at(hi))) return undefined;
  while (lo < hi) {
    const mid = (lo + hi) / 2n;
    if (await at(mid)) hi = mid;
    else lo = mid + 1n;
  }
  if (lo === 0n) return undefined;
  const hash = backend.chain.getCanonicalHash(lo)!;
  return { hash, block: backend.chain.getBlockByHash(hash)! };
}

/** The mined transaction `sender` sent with `nonce` (a deposit's nonce is its receipt's), or undefined. */
export async function minedBySenderAndNonce(
  backend: EthBackend,
  sender: Uint8Array,
  nonce: bigint,
): Promise<{ blockHash: Uint8Array; index: number; txHash: Uint8Array } | undefined> {
  // The first block after which the sender's nonce is past `nonce` holds the transaction.
  const found = await firstBlockOf(backend, sender, (a) => a.nonce > nonce);
  if (found === undefined) return undefined;
  const receipts = backend.chain.getReceipts(found.hash)!;
  for (let i = 0; i < found.block.transactions.length; i++) {
    const r = receipts[i];
    if (!equalBytes(r.from, sender)) continue;
    const tx = decodeTx(found.block.transactions[i], backend.config.chainId);
    if ((isDepositTx(tx) ? r.depositNonce : tx.nonce) === nonce) {
      return { blockHash: found.hash, index: i, txHash: r.txHash };
    }
  }
  return undefined;
}
