/**
 * Profiling, op-node's `pprof.*` options (spec section 4.5, "Metrics and profiling"), with the
 * runtime's equivalents of Go's profiles:
 *
 * | pprof.type | keel                                                   | file content                |
 * |------------|--------------------------------------------------------|-----------------------------|
 * | cpu        | V8 CPU profile (node:inspector `Profiler`)              | `.cpuprofile` JSON          |
 * | heap       | V8 heap snapshot (`v8.getHeapSnapshot`)                 | `.heapsnapshot` JSON        |
 * | allocs     | V8 sampling heap profile (`HeapProfiler` sampling)      | `.heapprofile` JSON         |
 *
 * Chrome DevTools and VS Code open all three. goroutine, threadcreate, block and mutex describe
 * the Go runtime and have no V8 counterpart: they are refused at start.
 *
 * With `pprof.enabled` and no `pprof.path`, profiles are served over HTTP:
 * `GET /debug/pprof/profile?seconds=N`, `GET /debug/pprof/heap`, `GET /debug/pprof/allocs`.
 * With `pprof.path`, the profile of `pprof.type` is written to that file (a directory gets
 * `{dir}/{type}.prof`) when the service stops; the CPU profile covers start to stop, as op-node's.
 *
 * node:inspector needs unscoped `--allow-sys` (there is no narrower `sys` descriptor for it in
 * Deno 2.9.6): keel's permission set grants it.
 */
import { Session } from "node:inspector/promises";
import v8 from "node:v8";
import { join } from "node:path";
import { BaseError } from "../common/errors.ts";
import { getLogger } from "../common/logger.ts";

/** Every value of `pprof.type` the spec lists. */
export const PPROF_TYPES = ["cpu", "heap", "goroutine", "threadcreate", "block", "mutex", "allocs"] as const;
export type PprofType = typeof PPROF_TYPES[number];
/** The types keel offers. */
export const V8_PPROF_TYPES = ["cpu", "heap", "allocs"] as const;
export type V8PprofType = typeof V8_PPROF_TYPES[number];

export interface PprofOptions {
  enabled: boolean;
  addr: string;
  /** 0 picks a free port (see `port` after `start`). */
  port: number;
  /** File path, or a directory for `{dir}/{type}.prof`; empty: serve over HTTP. */
  path: string;
  /** Profile written to `path`; empty when serving. */
  type: string;
}

/** Defaults from spec section 4.5: pprof.enabled false, addr 0.0.0.0, port 6060, path and type unset. */
export const DEFAULT_PPROF_OPTIONS: PprofOptions = {
  enabled: false,
  addr: "0.0.0.0",
  port: 6060,
  path: "",
  type: "",
};

/** Longest CPU profile one HTTP request may ask for, in seconds (Go's default is 30). */
export const MAX_PROFILE_SECONDS = 600;
const DEFAULT_PROFILE_SECONDS = 30;

/** Checks `pprof.type`: "" or one of cpu, heap, allocs; the Go-only types get a clear refusal. */
export function parsePprofType(type: string): V8PprofType | "" {
  const t = type.trim().toLowerCase();
  if (t === "") return "";
  if ((V8_PPROF_TYPES as readonly string[]).includes(t)) return t as V8PprofType;
  if ((PPROF_TYPES as readonly string[]).includes(t)) {
    throw new BaseError(
      "PPROF_TYPE_UNSUPPORTED",
      `pprof.type=${t} is a Go runtime profile; keel runs on V8 and offers cpu, heap, allocs`,
      { meta: { type: t } },
    );
  }
  throw new BaseError(
    "PPROF_TYPE_INVALID",
    `Cannot parse pprof.type: ${JSON.stringify(type)} is not one of ${PPROF_TYPES.join(", ")}`,
    { meta: { type } },
  );
}

