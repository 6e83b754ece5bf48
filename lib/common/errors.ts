/**
 * The one error class of keel: a string `code`, structured `meta`, and for derivation and
 * engine errors a `severity` the driver switches on (DESIGN.md, style rule 4).
 * Only `lib/rpc` maps errors to JSON-RPC codes.
 */
export type Severity = "temporary" | "reset" | "critical";

export interface BaseErrorOptions {
  meta?: Record<string, unknown>;
  severity?: Severity;
  cause?: unknown;
}

export class BaseError extends Error {
  override name = "BaseError";
  readonly code: string;
  readonly meta: Record<string, unknown>;
  readonly severity?: Severity;

  constructor(code: string, message: string, options: BaseErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.meta = options.meta ?? {};
    this.severity = options.severity;
  }
}

/** True when `err` is a BaseError with the given code. */
export function isErrorCode(err: unknown, code: string): err is BaseError {
  return err instanceof BaseError && err.code === code;
}
