/**
 * The local transaction journal (geth core/txpool/legacypool journal.go, op-geth `--txpool.journal`):
 * the transactions sent through this node's RPC that are still in the pool, written to a file in the
 * data directory so that a restart puts them back.
 *
 * Format, as geth writes it (`rlp.Encode` of each transaction, one after another): a legacy transaction
 * as its RLP list, a typed one as an RLP string holding `type ‖ payload`. A new journal is written to
 * `<path>.new` and renamed over the old one, so a crash while writing leaves the previous journal.
 * Loading stops at the first item that does not decode (a torn end) and keeps what came before it.
 *
 * Blob transactions are not journaled (geth's blob pool keeps its own store), nor the dev chain's
 * impersonated ones (their signature is a placeholder: they cannot be sent again).
 */
import type { TypedTransaction } from "@ethereumjs/tx";
import type { Logger } from "@logtape/logtape";
import { rlpEncode } from "../../common/rlp.ts";
import { encodingOf, impersonatedSender } from "../evm/mod.ts";

/** A journal's transactions (canonical encodings, as eth_sendRawTransaction takes them) and where it broke. */
export interface JournalContents {
  txs: Uint8Array[];
  /** Why reading stopped before the end of the file. */
  error?: string;
}

/** [start of the payload, end of the item] of the RLP item at `at`; throws when it does not fit. */
function itemSpan(buf: Uint8Array, at: number): { payload: number; end: number; list: boolean } {
  const b = buf[at];
  const need = (n: number) => {
    if (at + n > buf.length) throw new Error(`item at byte ${at} runs past the end of the file`);
  };
  const long = (lenOfLen: number) => {
    need(1 + lenOfLen);
    if (buf[at + 1] === 0) throw new Error(`item at byte ${at} has a length with a leading zero`);
    let n = 0;
    for (let i = 0; i < lenOfLen; i++) n = n * 256 + buf[at + 1 + i];
    if (n < 56) throw new Error(`item at byte ${at} has a long length below 56`);
    need(1 + lenOfLen + n);
    return { payload: at + 1 + lenOfLen, end: at + 1 + lenOfLen + n };
  };
  if (b < 0x80) return { payload: at, end: at + 1, list: false };
  if (b <= 0xb7) {
    need(1 + b - 0x80);
    return { payload: at + 1, end: at + 1 + b - 0x80, list: false };
  }
  if (b <= 0xbf) return { ...long(b - 0xb7), list: false };
  if (b <= 0xf7) {
    need(1 + b - 0xc0);
    return { payload: at + 1, end: at + 1 + b - 0xc0, list: true };
  }
  return { ...long(b - 0xf7), list: true };
}

/** The transactions of a journal file's bytes. */
export function decodeJournal(bytes: Uint8Array): JournalContents {
  const txs: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.length) {
    let span;
    try {
      span = itemSpan(bytes, at);
    } catch (e) {
      return { txs, error: (e as Error).message };
    }
    if (span.list) txs.push(bytes.slice(at, span.end));
    else {
      const inner = bytes.subarray(span.payload, span.end);
      if (inner.length === 0 || inner[0] >= 0x80) {
        return { txs, error: `item at byte ${at} is neither a legacy nor a typed transaction` };
      }
      txs.push(inner.slice());
    }
    at = span.end;
  }
  return { txs };
}

/** The journal bytes of canonical transaction encodings. */
export function encodeJournal(txs: readonly Uint8Array[]): Uint8Array {
  const items = txs.map((raw) => (raw.length > 0 && raw[0] >= 0xc0 ? raw : rlpEncode(raw)));
  const out = new Uint8Array(items.reduce((n, i) => n + i.length, 0));
  let at = 0;
  for (const i of items) {
    out.set(i, at);
    at += i.length;
  }
  return out;
}

/** What the journal needs of the pool. */
export interface JournalPool {
  add(raw: Uint8Array, options: { local: boolean }): Promise<unknown>;
  locals(): TypedTransaction[];
}

/** The journal file of one pool: loaded at start, rewritten on a timer and at shutdown. */
export class TxJournal {
  readonly path: string;
  readonly #pool: JournalPool;
  readonly #log: Logger | undefined;

  constructor(path: string, pool: JournalPool, log?: Logger) {
    this.path = path;
    this.#pool = pool;
    this.#log = log;
  }

  /**
   * Puts the journal's transactions back into the pool as local ones (those the pool refuses now, e.g.
   * included meanwhile, are dropped), then rewrites the journal with what the pool kept.
   */
  async load(): Promise<{ loaded: number; dropped: number }> {
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(this.path);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return { loaded: 0, dropped: 0 };
      throw e;
    }
    const { txs, error } = decodeJournal(bytes);
    if (error !== undefined) {
      this.#log?.warn("The transaction journal ends in bytes that do not decode; kept what came before", {
        path: this.path,
        transactions: txs.length,
        error,
      });
    }
    let dropped = 0;
    for (const raw of txs) {
      try {
        await this.#pool.add(raw, { local: true });
      } catch {
        dropped++;
      }
    }
    const loaded = txs.length - dropped;
    this.#log?.info("Loaded local transaction journal", { path: this.path, transactions: loaded, dropped });
    await this.rotate();
    return { loaded, dropped };
  }

  /** Writes the pool's local transactions as the new journal; the number written. */
  async rotate(): Promise<number> {
    const txs = this.#pool.locals()
      .filter((tx) => tx.type !== 3 && impersonatedSender(tx) === undefined)
      .map(encodingOf);
    const next = `${this.path}.new`;
    await Deno.writeFile(next, encodeJournal(txs));
    await Deno.rename(next, this.path);
    this.#log?.debug("Regenerated local transaction journal", { path: this.path, transactions: txs.length });
    return txs.length;
  }
}
