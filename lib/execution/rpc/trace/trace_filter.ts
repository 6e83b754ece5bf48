/**
 * trace_filter: the traces of a block range whose action matches fromAddress / toAddress (for a
 * create, `to` is the created address), then `after` skipped and at most `count` returned. With
 * both address lists, mode "union" (default, as reth and erigon) takes either match and
 * "intersection" both.
 */
import { bytesToHex, type Hex } from "../../../common/mod.ts";
import { type BlockSpec, defineMethod, RpcError, s } from "../../../rpc/mod.ts";
import type { TraceBackend } from "../debug/mod.ts";
import type { LocalizedTrace } from "./parity.ts";
import { blockTraces } from "./replay_results.ts";

/** The widest block range one trace_filter replays. */
export const TRACE_FILTER_MAX_BLOCKS = 1_000n;

export const traceFilterSchema = s.object({
  fromBlock: s.optional(s.blockNumber()),
  toBlock: s.optional(s.blockNumber()),
  fromAddress: s.optional(s.array(s.address())),
  toAddress: s.optional(s.array(s.address())),
  after: s.optional(s.hexOrDecimal()),
  count: s.optional(s.hexOrDecimal()),
  mode: s.optional(s.enum(["union", "intersection"] as const)),
});

function numberOf(backend: TraceBackend, spec: BlockSpec | undefined, fallback: bigint): bigint {
  if (spec === undefined) return fallback;
  if (spec.kind === "number") return spec.number;
  if (spec.kind === "hash") {
    const n = backend.chain.getBlockNumber(spec.hash);
    if (n === undefined) throw RpcError.server(`block ${bytesToHex(spec.hash)} not found`);
    return n;
  }
  if (spec.tag === "earliest") return 0n;
  // pending = latest: op-geth's default without --rollup.computependingblock (no block built from the pool).
  const label = spec.tag === "pending" ? "latest" : spec.tag;
  const ref = backend.chain.getHead(label);
  if (ref === undefined) throw RpcError.server(`${spec.tag} block not found`);
  return ref.number;
}

function source(t: LocalizedTrace): Hex {
  return "from" in t.action ? t.action.from : t.action.address;
}

function target(t: LocalizedTrace): Hex | undefined {
  if (t.type === "suicide") return "refundAddress" in t.action ? t.action.refundAddress : undefined;
  if (t.type === "create") return t.result !== null && "address" in t.result ? t.result.address : undefined;
  return "to" in t.action ? t.action.to : undefined;
}

export function traceFilter(backend: TraceBackend) {
  return defineMethod({
    name: "trace_filter",
    params: [traceFilterSchema] as const,
    handler: async ([f]): Promise<LocalizedTrace[]> => {
      const head = backend.chain.headNumber();
      const from = numberOf(backend, f.fromBlock, 0n);
      const to = numberOf(backend, f.toBlock, head);
      if (from > to) {
        throw RpcError.invalidParams(`invalid block range: fromBlock ${from} is after toBlock ${to}`);
      }
      if (to > head) throw RpcError.server(`block #${to} not found`);
      if (to - from + 1n > TRACE_FILTER_MAX_BLOCKS) {
        throw RpcError.server(
          `block range too large: ${to - from + 1n} blocks, at most ${TRACE_FILTER_MAX_BLOCKS}`,
        );
      }
      const fromSet = new Set((f.fromAddress ?? []).map(bytesToHex));
      const toSet = new Set((f.toAddress ?? []).map(bytesToHex));
      const matches = (t: LocalizedTrace) => {
        const fm = fromSet.has(source(t));
        const tAddr = target(t);
        const tm = tAddr !== undefined && toSet.has(tAddr);
        if (fromSet.size > 0 && toSet.size > 0) return f.mode === "intersection" ? fm && tm : fm || tm;
        if (fromSet.size > 0) return fm;
        if (toSet.size > 0) return tm;
        return true;
      };
      let skip = f.after ?? 0n;
      const count = f.count;
      const out: LocalizedTrace[] = [];
      if (count === 0n) return out; // reth truncates to none, erigon exports none
      for (let n = from; n <= to; n++) {
        const hash = backend.chain.getCanonicalHash(n);
        const block = hash === undefined ? undefined : backend.chain.getBlockByHash(hash);
        if (hash === undefined || block === undefined) throw RpcError.server(`block #${n} not found`);
        for (const t of await blockTraces(backend, block, hash)) {
          if (!matches(t)) continue;
          if (skip > 0n) {
            skip--;
            continue;
          }
          out.push(t);
          if (count !== undefined && BigInt(out.length) >= count) return out;
        }
      }
      return out;
    },
  });
}
