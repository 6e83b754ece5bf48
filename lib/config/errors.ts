/**
 * Configuration errors: bad input on the command line or in the environment. Each carries one
 * line naming the flag, its environment variable, the value given and the accepted form; the CLI
 * prints it and exits with status 2 before anything starts.
 */
import { BaseError } from "../common/errors.ts";

/** Exit status of the CLI on bad input (as Go's flag package and op-node use). */
export const CONFIG_EXIT_CODE = 2;

export type ConfigErrorCode =
  | "CONFIG_INVALID_VALUE"
  | "CONFIG_UNKNOWN_FLAG"
  | "CONFIG_MISSING_VALUE"
  | "CONFIG_MISSING_REQUIRED"
  | "CONFIG_CONFLICT"
  | "CONFIG_UNEXPECTED_ARGUMENT"
  | "CONFIG_UNKNOWN_COMMAND";

export interface ConfigErrorMeta {
  /** The flag, e.g. `--l1.rpckind` (the first one for a conflict). */
  flag?: string;
  /** Its environment variable, e.g. `KEEL_L1_RPC_KIND`. */
  env?: string;
  /** The text given (redacted for secrets). */
  value?: string;
  /** The accepted form in words. */
  form?: string;
  /** The nearest known name, for an unknown flag or command. */
  suggestion?: string;
  [key: string]: unknown;
}

export class ConfigError extends BaseError {
  override name = "ConfigError";
  override readonly code: ConfigErrorCode;
  override readonly meta: ConfigErrorMeta;
  readonly exitCode = CONFIG_EXIT_CODE;

  constructor(code: ConfigErrorCode, message: string, meta: ConfigErrorMeta) {
    // One line, always: values given are quoted with JSON escapes.
    super(code, message.replace(/[\r\n]+/g, " "), { meta });
    this.code = code;
    this.meta = meta;
  }
}

/** Quotes a user-given value for a one-line message. */
export function quote(value: string): string {
  return JSON.stringify(value);
}
