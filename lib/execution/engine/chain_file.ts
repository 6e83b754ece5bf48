/**
 * Chain files as `geth export` writes and `geth import` reads them: the canonical blocks' consensus RLP
 * one after another, gzip-compressed when the file name ends in `.gz` (`keel execution export` and
 * `keel execution import`).
 *
 * Import validates every block as newPayload does (ExecutionEngine.importPayload: header, state root,
 * receipts, gas) and makes the last one imported the head; blocks the database has already are skipped
 * (the head stays), and the first invalid block stops the import with the blocks before it kept.
 */
import { BaseError } from "../../common/errors.ts";
import { bytesToHex, equalBytes } from "../../common/bytes.ts";
import { hashHeader } from "../../protocol/mod.ts";
import { decodeBlock, encodeBlock } from "../chain/mod.ts";
import type { ExecutionEngine } from "./execution_engine.ts";

/** Blocks imported between two head updates. */
const HEAD_EVERY = 256;

const compressed = (path: string) => path.endsWith(".gz");

/** A (de)compression stream typed as the byte transform it is. */
const gzip = (t: CompressionStream | DecompressionStream) =>
  t as unknown as TransformStream<Uint8Array, Uint8Array>;

/**
 * Writes canonical blocks `first`..`last` (default: genesis to the head) to `path`; returns how many.
 * Throws CHAIN_EXPORT_RANGE for a range outside the chain.
 */
export async function exportChain(
  engine: ExecutionEngine,
  path: string,
  first = 0n,
  last?: bigint,
): Promise<number> {
  const head = engine.head().header.number;
  const end = last ?? head;
  if (first > end || end > head) {
    throw new BaseError(
      "CHAIN_EXPORT_RANGE",
      `Cannot export blocks ${first} to ${end}: the chain has blocks 0 to ${head}`,
    );
  }
  let n = first;
  const blocks = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (n > end) return controller.close();
      const hash = engine.chain.getCanonicalHash(n);
      const block = hash === undefined ? undefined : engine.chain.getBlockByHash(hash);
      if (block === undefined) {
        return controller.error(
          new BaseError("CHAIN_EXPORT_MISSING", `Cannot export block ${n}: not in the database`),
        );
      }
      controller.enqueue(encodeBlock(block));
      n++;
    },
  });
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  const out = compressed(path) ? blocks.pipeThrough(gzip(new CompressionStream("gzip"))) : blocks;
  await out.pipeTo(file.writable);
  return Number(end - first + 1n);
}

/** Size of the RLP item at the start of `b`, or undefined when `b` does not hold its prefix yet. */
export function rlpItemLength(b: Uint8Array): number | undefined {
  if (b.length === 0) return undefined;
  const p = b[0];
  if (p < 0x80) return 1;
  if (p <= 0xb7) return 1 + p - 0x80;
  if (p >= 0xc0 && p <= 0xf7) return 1 + p - 0xc0;
  const ll = p <= 0xbf ? p - 0xb7 : p - 0xf7;
  if (b.length < 1 + ll) return undefined;
  let len = 0;
  for (let i = 1; i <= ll; i++) len = len * 256 + b[i];
  return 1 + ll + len;
}

/** The RLP items of a byte stream, one at a time. */
async function* items(
  stream: ReadableStream<Uint8Array>,
): AsyncGenerator<{ item: Uint8Array; offset: number }> {
  let buf = new Uint8Array(0);
  let offset = 0;
  for await (const chunk of stream) {
    const next = new Uint8Array(buf.length + chunk.length);
    next.set(buf);
    next.set(chunk, buf.length);
    buf = next;
    for (;;) {
      const len = rlpItemLength(buf);
      if (len === undefined || len > buf.length) break;
      yield { item: buf.subarray(0, len), offset };
      offset += len;
      buf = buf.subarray(len);
    }
  }
  if (buf.length > 0) {
    throw new BaseError(
      "CHAIN_IMPORT_TRUNCATED",
      `Cannot import: the file ends inside the block at byte ${offset}`,
    );
  }
}

export interface ImportResult {
  imported: number;
  /** Blocks the database had already. */
  skipped: number;
  /** The head after the import. */
  head: bigint;
}

/** Imports the blocks of `path` (see the file comment); `progress` hears each block imported. */
export async function importChain(
  engine: ExecutionEngine,
  path: string,
  progress?: (number: bigint) => void,
): Promise<ImportResult> {
  const file = await Deno.open(path, { read: true });
  const stream = compressed(path)
    ? file.readable.pipeThrough(gzip(new DecompressionStream("gzip")))
    : file.readable;
  let imported = 0;
  let skipped = 0;
  /**
   * The last block imported: the head once the import ends, however it ends. Known blocks leave the head
   * where it is (geth skips a chain it has), so re-importing old blocks does not rewind it.
   */
  let last: Uint8Array | undefined;
  let pending = 0;
  const advance = async () => {
    if (last !== undefined && !equalBytes(engine.head().hash, last)) await engine.forkchoiceUpdate(last);
    pending = 0;
  };
  try {
    for await (const { item, offset } of items(stream)) {
      if (item[0] < 0xc0) {
        throw new BaseError(
          "CHAIN_IMPORT_NOT_A_BLOCK",
          `Cannot import: the item at byte ${offset} is not a block`,
        );
      }
      const block = decodeBlock(item);
      const hash = hashHeader(block.header);
      const n = block.header.number;
      if (engine.chain.getHeaderByHash(hash) !== undefined) {
        skipped++;
        continue;
      }
      try {
        await engine.importPayload(block, hash);
      } catch (e) {
        const message = `Cannot import block ${n} (${bytesToHex(hash)}): ${(e as Error).message}`;
        throw new BaseError("CHAIN_IMPORT_INVALID", message, { cause: e });
      }
      imported++;
      pending++;
      last = hash;
      progress?.(n);
      if (pending >= HEAD_EVERY) await advance();
    }
  } finally {
    await advance();
  }
  return { imported, skipped, head: engine.head().header.number };
}
