/**
 * Options of the interface (interfaces.md 4.5) whose feature keel does not have. Those that would make
 * the node behave other than asked (serve a supervisor) stop the start with a clear
 * error; those that only tune what keel does anyway, or have a safe fallback, are logged once as warnings.
 */
import { BaseError } from "../common/errors.ts";
import type { NodeOptions } from "../config/mod.ts";

export interface UnsupportedOptions {
  /** Each a full sentence naming the option. */
  errors: string[];
  warnings: string[];
}

export function unsupportedOptions(o: NodeOptions): UnsupportedOptions {
  const errors: string[] = [];
  const warnings: string[] = [];
  if (o.interopRpcAddr !== undefined && o.interopRpcAddr !== "") {
    errors.push("--interop.rpc.addr: the interop supervisor RPC is not supported");
  }
  return { errors, warnings };
}

/** Throws UNSUPPORTED_OPTION naming every refused option; returns the warnings. */
export function checkSupported(o: NodeOptions): string[] {
  const { errors, warnings } = unsupportedOptions(o);
  if (errors.length > 0) {
    throw new BaseError("UNSUPPORTED_OPTION", `Cannot start keel node: ${errors.join("; ")}`);
  }
  return warnings;
}
