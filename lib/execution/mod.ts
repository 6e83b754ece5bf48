/** The execution layer's public entry: what the composition root needs to run an execution client. */
export * from "./engine/mod.ts";
export { ChainStore, type StoredReceipt } from "./chain/mod.ts";
export {
  buildDevGenesis,
  checkMnemonic,
  deriveDevAccounts,
  type DevAccount,
  ETHER,
  type Genesis,
  type GenesisJson,
  parseGenesis,
  parseJsonExact,
} from "./genesis/mod.ts";
export { createStateManager } from "./state/mod.ts";
export {
  DEFAULT_TXPOOL_OPTIONS,
  DEV_TXPOOL_OPTIONS,
  TxJournal,
  TxPool,
  type TxPoolOptions,
} from "./txpool/mod.ts";
