/** Spec 4.5 "Logging". */
import { option, type OptionTable, SPEC_4_5 } from "../option.ts";
import { bool, oneOf, ValueError, type ValueKind } from "../values.ts";

const group = "Logging";

/** The spec's levels 0..5: silent, error, warn, info, debug, detail (keel calls 5 `trace`). */
export const LOG_LEVELS = ["silent", "error", "warn", "info", "debug", "trace"] as const;
export type LogLevel = typeof LOG_LEVELS[number];

const LEVEL_ALIASES: Record<string, LogLevel> = {
  silent: "silent",
  crit: "error",
  error: "error",
  eror: "error",
  warn: "warn",
  warning: "warn",
  info: "info",
  debug: "debug",
  dbug: "debug",
  trace: "trace",
  detail: "trace",
  trce: "trace",
};

/** A level name (silent, error, warn, info, debug, trace or detail) or its number 0..5 (spec 4.5). */
export const logLevel: ValueKind<LogLevel> = {
  placeholder: "<level>",
  form: "a level name (silent, error, warn, info, debug, trace) or a number 0-5",
  parse(text) {
    const s = text.trim().toLowerCase();
    if (/^[0-5]$/.test(s)) return LOG_LEVELS[Number(s)];
    const level = LEVEL_ALIASES[s];
    if (level === undefined) throw new ValueError("not a log level");
    return level;
  },
  format: (v) => v,
};

export const LOG_FORMATS = ["text", "terminal", "logfmt", "json", "json-pretty"] as const;
export type LogFormat = typeof LOG_FORMATS[number];

export const LOG_OPTIONS = {
  logColor: option({
    name: "log.color",
    env: "LOG_COLOR",
    kind: bool,
    default: false,
    origin: SPEC_4_5,
    group,
    description: "colour output in terminal mode",
  }),
  logFormat: option({
    name: "log.format",
    env: "LOG_FORMAT",
    kind: oneOf(LOG_FORMATS),
    default: "text",
    origin: SPEC_4_5,
    group,
    description: "one of text, terminal, logfmt, json, json-pretty",
  }),
  logLevel: option({
    name: "log.level",
    env: "LOG_LEVEL",
    kind: logLevel,
    default: "info",
    origin: SPEC_4_5,
    group,
    description: "lowest level output: 0 silent, 1 error, 2 warn, 3 info, 4 debug, 5 detail",
  }),
  logPid: option({
    name: "log.pid",
    env: "LOG_PID",
    kind: bool,
    default: false,
    origin: SPEC_4_5,
    group,
    description: "show pid",
  }),
} satisfies OptionTable;
