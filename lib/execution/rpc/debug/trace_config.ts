/**
 * The TraceConfig of debug_trace* (geth eth/tracers/api.go TraceConfig / TraceCallConfig): the
 * tracer name and its config, the Go duration `timeout`, and the struct logger switches; and the
 * runner that turns one transaction replay into the chosen tracer's result.
 */
import { BaseError, parseDuration } from "../../../common/mod.ts";
import { RpcError, s } from "../../../rpc/mod.ts";
import { DEFAULT_TRACE_TIMEOUT_MS } from "./backend.ts";
import { CallTracer, fourByteResult } from "./call_tracer.ts";
import { flatCallResult, type TracePlacement } from "./flat_call_tracer.ts";
import { isTimeout, MultiTracer, TIMEOUT_MESSAGE, type Tracer } from "./hooks.ts";
import { prestateDiff, prestateResult, PrestateTracer } from "./prestate_tracer.ts";
import type { RunOptions, TracedRun } from "./replay.ts";
import { StructLogger } from "./struct_logger.ts";
import { blockOverridesSchema } from "../call_args.ts";
import { stateOverrideSchema } from "./call_object.ts";

const optBool = () => s.optional(s.bool());

/** geth TraceConfig fields. */
const traceConfigFields = {
  tracer: s.optional(s.string()),
  tracerConfig: s.optional(s.unknown()),
  timeout: s.optional(s.string()),
  disableStorage: optBool(),
  disableStack: optBool(),
  enableMemory: optBool(),
  enableReturnData: optBool(),
  limit: s.optional(s.hexOrDecimal()),
  reexec: s.optional(s.hexOrDecimal()),
};

/** The trace config object; unknown fields are ignored as geth does. */
export const traceConfigSchema = s.object(traceConfigFields);

export type TraceConfig = NonNullable<ReturnType<typeof traceConfigSchema.parse>>;

/** geth TraceCallConfig: a TraceConfig plus state overrides and block overrides (eth_call's). */
export const traceCallConfigSchema = s.object({
  ...traceConfigFields,
  stateOverrides: s.optional(stateOverrideSchema),
  blockOverrides: s.optional(blockOverridesSchema),
});

/** Go's time.ParseDuration, in milliseconds ("5s", "1m30s", "1.5s", "300ms"), with geth's error text. */
export function parseGoDuration(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined) {
    throw new BaseError("TRACE_BAD_DURATION", `time: invalid duration ${JSON.stringify(text)}`);
  }
  return ms;
}

/** The tracerConfig of the native tracers, checked. */
function tracerConfig<T extends Record<string, "boolean">>(
  raw: unknown,
  fields: T,
): { [K in keyof T]?: boolean } {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== "object" || Array.isArray(raw)) {
    throw RpcError.server("json: cannot unmarshal tracerConfig: want an object");
  }
  const out: Record<string, boolean> = {};
  for (const key of Object.keys(fields)) {
    const v = (raw as Record<string, unknown>)[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== "boolean") {
      throw RpcError.server(`json: cannot unmarshal ${typeof v} into Go struct field .${key} of type bool`);
    }
    out[key] = v;
  }
  return out as { [K in keyof T]?: boolean };
}

/** The timeout of a trace in ms (geth: default 5 s; `timeout` as a Go duration). */
export function traceTimeout(cfg: TraceConfig | undefined): number {
  if (cfg?.timeout === undefined) return DEFAULT_TRACE_TIMEOUT_MS;
  try {
    const ms = parseGoDuration(cfg.timeout);
    return ms <= 0 ? 0 : Math.max(1, Math.round(ms));
  } catch (e) {
    throw RpcError.server((e as Error).message);
  }
}

/** A tracer set up for one run: what the run must record, and how its result is read afterwards. */
interface PreparedTracer {
  tracer?: Tracer;
  recordState?: boolean;
  result(run: TracedRun): unknown;
}

/** The tracers muxTracer can combine: every named one (geth: the tracer directory's native tracers). */
export const NAMED_TRACERS = [
  "callTracer",
  "flatCallTracer",
  "parityTracer",
  "prestateTracer",
  "4byteTracer",
  "noopTracer",
  "muxTracer",
] as const;

