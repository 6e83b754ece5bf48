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
import { isTimeout, TIMEOUT_MESSAGE } from "./hooks.ts";
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
  try {
    if (name === undefined || name === "") {
      const limit = cfg?.limit === undefined ? undefined : Number(cfg.limit);
      const logger = new StructLogger({
        disableStorage: cfg?.disableStorage,
        disableStack: cfg?.disableStack,
        enableMemory: cfg?.enableMemory,
        enableReturnData: cfg?.enableReturnData,
        limit,
      });
      await run({ tracer: logger, timeoutMs });
      return logger.result();
    }
    if (name === "callTracer") {
      const tracer = new CallTracer(
        tracerConfig(cfg?.tracerConfig, { onlyTopCall: "boolean", withLog: "boolean" }),
      );
      await run({ tracer, timeoutMs });
      return tracer.result();
    }
    if (name === "flatCallTracer" || name === "parityTracer") {
      const flat = name === "parityTracer"
        ? { convertParityErrors: true, includePrecompiles: true }
        : tracerConfig(cfg?.tracerConfig, { convertParityErrors: "boolean", includePrecompiles: "boolean" });
      const tracer = new CallTracer();
      await run({ tracer, timeoutMs });
      return flatCallResult(tracer.root(), flat, place);
    }
    if (name === "4byteTracer") {
      const tracer = new CallTracer();
      await run({ tracer, timeoutMs });
      return fourByteResult(tracer.root());
    }
    if (name === "noopTracer") {
      await run({ timeoutMs });
      return {};
    }
    if (name === "prestateTracer") {
      const pc = tracerConfig(cfg?.tracerConfig, {
        diffMode: "boolean",
        disableCode: "boolean",
        disableStorage: "boolean",
      });
      const tracer = new PrestateTracer();
      const r = await run({ tracer, recordState: true, timeoutMs });
      const state = r.state!;
      const omit = { disableCode: pc.disableCode, disableStorage: pc.disableStorage };
      return pc.diffMode
        ? prestateDiff(state.pre, state.post, tracer.created, tracer.deleted, omit)
        : prestateResult(state.pre, tracer.created, omit);
    }
  } catch (e) {
    if (isTimeout(e)) throw RpcError.server(TIMEOUT_MESSAGE);
    throw e;
  }
  throw RpcError.server(
    `tracer ${
      JSON.stringify(name)
    } not found (supported: callTracer, flatCallTracer, parityTracer, prestateTracer, 4byteTracer, noopTracer, or none for the struct logger)`,
  );
}
