/**
 * Unsafe blocks waiting for their parent (op-node's unsafe payload queue, op-node/rollup/engine
 * PayloadsQueue; derivation.md "Engine API usage", rollup-node-p2p.md "Block processing"): a gossiped or
 * posted block above the unsafe head's successor is kept, lowest number first, until the blocks between
 * arrive (gossip out of order, req-resp, admin_postUnsafePayload, derivation); then the run is inserted.
 *
 * drain() walks the queue from its lowest block: one at or below the unsafe head is dropped (the first
 * block at a height wins, rollup-node-p2p.md "Branch selection"); one at the head's successor is
 * inserted when its parent is the head, else dropped; one further up waits. Bounded by memory as
 * op-node's (its size estimate, 500 MiB): past the bound the lowest blocks go first, as op-node's (they
 * are the likeliest to conflict or to be derived from L1 soon; the higher ones can all be inserted once
 * the chain reaches them).
 */
import { bytesToHex, equalBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import type { GossipBlock } from "../../protocol/gossip_block.ts";
import type { L2BlockRef } from "../../protocol/block_ref.ts";
import type { EngineApi } from "../../protocol/engine.ts";
import type { RollupConfig } from "../../protocol/rollup_config.ts";
import type { L2Chain } from "../driver/mod.ts";
import { insertUnsafeBlock, type UnsafeInsertResult } from "./unsafe_blocks.ts";

/** op-node's MaxUnsafePayloadsMemory. */
export const MAX_UNSAFE_PAYLOADS_BYTES = 500 * 1024 * 1024;
/** op-node's payloadMemFixedCost and payloadTxMemOverhead. */
const FIXED_COST = 800;
const TX_OVERHEAD = 24;

/** op-node's estimate of what a payload holds in memory. */
export function payloadMemSize(block: GossipBlock): number {
  let size = FIXED_COST;
  for (const tx of block.payload.transactions) size += TX_OVERHEAD + tx.length;
  return size;
}

export interface PayloadQueueDeps {
  /** The unsafe head's number and hash (undefined while it cannot be read: the queue waits). */
  head(): Promise<{ number: bigint; hash: Uint8Array } | undefined>;
  /** Inserts a block that extends the unsafe head (insertUnsafeBlock). */
  insert(block: GossipBlock): Promise<UnsafeInsertResult>;
  /** Hears each block pushed (op-node records received unsafe payloads there). */
  onPush?(block: GossipBlock): void;
  /** Hears the queue after each change: its size, bytes and lowest block (op-node's buffer metrics). */
  onChange?(queue: UnsafePayloadQueue): void;
}

export interface DrainResult {
  /** Blocks inserted, in order. */
  inserted: GossipBlock[];
  /** Blocks dropped: at or below the head, not building on it, or refused by the engine. */
  dropped: { block: GossipBlock; why: string }[];
}

export class UnsafePayloadQueue {
  readonly maxBytes: number;
  readonly #deps: PayloadQueueDeps;
  /** By number, then arrival. */
  #blocks: GossipBlock[] = [];
  #hashes = new Set<string>();
  #bytes = 0;
  #serial: Promise<unknown> = Promise.resolve();

  constructor(deps: PayloadQueueDeps, maxBytes = MAX_UNSAFE_PAYLOADS_BYTES) {
    this.#deps = deps;
    this.maxBytes = maxBytes;
  }

  get size(): number {
    return this.#blocks.length;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** The lowest block number waiting, if any. */
  get lowest(): bigint | undefined {
    return this.#blocks[0]?.payload.blockNumber;
  }

  /** The lowest block waiting, if any. */
  peek(): GossipBlock | undefined {
    return this.#blocks[0];
  }

  /** True when a block with this hash waits. */
  has(hash: Uint8Array): boolean {
    return this.#hashes.has(bytesToHex(hash));
  }

  /** Adds a block; false when one with its hash already waits. Throws when it alone is over the bound. */
  push(block: GossipBlock): boolean {
    const key = bytesToHex(block.payload.blockHash);
    if (this.#hashes.has(key)) return false;
    const size = payloadMemSize(block);
    if (size > this.maxBytes) {
      throw new BaseError(
        "UNSAFE_PAYLOAD_TOO_LARGE",
        `Cannot queue block ${block.payload.blockNumber}: its size ${size} is over the queue's ${this.maxBytes} bytes`,
      );
    }
    const n = block.payload.blockNumber;
    let i = this.#blocks.length;
    while (i > 0 && this.#blocks[i - 1].payload.blockNumber > n) i--;
    this.#blocks.splice(i, 0, block);
    this.#hashes.add(key);
    this.#bytes += size;
    while (this.#bytes > this.maxBytes) this.#remove(0);
    this.#deps.onPush?.(block);
    this.#deps.onChange?.(this);
    return true;
  }

  /** Inserts what now extends the unsafe head; one drain at a time. */
  drain(): Promise<DrainResult> {
    const run = this.#serial.then(() => this.#drain());
    this.#serial = run.catch(() => {});
    return run;
  }

  async #drain(): Promise<DrainResult> {
    const out: DrainResult = { inserted: [], dropped: [] };
    while (this.#blocks.length > 0) {
      const head = await this.#deps.head();
      if (head === undefined) break;
      const block = this.#blocks[0];
      const n = block.payload.blockNumber;
      if (n > head.number + 1n) break;
      this.#remove(0);
      if (n <= head.number) {
        out.dropped.push({ block, why: "at or below the unsafe head" });
        continue;
      }
      if (!equalBytes(block.payload.parentHash, head.hash)) {
        out.dropped.push({ block, why: "does not build on the unsafe head" });
        continue;
      }
      const result = await this.#deps.insert(block);
      if (result === "inserted" || result === "known") out.inserted.push(block);
      else out.dropped.push({ block, why: result === "invalid" ? "refused by the engine" : result });
    }
    return out;
  }

  #remove(i: number): void {
    const [block] = this.#blocks.splice(i, 1);
    this.#hashes.delete(bytesToHex(block.payload.blockHash));
    this.#bytes -= payloadMemSize(block);
    this.#deps.onChange?.(this);
  }
}

/** The queue of a node: the head read from the engine's chain, blocks inserted as gossiped ones are. */
export function unsafePayloadQueue(
  cfg: RollupConfig,
  engine: EngineApi,
  l2: L2Chain,
  heads: () => { safe: L2BlockRef; finalized: L2BlockRef },
  observe: Pick<PayloadQueueDeps, "onPush" | "onChange"> = {},
): UnsafePayloadQueue {
  return new UnsafePayloadQueue({
    ...observe,
    head: async () => {
      const number = await l2.headNumber();
      const head = await l2.payloadByNumber(number);
      return head === undefined ? undefined : { number, hash: head.blockHash };
    },
    insert: (block) => insertUnsafeBlock(cfg, engine, l2, heads, block),
  });
}
