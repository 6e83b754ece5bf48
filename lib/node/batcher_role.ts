/**
 * `keel batcher`: the batch submitter on its own, beside a sequencer it reaches over JSON-RPC (as
 * op-batcher beside op-node and op-geth): the rollup config and the safe head from the rollup node
 * (keel's rollupnode_* or op-node's optimism_*), the blocks from the L2 execution client
 * (eth_getBlockByNumber with full transactions, each re-encoded and checked against its hash), the
 * batcher transactions to L1 (lib/batcher Batcher).
 */
import { daClientFor } from "./altda_service.ts";
import { createAddressFromPrivateKey } from "@ethereumjs/util";
import { Batcher, type BatcherSource } from "../batcher/mod.ts";
import { loadKzg } from "../execution/evm/mod.ts";
import { bytesToHex, fromQuantity, hexToBytes } from "../common/bytes.ts";
import { BaseError, isErrorCode } from "../common/errors.ts";
import { keccak256 } from "../common/hash.ts";
import type { JsonRpcClient } from "../common/json_rpc_client.ts";
import { rpcClientFor } from "../rpc/rpc_client.ts";
import { configureLogging, getLogger } from "../common/logger.ts";
import type { ParsedBatcher } from "../config/mod.ts";
import { DEPOSIT_TX_TYPE, encodeDepositTx } from "../protocol/deposit_tx.ts";
import { parseRollupConfigJson } from "../protocol/rollup_config_json.ts";
import { encodeRpcTransaction, type RpcTransaction } from "../rollup/l1/mod.ts";
import type { RunningRole } from "./role.ts";

/** JSON-RPC "method not found": the other node's name for the method is tried. */
const METHOD_NOT_FOUND = -32601;

/** Calls keel's method, or op-node's when the node does not know keel's. */
async function rollupCall<T>(rpc: JsonRpcClient, keel: string, opNode: string): Promise<T> {
  try {
    return await rpc.call<T>(keel);
  } catch (e) {
    const code = (e as BaseError).meta?.code;
    if (!isErrorCode(e, "RPC_ERROR") || code !== METHOD_NOT_FOUND) throw e;
    return await rpc.call<T>(opNode);
  }
}

interface RpcBlock {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
  transactions: (RpcTransaction & {
    sourceHash?: string;
    mint?: string;
    isSystemTx?: boolean;
  })[];
}

/** A transaction's consensus encoding from its RPC fields, checked against its hash. */
export function encodeL2RpcTransaction(tx: RpcBlock["transactions"][number]): Uint8Array {
  let encoded: Uint8Array;
  if (tx.type !== undefined && Number(fromQuantity(tx.type)) === DEPOSIT_TX_TYPE) {
    if (tx.sourceHash === undefined || tx.from === undefined) {
      throw new BaseError("L2_TX_INVALID", `Cannot encode deposit ${tx.hash}: sourceHash or from missing`);
    }
    encoded = encodeDepositTx({
      sourceHash: hexToBytes(tx.sourceHash),
      from: hexToBytes(tx.from),
      to: tx.to === null || tx.to === undefined ? null : hexToBytes(tx.to),
      mint: tx.mint === undefined ? 0n : fromQuantity(tx.mint),
      value: fromQuantity(tx.value),
      gas: fromQuantity(tx.gas),
      isSystemTx: tx.isSystemTx === true,
      data: hexToBytes(tx.input),
    });
  } else encoded = encodeRpcTransaction(tx).signed;
  if (bytesToHex(keccak256(encoded)) !== tx.hash.toLowerCase()) {
    throw new BaseError(
      "L2_TX_INVALID",
      `Cannot batch transaction ${tx.hash}: its fields encode to another hash`,
    );
  }
  return encoded;
}

