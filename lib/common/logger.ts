/**
 * Logging on LogTape with op-node's options (spec section 4.5, "Logging"): `log.level`
 * (names or the numeric levels 0 to 5), `log.format` (text, terminal, logfmt, json, json-pretty),
 * `log.color` and `log.pid`. Lines go to stderr unless a sink is given.
 *
 * Loggers are LogTape loggers under the root category "keel". Messages are constant; values
 * go in the properties object (DESIGN.md, style rule 6): `log.info("Imported block", { number })`.
 * The npm `debug` package (used by @ethereumjs and libp2p) is routed into the same output under
 * the category `keel.lib`, enabled only at the most verbose level.
 */
import {
  configureSync,
  getLogger as getLogTapeLogger,
  type Logger,
  type LogLevel,
  type LogRecord,
  resetSync,
} from "@logtape/logtape";
import createDebug from "debug";
import { format as formatPrintf } from "node:util";
import { bytesToHex } from "./bytes.ts";
import { BaseError } from "./errors.ts";

export type { Logger };

/** Output formats of `log.format` (spec section 4.5). */
export const LOG_FORMATS = ["text", "terminal", "logfmt", "json", "json-pretty"] as const;
export type LogFormat = typeof LOG_FORMATS[number];

/** Level names, in the order of the spec's numeric levels 0 (silent) to 5 (detail). */
export const LOG_LEVEL_NAMES = ["silent", "error", "warn", "info", "debug", "detail"] as const;
export type LogLevelName = typeof LOG_LEVEL_NAMES[number];

export interface LoggingOptions {
  /** A level name, `trace` (same as `detail`), or the spec's number 0 to 5. */
  level: LogLevelName | "trace" | number | string;
  format: LogFormat;
  /** Colour the level in terminal output (and select terminal output for `text`, as op-node does). */
  color: boolean;
  /** Add `pid=<n>` to every line. */
  pid: boolean;
}

/** Defaults from spec section 4.5: log.level info, log.format text, log.color false, log.pid false. */
export const DEFAULT_LOGGING_OPTIONS: LoggingOptions = {
  level: "info",
  format: "text",
  color: false,
  pid: false,
};

/** Receives one formatted line (without its trailing newline). */
export type LogSink = (line: string) => void;

/** The root category of every keel logger. */
export const ROOT_CATEGORY = "keel";

/** Returns the logger for `category` under "keel", e.g. `getLogger(["rollup", "driver"])`. */
export function getLogger(category: readonly string[] = []): Logger {
  return getLogTapeLogger([ROOT_CATEGORY, ...category]);
}

/** Parses a level name or the spec's numeric level (0 silent … 5 detail). */
export function parseLogLevel(value: string | number): LogLevelName {
  const text = String(value).trim().toLowerCase();
  if (/^[0-5]$/.test(text)) return LOG_LEVEL_NAMES[Number(text)];
  if (text === "trace") return "detail";
  if (text === "warning") return "warn";
  if (text === "crit" || text === "critical") return "error";
  if ((LOG_LEVEL_NAMES as readonly string[]).includes(text)) return text as LogLevelName;
  throw new BaseError(
    "LOG_LEVEL_INVALID",
    `Cannot parse log level: ${JSON.stringify(String(value))} is not one of ${
      LOG_LEVEL_NAMES.join(", ")
    }, trace or 0-5`,
    { meta: { value } },
  );
}

/** Checks a `log.format` value. */
export function parseLogFormat(value: string): LogFormat {
  const text = value.trim().toLowerCase();
  if ((LOG_FORMATS as readonly string[]).includes(text)) return text as LogFormat;
  throw new BaseError(
    "LOG_FORMAT_INVALID",
    `Cannot parse log format: ${JSON.stringify(value)} is not one of ${LOG_FORMATS.join(", ")}`,
    { meta: { value } },
  );
}

const LOGTAPE_LEVEL: Record<Exclude<LogLevelName, "silent">, LogLevel> = {
  error: "error",
  warn: "warning",
  info: "info",
  debug: "debug",
  detail: "trace",
};

/** geth's lower-case level words for logfmt and JSON. */
const LEVEL_WORD: Record<LogLevel, string> = {
  trace: "trace",
  debug: "debug",
  info: "info",
  warning: "warn",
  error: "error",
  fatal: "crit",
};

/** geth's terminal level column: five characters wide. */
const LEVEL_COLUMN: Record<LogLevel, string> = {
  trace: "TRACE",
  debug: "DEBUG",
  info: "INFO ",
  warning: "WARN ",
  error: "ERROR",
  fatal: "CRIT ",
};

