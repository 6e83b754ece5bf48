/**
 * The execution client's JSON-RPC namespaces: eth, net, web3 and txpool (issue 4), over the
 * small EthBackend interface the composition root fills, plus the polling-filter manager and
 * the wire formatters the subscription methods share.
 *
 * Wiring (composition root):
 *
 *   const backend: EthBackend = {
 *     config: engine.config, chain: engine.chain, pool: txPool,
 *     stateAt: (header) => engine.stateAt(header),
 *     clientVersion, options: { ...DEFAULT_ETH_RPC_OPTIONS, gasCap, evmTimeoutMs, txFeeCap },
 *   };
 *   const filters = new FilterManager({}, { backend });
 *   engine.onNewHeads((event) => filters.onNewHeads(event));   // NewHeadsEvent fits as it is
 *   registry.register(ethNamespace(backend, filters)).register(netNamespace(backend))
 *     .register(web3Namespace(backend)).register(txpoolNamespace(backend));
 *   // on shutdown: filters.close()
 */
export {
  DEFAULT_ETH_RPC_OPTIONS,
  type EthBackend,
  type EthContext,
  ethContext,
  type EthRpcOptions,
  LATEST,
  requireHeader,
  type ResolvedHeader,
  resolveHeader,
  resolveNumber,
  type RpcTxPool,
  StateCache,
} from "./backend.ts";
export {
  devTransactionSigner,
  erc20SlotFinder,
  ethNamespace,
  netNamespace,
  txpoolNamespace,
  web3Namespace,
} from "./namespaces.ts";
export {
  DEV_NAMESPACES,
  devBeaconRoutes,
  type DevChain,
  type DevFork,
  type DevMining,
  devNamespace,
  type DumpedState,
  dumpState,
  type ForkTarget,
  loadState,
} from "./dev/mod.ts";
export {
  DEFAULT_FILTER_MANAGER_OPTIONS,
  FilterManager,
  type FilterManagerOptions,
  type HeadBlock,
  type HeadChange,
  type LogCriteria,
} from "./filters.ts";
export {
  type AnyTx,
  blockSize,
  decodeTx,
  formatBlock,
  formatHeader,
  formatLog,
  formatReceipt,
  formatTransaction,
  isDepositTx,
  q,
  txHash,
  type TxPlacement,
} from "./format.ts";
export { LIMIT_EXCEEDED, logFilterSchema, queryLogs, toCriteria } from "./logs.ts";
export { callArgsSchema, revertReason } from "./call_args.ts";
export { minedBlockDetail } from "./mined_detail.ts";
export { type MinerBackend, minerNamespace } from "./miner.ts";
export { sequencerForwarder } from "./eth/send_raw_transaction.ts";
export { type AdminBackend, adminNamespace } from "./admin.ts";
export {
  type AccessListEntry,
  type AccessListResult,
  AccessListTracer,
  createAccessList,
} from "./access_list.ts";
export {
  blobBaseFee,
  feeHistory,
  gasPrice,
  latestBlobBaseFee,
  maxBlobGasPerBlock,
  suggestTip,
} from "./gas_price.ts";
