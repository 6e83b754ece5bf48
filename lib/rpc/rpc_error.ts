/**
 * JSON-RPC errors with go-ethereum's codes and messages (EIP-1474 and geth's rpc/errors.go),
 * so that viem and ethers decode them. Only lib/rpc maps errors to JSON-RPC codes: namespaces
 * throw RpcError for protocol-level answers, or BaseError (-> -32000 with its message).
 */
import { BaseError } from "../common/mod.ts";
import type { Hex } from "../common/mod.ts";

export const RPC_ERROR_CODES = {
  /** Invalid JSON. */
  PARSE_ERROR: -32700,
  /** Not a valid request object, empty batch, batch too large. */
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** geth's default code for any error a method returns. */
  SERVER_ERROR: -32000,
  TIMEOUT: -32002,
  RESPONSE_TOO_LARGE: -32003,
  /** EVM revert, with the revert data in `data`. */
  EXECUTION_REVERTED: 3,
} as const;

/** The error object of a JSON-RPC response. */
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** An error with a JSON-RPC code; thrown by namespaces, written as-is to the wire. */
export class RpcError extends Error {
  override name = "RpcError";
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }

  toJSON(): RpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  /** -32602 with a message as given (no "invalid argument" prefix added). */
  static invalidParams(message: string): RpcError {
    return new RpcError(RPC_ERROR_CODES.INVALID_PARAMS, message);
  }

  /** -32000, geth's code for an error a method returns. */
  static server(message: string, data?: unknown): RpcError {
    return new RpcError(RPC_ERROR_CODES.SERVER_ERROR, message, data);
  }

  /**
   * An EVM revert: code 3, message "execution reverted" or "execution reverted: <reason>",
   * data = the revert data as hex (geth's internal/ethapi revertError).
   */
  static reverted(data: Hex, reason?: string): RpcError {
    const message = reason === undefined || reason === ""
      ? "execution reverted"
      : `execution reverted: ${reason}`;
    return new RpcError(RPC_ERROR_CODES.EXECUTION_REVERTED, message, data);
  }

  static methodNotFound(method: string): RpcError {
    return new RpcError(
      RPC_ERROR_CODES.METHOD_NOT_FOUND,
      `the method ${method} does not exist/is not available`,
    );
  }
}

/**
 * Maps anything thrown by a handler to a JSON-RPC error object.
 * RpcError -> itself; BaseError -> -32000 with its message; anything else -> -32603, and
 * `onUnexpected` is called so the caller can log it (the message of an unexpected error is
 * not sent to the client).
 */
export function toRpcErrorObject(err: unknown, onUnexpected: (err: unknown) => void): RpcErrorObject {
  if (err instanceof RpcError) return err.toJSON();
  if (err instanceof BaseError) return { code: RPC_ERROR_CODES.SERVER_ERROR, message: err.message };
  onUnexpected(err);
  return { code: RPC_ERROR_CODES.INTERNAL_ERROR, message: "internal error" };
}