/** ANSI colour codes per level, as geth's terminal handler uses them. */
const LEVEL_COLOUR: Record<LogLevel, number> = {
  trace: 34,
  debug: 36,
  info: 32,
  warning: 33,
  error: 31,
  fatal: 35,
};

/** geth pads the terminal message column to this width. */
const TERMINAL_MSG_WIDTH = 40;

/** Renders one context value as text: bigint in decimal, bytes as 0x-hex, errors by message. */
export function renderLogValue(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "bigint") return value.toString(10);
  if (value instanceof Uint8Array) return bytesToHex(value);
  if (value instanceof Error) return value.message;
  if (value instanceof Date) return value.toISOString();
  if (value === undefined) return "undefined";
  if (typeof value === "function") return `[function ${value.name || "anonymous"}]`;
  if (typeof value === "symbol") return value.toString();
  if (value === null || typeof value !== "object") return String(value);
  return safeStringify(value, undefined);
}

/** JSON-safe form of a context value (bigint and bytes become strings). */
function jsonValue(value: unknown): unknown {
  if (typeof value === "bigint") return value.toString(10);
  if (value instanceof Uint8Array) return bytesToHex(value);
  if (value instanceof Error) return value.message;
  if (value === undefined) return null;
  if (typeof value === "function" || typeof value === "symbol") return renderLogValue(value);
  return value;
}

function jsonReplacer(_key: string, value: unknown): unknown {
  return jsonValue(value);
}

function safeStringify(value: unknown, indent: number | undefined): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(value, (key, v) => {
    const out = jsonReplacer(key, v);
    if (out !== null && typeof out === "object" && !(out instanceof Uint8Array)) {
      if (seen.has(out)) return "[circular]";
      seen.add(out);
    }
    return out;
  }, indent);
}

