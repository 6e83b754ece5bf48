/** The transaction pool of the execution client (issue 3, part 7). */
export {
  isTxPoolError,
  TXPOOL_ERROR_CODES,
  TXPOOL_ERROR_MESSAGES,
  txPoolError,
  type TxPoolErrorCode,
} from "./errors.ts";
export { type OrderedCandidate, TransactionsByPriceAndNonce } from "./ordering.ts";
export {
  DEFAULT_SENDER_RECOVERY_OPTIONS,
  loadWasmSecp256k1,
  recoverSenderInto,
  type RecoveryRequest,
  type RecoveryResponse,
  type Secp256k1Recover,
  SenderRecovery,
  type SenderRecoveryOptions,
} from "./sender_recovery.ts";
export {
  type AddOptions,
  DEFAULT_TXPOOL_OPTIONS,
  DEV_TXPOOL_OPTIONS,
  type NewHeadEvent,
  type PendingListener,
  type PoolAccount,
  type PoolHead,
  TX_SLOT_SIZE,
  type TxPoolContent,
  type TxPoolDeps,
  type TxPoolOptions,
  type TxPoolStatus,
} from "./options.ts";
export { TxPool } from "./txpool.ts";
export {
  decodeJournal,
  encodeJournal,
  type JournalContents,
  type JournalPool,
  TxJournal,
} from "./journal.ts";
export { refuseType, validateBlobTx, validateStateless } from "./admission.ts";
export {
  type BlobAndProof,
  BlobIndex,
  BlobLimbo,
  blobNetworkEncoding,
  type BlobNetworkTx,
  sidecarOfTx,
  splitBlobNetworkTx,
  versionedHashesOf,
} from "./blob_sidecar.ts";
export {
  blobDecodingCommon,
  decodeRawTransaction,
  decodingCommon,
  effectiveTip,
  feeCap,
  floorDataGas,
  type GasRules,
  intrinsicGas,
  MAX_INITCODE_SIZE,
  sharedTxCommon,
  tipCap,
  TX_TYPE,
  txCost,
} from "./validation.ts";
export * from "./block_senders.ts";
export * from "./tx_conditional.ts";
