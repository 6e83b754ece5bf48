/**
 * The namespace records (DESIGN.md rule 9) the composition root registers into the RpcServer:
 * eth (with the filter methods on a FilterManager), net, web3 and txpool.
 */
import type { Namespace } from "../../rpc/mod.ts";
import { type EthBackend, ethContext } from "./backend.ts";
import { FilterManager } from "./filters.ts";
import { ethBlobBaseFee } from "./eth/blob_base_fee.ts";
import { ethBlockNumber } from "./eth/block_number.ts";
import { ethCall } from "./eth/call.ts";
import { ethSimulateV1 } from "./eth/simulate.ts";
import {
  ethGetRawTransactionByBlockHashAndIndex,
  ethGetRawTransactionByBlockNumberAndIndex,
  ethGetRawTransactionByHash,
} from "./eth/get_raw_transaction.ts";
import { ethChainId } from "./eth/chain_id.ts";
import { ethConfig } from "./eth/config.ts";
import { ethCreateAccessList } from "./eth/create_access_list.ts";
import { ethEstimateGas } from "./eth/estimate_gas.ts";
import { ethFeeHistory } from "./eth/fee_history.ts";
import {
  ethGetFilterChanges,
  ethGetFilterLogs,
  ethNewBlockFilter,
  ethNewFilter,
  ethNewPendingTransactionFilter,
  ethUninstallFilter,
} from "./eth/filters.ts";
import { ethGasPrice, ethMaxPriorityFeePerGas } from "./eth/gas_price.ts";
import { ethGetBalance } from "./eth/get_balance.ts";
import { ethGetBlockByHash } from "./eth/get_block_by_hash.ts";
import { ethGetBlockByNumber } from "./eth/get_block_by_number.ts";
import { ethGetBlockReceipts } from "./eth/get_block_receipts.ts";
import {
  ethGetBlockTransactionCountByHash,
  ethGetBlockTransactionCountByNumber,
} from "./eth/get_block_transaction_count.ts";
import { ethGetCode } from "./eth/get_code.ts";
import { ethGetHeaderByHash, ethGetHeaderByNumber } from "./eth/get_header.ts";
import { ethGetLogs } from "./eth/get_logs.ts";
import { ethGetProof } from "./eth/get_proof.ts";
import { ethGetStorageAt, ethGetStorageValues } from "./eth/get_storage_at.ts";
import { findErc20Slot } from "./erc20_slot.ts";
import { ethSendRawTransactionConditional } from "./eth/send_conditional.ts";
import { ethCallMany } from "./eth/call_many.ts";
import {
  ethGetTransactionByBlockHashAndIndex,
  ethGetTransactionByBlockNumberAndIndex,
} from "./eth/get_transaction_by_block_and_index.ts";
import { ethGetTransactionByHash } from "./eth/get_transaction_by_hash.ts";
import { ethGetTransactionCount } from "./eth/get_transaction_count.ts";
import { ethGetTransactionReceipt } from "./eth/get_transaction_receipt.ts";
import { ethAccounts, ethNetworkId, ethSyncing } from "./eth/misc.ts";
import { ethSendRawTransaction, ethSendRawTransactionSync } from "./eth/send_raw_transaction.ts";
import { ethGetAccount, ethGetAccountInfo } from "./eth/get_account.ts";
import { ethPendingTransactions } from "./eth/pending_transactions.ts";
import { ethGetTransactionBySenderAndNonce } from "./eth/get_transaction_by_sender_and_nonce.ts";
import {
  ethFillTransaction,
  ethSendTransaction,
  ethSendTransactionSync,
  ethSignTransaction,
  signTransactionRequest,
} from "./eth/send_transaction.ts";
import { ethSign, ethSignTypedData, ethSignTypedDataV4, personalSign } from "./eth/sign.ts";
import {
  ethGetUncleByBlockHashAndIndex,
  ethGetUncleByBlockNumberAndIndex,
  ethGetUncleCountByBlockHash,
  ethGetUncleCountByBlockNumber,
} from "./eth/uncles.ts";
import { netListening, netPeerCount, netVersion } from "./net/net.ts";
import { txpoolContent, txpoolContentFrom, txpoolInspect, txpoolStatus } from "./txpool/txpool.ts";
import { web3ClientVersion, web3Sha3 } from "./web3/web3.ts";

/**
 * The eth namespace. `filters` serves the filter methods; pass the one whose `onNewHeads` the
 * composition root calls (a new one is made when omitted).
 */