/** logfmt quoting: bare when the text has no space, quote, `=` or control character. */
function logfmtQuote(text: string): string {
  // deno-lint-ignore no-control-regex
  if (text !== "" && !/[\s"=\\\u0000-\u001f\u007f]/.test(text)) return text;
  return JSON.stringify(text);
}

function renderMessage(record: LogRecord): string {
  return record.message.map((part, i) => (i % 2 === 0 ? String(part) : renderLogValue(part))).join("");
}

function pad2(n: number): string {
  return n.toString().padStart(2, "0");
}

/** `2026-11-25T22:42:00.123+0000`, geth's logfmt time with milliseconds, in UTC. */
function logfmtTime(ms: number): string {
  return new Date(ms).toISOString().replace("Z", "+0000");
}

/** `11-25|22:42:00.123`, geth's terminal time, in UTC. */
function terminalTime(ms: number): string {
  const d = new Date(ms);
  return `${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}|${pad2(d.getUTCHours())}:${
    pad2(d.getUTCMinutes())
  }:${pad2(d.getUTCSeconds())}.${d.getUTCMilliseconds().toString().padStart(3, "0")}`;
}

/** The context pairs of a record: pid first (when asked), then the module, then the properties. */
function contextPairs(record: LogRecord, pid: number | undefined): [string, unknown][] {
  const pairs: [string, unknown][] = [];
  if (pid !== undefined) pairs.push(["pid", pid]);
  const module = record.category[0] === ROOT_CATEGORY ? record.category.slice(1) : record.category;
  if (module.length > 0) pairs.push(["module", module.join(".")]);
  for (const [key, value] of Object.entries(record.properties)) pairs.push([key, value]);
  return pairs;
}

/** Formatting options without the level (the level is a filter, not a format). */
export type LogFormatOptions = Pick<LoggingOptions, "format" | "color"> & { pid?: number };

/** Formats one LogTape record as one line (json-pretty: one indented block) in the chosen format. */
export function formatLogRecord(record: LogRecord, options: LogFormatOptions): string {
  const pairs = contextPairs(record, options.pid);
  const msg = renderMessage(record);
  const format = options.format === "text" && options.color ? "terminal" : options.format;
  switch (format) {
    case "terminal": {
      let level = LEVEL_COLUMN[record.level];
      if (options.color) level = `\x1b[${LEVEL_COLOUR[record.level]}m${level}\x1b[0m`;
      const head = `${level} [${terminalTime(record.timestamp)}] ${msg}`;
      if (pairs.length === 0) return head;
      const ctx = pairs.map(([k, v]) => `${k}=${logfmtQuote(renderLogValue(v))}`).join(" ");
      const width = LEVEL_COLUMN[record.level].length + terminalTime(record.timestamp).length + 4 +
        TERMINAL_MSG_WIDTH;
      const plainHead = `${LEVEL_COLUMN[record.level]} [${terminalTime(record.timestamp)}] ${msg}`;
      return head + " ".repeat(Math.max(1, width - plainHead.length + 1)) + ctx;
    }
    case "text":
    case "logfmt": {
      const fields: [string, unknown][] = [
        ["t", logfmtTime(record.timestamp)],
        ["lvl", LEVEL_WORD[record.level]],
        ["msg", msg],
        ...pairs,
      ];
      return fields.map(([k, v]) => `${k}=${logfmtQuote(renderLogValue(v))}`).join(" ");
    }
    case "json":
    case "json-pretty": {
      const obj: Record<string, unknown> = {
        t: new Date(record.timestamp).toISOString(),
        lvl: LEVEL_WORD[record.level],
        msg,
      };
      for (const [k, v] of pairs) obj[k in obj ? `ctx_${k}` : k] = v;
      return safeStringify(obj, format === "json-pretty" ? 2 : undefined);
    }
  }
}

const stderrEncoder = new TextEncoder();

/** Writes a line to stderr (synchronously, so lines from a crash are not lost). */
export function stderrSink(line: string): void {
  const bytes = stderrEncoder.encode(line + "\n");
  let written = 0;
  while (written < bytes.length) written += Deno.stderr.writeSync(bytes.subarray(written));
}

/** The parts of the npm `debug` module keel touches (the package ships no types). */
interface DebugModule {
  log: (...args: unknown[]) => void;
  save: (namespaces: string) => void;
  enable: (namespaces: string) => void;
  disable: () => string;
  inspectOpts: Record<string, unknown>;
}

const debugModule = createDebug as unknown as DebugModule;

/** Routes the npm `debug` package into LogTape (`keel.lib`, trace level) and never into process.env. */
function routeDebugPackage(enabled: boolean): void {
  const libLogger = getLogger(["lib"]);
  // debug's enable() writes process.env.DEBUG, which the KEEL_* env grant refuses: keep it in memory.
  debugModule.save = () => {};
  debugModule.inspectOpts.colors = false;
  debugModule.inspectOpts.hideDate = true;
  debugModule.log = (...args: unknown[]) => {
    libLogger.trace("Library debug output", { text: formatPrintf(...args) });
  };
  if (enabled) debugModule.enable("*");
  else debugModule.disable();
}

/**
 * (Re)configures the keel loggers. `sink` receives formatted lines; the default writes to stderr.
 * Level `silent` (0) drops every record. Call again to change the options; `resetLogging` undoes it.
 */
export function configureLogging(options: Partial<LoggingOptions> = {}, sink: LogSink = stderrSink): void {
  const opts = { ...DEFAULT_LOGGING_OPTIONS, ...options };
  current = { options: opts, sink };
  const level = parseLogLevel(opts.level);
  const format = parseLogFormat(opts.format);
  const pid = opts.pid ? Deno.pid : undefined;
  const formatOptions: LogFormatOptions = { format, color: opts.color, pid };
  configureSync({
    reset: true,
    sinks: { keel: (record: LogRecord) => sink(formatLogRecord(record, formatOptions)) },
    loggers: [
      {
        category: [ROOT_CATEGORY],
        sinks: level === "silent" ? [] : ["keel"],
        lowestLevel: level === "silent" ? null : LOGTAPE_LEVEL[level],
      },
      // LogTape's own diagnostics ("logtape" category) go to the same sink, warnings only.
      { category: ["logtape", "meta"], sinks: level === "silent" ? [] : ["keel"], lowestLevel: "warning" },
    ],
  });
  routeDebugPackage(level === "detail");
}

/** The options and sink of the last configureLogging, for setLogLevel. */
let current: { options: LoggingOptions; sink: LogSink } | undefined;

/**
 * Changes the level of the running configuration (op-node admin_setLogLevel, geth debug_verbosity); the
 * format, colours and sink stay. Throws LOG_LEVEL_INVALID for a level parseLogLevel refuses.
 */
export function setLogLevel(level: string | number): LogLevelName {
  const parsed = parseLogLevel(level);
  configureLogging({ ...current?.options, level: parsed }, current?.sink);
  return parsed;
}

/** Removes the logging configuration (records are dropped) and silences the `debug` package. */
export function resetLogging(): void {
  resetSync();
  debugModule.disable();
}