/** The sequencer's chain over JSON-RPC: its L2 execution client and its rollup node. */
export function rpcBatcherSource(l2: JsonRpcClient, rollup: JsonRpcClient): BatcherSource {
  return {
    async blockByNumber(number) {
      const b = await l2.call<RpcBlock | null>("eth_getBlockByNumber", [`0x${number.toString(16)}`, true]);
      if (b === null) return undefined;
      return {
        number: fromQuantity(b.number),
        hash: hexToBytes(b.hash),
        parentHash: hexToBytes(b.parentHash),
        timestamp: fromQuantity(b.timestamp),
        transactions: b.transactions.map(encodeL2RpcTransaction),
      };
    },
    async headNumber() {
      return fromQuantity(await l2.call<string>("eth_blockNumber"));
    },
    async safeNumber() {
      const status = await rollupCall<{ safe_l2: { number: number; hash: string } }>(
        rollup,
        "rollupnode_syncStatus",
        "optimism_syncStatus",
      );
      // A zero block reference: the node has no safe head yet (op-node's "values may be zeroed").
      if (/^0x0*$/.test(status.safe_l2.hash)) return undefined;
      return BigInt(status.safe_l2.number);
    },
  };
}

export async function startBatcherRole(o: ParsedBatcher["options"]): Promise<RunningRole> {
  configureLogging({ level: o.logLevel, format: o.logFormat as "text", color: o.logColor, pid: o.logPid });
  const log = getLogger(["batcher"]);
  const timeout = { timeoutMs: o.networkTimeout };
  // http(s):// or ws(s):// endpoints (op-batcher dials either).
  const l1 = rpcClientFor(o.l1EthRpc, timeout);
  const l2 = rpcClientFor(o.l2EthRpc, timeout);
  const rollup = rpcClientFor(o.rollupRpc, timeout);
  const cfg = parseRollupConfigJson(
    await rollupCall<unknown>(rollup, "rollupnode_rollupConfig", "optimism_rollupConfig"),
  );
  // The three endpoints must be of one chain: the rollup config names both chain ids.
  const [l1ChainId, l2ChainId] = await Promise.all([
    l1.call<string>("eth_chainId").then(fromQuantity),
    l2.call<string>("eth_chainId").then(fromQuantity),
  ]);
  if (l1ChainId !== cfg.l1ChainId || l2ChainId !== cfg.l2ChainId) {
    throw new BaseError(
      "BATCHER_WRONG_CHAIN",
      `Cannot submit batches: the rollup config is of L1 ${cfg.l1ChainId} and L2 ${cfg.l2ChainId}, ` +
        `the endpoints are of L1 ${l1ChainId} and L2 ${l2ChainId}`,
    );
  }
  const key = hexToBytes(o.privateKey.startsWith("0x") ? o.privateKey : `0x${o.privateKey}`);
  const from = createAddressFromPrivateKey(key).bytes;
  if (bytesToHex(from) !== bytesToHex(cfg.genesis.systemConfig.batcherAddr)) {
    // The SystemConfig may have changed its batcher since genesis; derivation ignores other senders.
    log.warn("The batcher key is not the genesis batcher address", {
      key: bytesToHex(from),
      genesisBatcher: bytesToHex(cfg.genesis.systemConfig.batcherAddr),
    });
  }
  const da = daClientFor(o);
  const blobs = o.dataAvailabilityType !== "calldata";
  const kzg = blobs ? await loadKzg() : undefined;
  const batcher = new Batcher(cfg, { source: rpcBatcherSource(l2, rollup), l1, key, da, kzg }, {
    pollIntervalMs: o.pollInterval,
    maxFrameSize: o.maxL1TxSizeBytes,
    maxBlocksPerChannel: o.maxBlocksPerChannel,
    receiptTimeoutMs: o.txTimeout,
    batchType: o.batchType === 1 ? "span" : "singular",
    dataAvailability: o.dataAvailabilityType,
    targetNumFrames: o.targetNumFrames,
  });
  batcher.start();
  log.info("Batch submitter started", {
    batcher: bytesToHex(from),
    inbox: bytesToHex(cfg.batchInboxAddress),
    batchType: o.batchType === 1 ? "span" : "singular",
    da: o.dataAvailabilityType,
    altda: da === undefined
      ? "off"
      : `${o.altdaDaServer} (${o.altdaDaService ? "generic" : "keccak256"} commitments)`,
    l2: o.l2EthRpc,
    l1: o.l1EthRpc,
  });
  return {
    endpoints: {},
    async stop() {
      await batcher.stop();
      await Promise.all([l1.close(), l2.close(), rollup.close()]);
    },
  };
}