/** The file a profile goes to: `path` itself, or `{path}/{type}.prof` when `path` is a directory. */
export async function profileFilePath(path: string, type: V8PprofType): Promise<string> {
  try {
    if ((await Deno.stat(path)).isDirectory) return join(path, `${type}.prof`);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return path;
}

/** A connected inspector session with helpers for the three profiles. */
class Inspector {
  readonly #session = new Session();
  #cpuRunning = false;
  #sampling = false;

  constructor() {
    this.#session.connect();
  }

  get cpuRunning(): boolean {
    return this.#cpuRunning;
  }

  async startCpu(): Promise<void> {
    if (this.#cpuRunning) {
      throw new BaseError("PPROF_CPU_BUSY", "Cannot start a CPU profile: one is already running");
    }
    this.#cpuRunning = true;
    await this.#session.post("Profiler.enable");
    await this.#session.post("Profiler.start");
  }

  async stopCpu(): Promise<unknown> {
    try {
      const { profile } = await this.#session.post("Profiler.stop");
      return profile;
    } finally {
      this.#cpuRunning = false;
      await this.#session.post("Profiler.disable");
    }
  }

  async startSampling(): Promise<void> {
    if (this.#sampling) return;
    await this.#session.post("HeapProfiler.enable");
    await this.#session.post("HeapProfiler.startSampling");
    this.#sampling = true;
  }

  async samplingProfile(): Promise<unknown> {
    await this.startSampling();
    const { profile } = await this.#session.post("HeapProfiler.getSamplingProfile");
    return profile;
  }

  async close(): Promise<void> {
    if (this.#cpuRunning) await this.stopCpu().catch(() => undefined);
    if (this.#sampling) {
      this.#sampling = false;
      await this.#session.post("HeapProfiler.stopSampling").catch(() => undefined);
    }
    this.#session.disconnect();
  }
}

/** A V8 heap snapshot as JSON text. */
export async function takeHeapSnapshot(): Promise<string> {
  const chunks: string[] = [];
  for await (const chunk of v8.getHeapSnapshot()) chunks.push(String(chunk));
  return chunks.join("");
}

export class PprofService {
  readonly options: PprofOptions;
  readonly type: V8PprofType | "";
  #inspector: Inspector | undefined;
  #server: Deno.HttpServer<Deno.NetAddr> | undefined;
  #port: number | undefined;
  #filePath: string | undefined;
  #cpuAbort: AbortController | undefined;
  readonly #log = getLogger(["pprof"]);

  /** Validates the options: a Go-only `pprof.type`, or `pprof.path` without a type, fails here. */
  constructor(options: Partial<PprofOptions>) {
    this.options = { ...DEFAULT_PPROF_OPTIONS, ...options };
    this.type = parsePprofType(this.options.type);
    if (this.options.enabled && this.options.path !== "" && this.type === "") {
      throw new BaseError(
        "PPROF_TYPE_MISSING",
        "pprof.path needs pprof.type: one of cpu, heap, allocs",
        { meta: { path: this.options.path } },
      );
    }
  }

  /** The bound HTTP port once serving. */
  get port(): number {
    if (this.#port === undefined) {
      throw new BaseError(
        "PPROF_NOT_SERVING",
        "Cannot read the pprof port: the profiler server is not running",
      );
    }
    return this.#port;
  }

  /** Starts serving, or starts the file profile (idempotent; nothing when not enabled). */
  async start(): Promise<void> {
    if (!this.options.enabled || this.#inspector) return;
    const inspector = new Inspector();
    this.#inspector = inspector;
    try {
      if (this.options.path !== "") {
        const type = this.type as V8PprofType;
        this.#filePath = await profileFilePath(this.options.path, type);
        if (type === "cpu") await inspector.startCpu();
        if (type === "allocs") await inspector.startSampling();
        this.#log.info("Started profiling to file", { type, path: this.#filePath });
        return;
      }
      await inspector.startSampling();
      const { addr, port } = this.options;
      try {
        this.#server = Deno.serve({ hostname: addr, port, onListen: () => {} }, (req) => this.handle(req));
      } catch (cause) {
        throw new BaseError("PPROF_LISTEN", `Cannot start the pprof server on ${addr}:${port}: ${cause}`, {
          meta: { addr, port },
          cause,
        });
      }
      this.#port = this.#server.addr.port;
      this.#log.info("Started pprof server", { addr, port: this.#port });
    } catch (err) {
      this.#inspector = undefined;
      await inspector.close();
      throw err;
    }
  }

  /** Stops serving, or writes the file profile (idempotent). */
  async stop(): Promise<void> {
    const inspector = this.#inspector;
    if (!inspector) return;
    this.#inspector = undefined;
    this.#cpuAbort?.abort();
    try {
      if (this.#server) {
        const server = this.#server;
        this.#server = undefined;
        this.#port = undefined;
        await server.shutdown();
      }
      if (this.#filePath !== undefined) {
        const path = this.#filePath;
        this.#filePath = undefined;
        const body = await this.#capture(inspector, this.type as V8PprofType);
        await Deno.writeTextFile(path, body);
        this.#log.info("Wrote profile", { type: this.type, path });
      }
    } finally {
      await inspector.close();
    }
  }

  async #capture(inspector: Inspector, type: V8PprofType): Promise<string> {
    switch (type) {
      case "cpu":
        return JSON.stringify(await inspector.stopCpu());
      case "heap":
        return await takeHeapSnapshot();
      case "allocs":
        return JSON.stringify(await inspector.samplingProfile());
    }
  }

  /** Answers one HTTP request (exposed for tests; `start` serves it). */
  async handle(request: Request): Promise<Response> {
    const inspector = this.#inspector;
    const url = new URL(request.url);
    if (request.method !== "GET") return text(405, "Method Not Allowed\n");
    if (!inspector) return text(503, "profiler stopped\n");
    const name = url.pathname.replace(/^\/debug\/pprof\/?/, "");
    if (!url.pathname.startsWith("/debug/pprof")) return text(404, "Not Found\n");
    switch (name) {
      case "":
        return text(
          200,
          "keel profiles (V8):\n" +
            "/debug/pprof/profile?seconds=N  CPU profile, .cpuprofile JSON\n" +
            "/debug/pprof/heap               heap snapshot, .heapsnapshot JSON\n" +
            "/debug/pprof/allocs             sampling heap profile, .heapprofile JSON\n",
        );
      case "profile":
        return await this.#cpuProfile(inspector, url.searchParams.get("seconds"));
      case "heap":
        return json(await takeHeapSnapshot(), "heap.heapsnapshot");
      case "allocs":
        return json(JSON.stringify(await inspector.samplingProfile()), "allocs.heapprofile");
      case "goroutine":
      case "threadcreate":
      case "block":
      case "mutex":
        return text(
          404,
          `${name} is a Go runtime profile; keel runs on V8 and offers profile (cpu), heap, allocs\n`,
        );
      default:
        return text(404, "Unknown profile\n");
    }
  }

  async #cpuProfile(inspector: Inspector, secondsParam: string | null): Promise<Response> {
    const seconds = secondsParam === null ? DEFAULT_PROFILE_SECONDS : Number(secondsParam);
    if (!Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_PROFILE_SECONDS) {
      return text(400, `seconds must be a number in (0, ${MAX_PROFILE_SECONDS}], got ${secondsParam}\n`);
    }
    if (inspector.cpuRunning) return text(409, "a CPU profile is already running\n");
    await inspector.startCpu();
    const abort = new AbortController();
    this.#cpuAbort = abort;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, seconds * 1000);
      abort.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve();
      }, { once: true });
    });
    if (this.#cpuAbort === abort) this.#cpuAbort = undefined;
    return json(JSON.stringify(await inspector.stopCpu()), "profile.cpuprofile");
  }
}

function text(status: number, body: string): Response {
  return new Response(body, { status, headers: { "content-type": "text/plain; charset=utf-8" } });
}

function json(body: string, filename: string): Response {
  return new Response(body, {
    headers: {
      "content-type": "application/json",
      "content-disposition": `attachment; filename="${filename}"`,
    },
  });
}
