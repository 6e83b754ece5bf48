/**
 * Transaction pool errors. The messages are go-ethereum's, word for word, because viem and
 * ethers match on them (geth `core/error.go`, `core/txpool/errors.go`,
 * `core/txpool/legacypool/legacypool.go`, `internal/ethapi` for the replay-protection rule).
 * The RPC layer maps every code here to JSON-RPC error -32000 with the message unchanged.
 */
import { BaseError } from "../../common/errors.ts";

/** Error codes a {@link TxPool} add can fail with; each maps to geth's base message below. */
export const TXPOOL_ERROR_CODES = {
  /** Bytes that are not a transaction (RLP or field error). */
  INVALID_TRANSACTION: "INVALID_TRANSACTION",
  ALREADY_KNOWN: "ALREADY_KNOWN",
  TX_TYPE_NOT_SUPPORTED: "TX_TYPE_NOT_SUPPORTED",
  OVERSIZED_DATA: "OVERSIZED_DATA",
  MAX_INITCODE_SIZE_EXCEEDED: "MAX_INITCODE_SIZE_EXCEEDED",
  GAS_LIMIT: "GAS_LIMIT",
  TIP_ABOVE_FEE_CAP: "TIP_ABOVE_FEE_CAP",
  INVALID_SENDER: "INVALID_SENDER",
  UNPROTECTED_TX: "UNPROTECTED_TX",
  INTRINSIC_GAS: "INTRINSIC_GAS",
  FLOOR_DATA_GAS: "FLOOR_DATA_GAS",
  TX_GAS_PRICE_TOO_LOW: "TX_GAS_PRICE_TOO_LOW",
  FEE_CAP_TOO_LOW: "FEE_CAP_TOO_LOW",
  EMPTY_AUTHORIZATIONS: "EMPTY_AUTHORIZATIONS",
  NONCE_TOO_LOW: "NONCE_TOO_LOW",
  NONCE_MAX: "NONCE_MAX",
  INSUFFICIENT_FUNDS: "INSUFFICIENT_FUNDS",
  REPLACE_UNDERPRICED: "REPLACE_UNDERPRICED",
  UNDERPRICED: "UNDERPRICED",
  TXPOOL_FULL: "TXPOOL_FULL",
  ACCOUNT_LIMIT_EXCEEDED: "ACCOUNT_LIMIT_EXCEEDED",
  SENDER_NO_EOA: "SENDER_NO_EOA",
} as const;

export type TxPoolErrorCode = typeof TXPOOL_ERROR_CODES[keyof typeof TXPOOL_ERROR_CODES];

/** geth's base message for each code (the text before any ": detail"). */
export const TXPOOL_ERROR_MESSAGES: Readonly<Record<TxPoolErrorCode, string>> = {
  INVALID_TRANSACTION: "invalid transaction",
  ALREADY_KNOWN: "already known", // core/txpool ErrAlreadyKnown
  TX_TYPE_NOT_SUPPORTED: "transaction type not supported", // core/types ErrTxTypeNotSupported
  OVERSIZED_DATA: "oversized data", // core/txpool ErrOversizedData
  MAX_INITCODE_SIZE_EXCEEDED: "max initcode size exceeded", // core ErrMaxInitCodeSizeExceeded
  GAS_LIMIT: "exceeds block gas limit", // core/txpool ErrGasLimit
  TIP_ABOVE_FEE_CAP: "max priority fee per gas higher than max fee per gas", // core ErrTipAboveFeeCap
  INVALID_SENDER: "invalid sender", // core/txpool ErrInvalidSender
  UNPROTECTED_TX: "only replay-protected (EIP-155) transactions allowed over RPC", // internal/ethapi
  INTRINSIC_GAS: "intrinsic gas too low", // core ErrIntrinsicGas
  FLOOR_DATA_GAS: "insufficient gas for floor data gas cost", // core ErrFloorDataGas (EIP-7623)
  TX_GAS_PRICE_TOO_LOW: "transaction gas price below minimum", // core/txpool ErrTxGasPriceTooLow
  FEE_CAP_TOO_LOW: "max fee per gas less than block base fee", // core ErrFeeCapTooLow
  EMPTY_AUTHORIZATIONS: "set code tx must have at least one authorization tuple", // core/txpool validation
  NONCE_TOO_LOW: "nonce too low", // core ErrNonceTooLow
  NONCE_MAX: "nonce has max value", // core ErrNonceMax (EIP-2681)
  INSUFFICIENT_FUNDS: "insufficient funds for gas * price + value", // core ErrInsufficientFunds
  REPLACE_UNDERPRICED: "replacement transaction underpriced", // core/txpool ErrReplaceUnderpriced
  UNDERPRICED: "transaction underpriced", // core/txpool ErrUnderpriced
  TXPOOL_FULL: "txpool is full", // legacypool ErrTxPoolOverflow
  ACCOUNT_LIMIT_EXCEEDED: "account limit exceeded", // core/txpool ErrAccountLimitExceeded
  SENDER_NO_EOA: "sender not an eoa", // core ErrSenderNoEOA (EIP-3607)
};

/** A pool error: geth's message, optionally followed by ": detail" as geth wraps it. */
export function txPoolError(
  code: TxPoolErrorCode,
  detail?: string,
  meta: Record<string, unknown> = {},
  cause?: unknown,
): BaseError {
  const base = TXPOOL_ERROR_MESSAGES[code];
  return new BaseError(code, detail === undefined ? base : `${base}: ${detail}`, { meta, cause });
}

/** True when `err` is one of the pool's errors (the RPC layer answers these with -32000). */
export function isTxPoolError(err: unknown): err is BaseError {
  return err instanceof BaseError && Object.hasOwn(TXPOOL_ERROR_MESSAGES, err.code);
}