export function ethNamespace(backend: EthBackend, filters?: FilterManager): Namespace {
  const ctx = ethContext(backend);
  const fm = filters ?? new FilterManager({}, { backend });
  const defs = [
    ethBlockNumber(ctx),
    ethChainId(ctx),
    ethConfig(ctx),
    ethGetBalance(ctx),
    ethGetAccount(ctx),
    ethGetAccountInfo(ctx),
    ethGetCode(ctx),
    ethGetStorageAt(ctx),
    ethGetStorageValues(ctx),
    ethGetTransactionCount(ctx),
    ethGetBlockByNumber(ctx),
    ethGetBlockByHash(ctx),
    ethGetBlockReceipts(ctx),
    ethGetHeaderByNumber(ctx),
    ethGetHeaderByHash(ctx),
    ethGetBlockTransactionCountByNumber(ctx),
    ethGetBlockTransactionCountByHash(ctx),
    ethGetUncleCountByBlockNumber(ctx),
    ethGetUncleCountByBlockHash(ctx),
    ethGetUncleByBlockNumberAndIndex(ctx),
    ethGetUncleByBlockHashAndIndex(ctx),
    ethGetTransactionByHash(ctx),
    ethGetTransactionBySenderAndNonce(ctx),
    ethPendingTransactions(ctx),
    ethGetTransactionByBlockNumberAndIndex(ctx),
    ethGetTransactionByBlockHashAndIndex(ctx),
    ethGetTransactionReceipt(ctx),
    ethGetRawTransactionByHash(ctx),
    ethGetRawTransactionByBlockHashAndIndex(ctx),
    ethGetRawTransactionByBlockNumberAndIndex(ctx),
    ethGetLogs(ctx),
    ethCall(ctx),
    ethSimulateV1(ctx),
    ethEstimateGas(ctx),
    ethCreateAccessList(ctx),
    ethSendRawTransaction(ctx),
    ethSendRawTransactionSync(ctx),
    ethCallMany(ctx),
    ...(backend.txConditionals === undefined ? [] : [ethSendRawTransactionConditional(ctx)]),
    ethGasPrice(ctx),
    ethMaxPriorityFeePerGas(ctx),
    ethFeeHistory(ctx),
    ethBlobBaseFee(ctx),
    ethGetProof(ctx),
    ethSyncing(ctx),
    ethAccounts(ctx),
    ethAccounts(ctx, "eth_requestAccounts"),
    ethNetworkId(ctx),
    ethSendTransaction(ctx),
    ethSendTransaction(ctx, "eth_sendUnsignedTransaction"),
    ethSendTransactionSync(ctx),
    ethSignTransaction(ctx),
    ethFillTransaction(ctx),
    ethSign(ctx),
    personalSign(ctx),
    ethSignTypedDataV4(ctx),
    ethSignTypedData(ctx, "eth_signTypedData"),
    ethSignTypedData(ctx, "eth_signTypedData_v3"),
    ethNewFilter(ctx, fm),
    ethNewBlockFilter(ctx, fm),
    ethNewPendingTransactionFilter(ctx, fm),
    ethGetFilterChanges(ctx, fm),
    ethGetFilterLogs(ctx, fm),
    ethUninstallFilter(ctx, fm),
  ];
  return Object.fromEntries(defs.map((d) => [d.name, d]));
}

/**
 * Signs JSON transaction requests as eth_sendTransaction fills them, for the dev methods that take
 * such requests (anvil_reorg: DevInfo.signRequest).
 */
export function devTransactionSigner(
  backend: EthBackend,
): (request: unknown, nonce: (from: Uint8Array) => Promise<bigint>) => Promise<Uint8Array> {
  const ctx = ethContext(backend);
  return (request, nonce) => signTransactionRequest(ctx, request, nonce);
}

/** Finds where a token's view reads its answer, for anvil_dealERC20 and anvil_setERC20Allowance (DevInfo.erc20Slot). */
export function erc20SlotFinder(
  backend: EthBackend,
): (token: Uint8Array, data: Uint8Array, value: bigint, what: string) => Promise<Uint8Array | undefined> {
  const ctx = ethContext(backend);
  return (token, data, value, what) => findErc20Slot(ctx, token, data, value, what);
}

export function netNamespace(backend: EthBackend): Namespace {
  const defs = [netVersion(backend), netListening(backend), netPeerCount(backend)];
  return Object.fromEntries(defs.map((d) => [d.name, d]));
}

export function web3Namespace(backend: EthBackend): Namespace {
  const defs = [web3ClientVersion(backend), web3Sha3(backend)];
  return Object.fromEntries(defs.map((d) => [d.name, d]));
}

export function txpoolNamespace(backend: EthBackend): Namespace {
  const defs = [
    txpoolContent(backend),
    txpoolContentFrom(backend),
    txpoolStatus(backend),
    txpoolInspect(backend),
  ];
  return Object.fromEntries(defs.map((d) => [d.name, d]));
}
