/**
 * Price-and-nonce ordering of executable transactions for a block builder, as go-ethereum's
 * `miner/ordering.go`: a max-heap holds each account's next transaction by effective tip at the
 * block's base fee (ties: earlier arrival first); within an account, nonce order is kept.
 */
import type { TypedTransaction } from "@ethereumjs/tx";

/** One candidate: the transaction, its tip at the base fee, and its arrival sequence. */
export interface OrderedCandidate {
  tx: TypedTransaction;
  tip: bigint;
  seq: number;
}

/**
 * The builder's view of the pending transactions. `peek()` is the best transaction now;
 * `shift()` after including it moves on to that account's next nonce; `pop()` after it failed
 * or did not fit drops the rest of that account. Iterating with for-of assumes each yielded
 * transaction was included (peek, then shift).
 */
export class TransactionsByPriceAndNonce implements Iterable<TypedTransaction> {
  readonly #heads: { list: OrderedCandidate[]; index: number }[] = [];

  /** `accounts`: per sender, its executable transactions in nonce order (already priced). */
  constructor(accounts: OrderedCandidate[][]) {
    for (const list of accounts) {
      if (list.length > 0) this.#heads.push({ list, index: 0 });
    }
    for (let i = (this.#heads.length >> 1) - 1; i >= 0; i--) this.#down(i);
  }

  /** Number of accounts with a transaction still to offer. */
  get size(): number {
    return this.#heads.length;
  }

  /** The best transaction to try next, or undefined when none is left. */
  peek(): TypedTransaction | undefined {
    const head = this.#heads[0];
    return head === undefined ? undefined : head.list[head.index].tx;
  }

  /** The effective tip of {@link peek}'s transaction at the base fee. */
  peekTip(): bigint | undefined {
    const head = this.#heads[0];
    return head === undefined ? undefined : head.list[head.index].tip;
  }

  /** The current best was included: replace it with the same account's next transaction. */
  shift(): void {
    const head = this.#heads[0];
    if (head === undefined) return;
    head.index++;
    if (head.index < head.list.length) this.#down(0);
    else this.pop();
  }

  /** The current best failed or did not fit: drop it and the rest of its account. */
  pop(): void {
    const heads = this.#heads;
    if (heads.length === 0) return;
    const last = heads.pop()!;
    if (heads.length > 0) {
      heads[0] = last;
      this.#down(0);
    }
  }

  *[Symbol.iterator](): Iterator<TypedTransaction> {
    for (let tx = this.peek(); tx !== undefined; tx = this.peek()) {
      yield tx;
      this.shift();
    }
  }

  #better(a: { list: OrderedCandidate[]; index: number }, b: { list: OrderedCandidate[]; index: number }) {
    const x = a.list[a.index];
    const y = b.list[b.index];
    if (x.tip !== y.tip) return x.tip > y.tip;
    return x.seq < y.seq;
  }

  #down(i: number): void {
    const heads = this.#heads;
    const n = heads.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) return;
      const r = l + 1;
      const best = r < n && this.#better(heads[r], heads[l]) ? r : l;
      if (!this.#better(heads[best], heads[i])) return;
      [heads[i], heads[best]] = [heads[best], heads[i]];
      i = best;
    }
  }
}