function notFound(name: string): RpcError {
  return RpcError.server(
    `tracer ${JSON.stringify(name)} not found (supported: ${
      NAMED_TRACERS.join(", ")
    }, or none for the struct logger)`,
  );
}

/** The named tracer `name` with its tracerConfig `raw`. */
function prepareNamed(name: string, raw: unknown, place: TracePlacement): PreparedTracer {
  if (name === "callTracer") {
    const tracer = new CallTracer(tracerConfig(raw, { onlyTopCall: "boolean", withLog: "boolean" }));
    return { tracer, result: () => tracer.result() };
  }
  if (name === "flatCallTracer" || name === "parityTracer") {
    const flat = name === "parityTracer"
      ? { convertParityErrors: true, includePrecompiles: true }
      : tracerConfig(raw, { convertParityErrors: "boolean", includePrecompiles: "boolean" });
    const tracer = new CallTracer();
    return { tracer, result: () => flatCallResult(tracer.root(), flat, place) };
  }
  if (name === "4byteTracer") {
    const tracer = new CallTracer();
    return { tracer, result: () => fourByteResult(tracer.root()) };
  }
  if (name === "noopTracer") return { result: () => ({}) };
  if (name === "prestateTracer") {
    const pc = tracerConfig(raw, { diffMode: "boolean", disableCode: "boolean", disableStorage: "boolean" });
    const tracer = new PrestateTracer();
    return {
      tracer,
      recordState: true,
      result: (r) => {
        const state = r.state!;
        const omit = { disableCode: pc.disableCode, disableStorage: pc.disableStorage };
        return pc.diffMode
          ? prestateDiff(state.pre, state.post, tracer.created, tracer.deleted, omit)
          : prestateResult(state.pre, tracer.created, omit);
      },
    };
  }
  if (name === "muxTracer") {
    // geth native/mux.go: tracerConfig maps tracer names to their configs; the result maps them to results.
    if (raw === undefined || raw === null || typeof raw !== "object" || Array.isArray(raw)) {
      throw RpcError.server(
        "json: cannot unmarshal muxTracer config: want an object of tracer names to configs",
      );
    }
    const parts = Object.entries(raw as Record<string, unknown>).map(([sub, subRaw]) => {
      if (sub === "muxTracer" || !(NAMED_TRACERS as readonly string[]).includes(sub)) throw notFound(sub);
      return [sub, prepareNamed(sub, subRaw, place)] as const;
    });
    const tracers = parts.flatMap(([, p]) => (p.tracer === undefined ? [] : [p.tracer]));
    return {
      tracer: new MultiTracer(tracers),
      recordState: parts.some(([, p]) => p.recordState === true),
      result: (r) => Object.fromEntries(parts.map(([sub, p]) => [sub, p.result(r)])),
    };
  }
  throw notFound(name);
}

/**
 * Runs one transaction (or call) with the tracer `cfg` names and returns its result in wire form;
 * `place` is where it sits (the flat tracers print it).
 * A trace past its timeout is geth's "execution timeout".
 */
export async function runTracer(
  cfg: TraceConfig | undefined,
  run: (options: RunOptions) => Promise<TracedRun>,
  place: TracePlacement,
): Promise<unknown> {
  const timeoutMs = traceTimeout(cfg);
  const name = cfg?.tracer;
  let prepared: PreparedTracer;
  if (name === undefined || name === "") {
    const logger = new StructLogger({
      disableStorage: cfg?.disableStorage,
      disableStack: cfg?.disableStack,
      enableMemory: cfg?.enableMemory,
      enableReturnData: cfg?.enableReturnData,
      limit: cfg?.limit === undefined ? undefined : Number(cfg.limit),
    });
    prepared = { tracer: logger, result: () => logger.result() };
  } else prepared = prepareNamed(name, cfg?.tracerConfig, place);
  try {
    const r = await run({ tracer: prepared.tracer, recordState: prepared.recordState, timeoutMs });
    return prepared.result(r);
  } catch (e) {
    if (isTimeout(e)) throw RpcError.server(TIMEOUT_MESSAGE);
    throw e;
  }
}
