/**
 * An external execution client for `keel node --l2 URL --l2.jwt-secret FILE` (op-node's engine
 * client): the Engine API over JSON-RPC (HTTP, or WebSocket for ws:// and wss://) with a fresh HS256
 * JWT on every request or WebSocket handshake (execution-apis authentication.md), and the driver's
 * reads over the same endpoint's `eth` namespace (op-geth and keel serve it on the authrpc port):
 * canonical blocks with their transactions re-encoded from their fields (deposits from their OP
 * fields, the others as signed), labels, and the L2ToL1MessagePasser's storage root through
 * eth_getProof.
 */
import { bytesToHex, fromQuantity, hexToBytes } from "../common/bytes.ts";
import type { JsonRpcClient } from "../common/json_rpc_client.ts";
import { getLogger } from "../common/logger.ts";
import {
  executionPayloadToJson,
  forkchoiceStateToJson,
  parseEnvelope,
  parsePayloadStatus,
  payloadAttributesToJson,
} from "../execution/engine/mod.ts";
import { encodeDepositTx } from "../protocol/deposit_tx.ts";
import type {
  EngineApi,
  EngineVersion,
  ExecutionPayload,
  ExecutionPayloadEnvelope,
  ForkchoiceState,
  ForkchoiceUpdatedResult,
  PayloadAttributes,
  PayloadStatus,
} from "../protocol/engine.ts";
import { L2_TO_L1_MESSAGE_PASSER_ADDRESS } from "../protocol/predeploys.ts";
import type { L2Chain } from "../rollup/driver/mod.ts";
import { encodeRpcTransaction, type RpcTransaction } from "../rollup/l1/mod.ts";
import { createJwtToken, rpcClientFor } from "../rpc/mod.ts";

/**
 * A JSON-RPC client to `url` with the engine JWT: over HTTP a fresh token on every request; over
 * ws:// or wss:// one WebSocket whose upgrade request carries a fresh token (op-node's engine client
 * sends it in the Authorization header of the handshake, which is where geth and keel check it),
 * redialled with a new token after a drop.
 */
export function engineRpcClient(url: string, secret: Uint8Array, timeoutMs: number): JsonRpcClient {
  return rpcClientFor(url, {
    timeoutMs,
    headers: async () => ({
      authorization: `Bearer ${await createJwtToken(secret, Math.floor(Date.now() / 1000))}`,
    }),
  }, { log: getLogger(["node", "engine"]) });
}

export class HttpEngineApi implements EngineApi {
  readonly #rpc: JsonRpcClient;

  constructor(rpc: JsonRpcClient) {
    this.#rpc = rpc;
  }

  async forkchoiceUpdated(
    version: EngineVersion,
    state: ForkchoiceState,
    attributes?: PayloadAttributes | null,
  ): Promise<ForkchoiceUpdatedResult> {
    const r = await this.#rpc.call<{ payloadStatus: unknown; payloadId: string | null }>(
      `engine_forkchoiceUpdatedV${version}`,
      [forkchoiceStateToJson(state), attributes ? payloadAttributesToJson(attributes) : null],
    );
    return {
      payloadStatus: parsePayloadStatus(r.payloadStatus),
      payloadId: r.payloadId === null ? null : hexToBytes(r.payloadId),
    };
  }

  async signalSuperchain(recommended: Uint8Array, required: Uint8Array): Promise<Uint8Array> {
    const answer = await this.#rpc.call<string>("engine_signalSuperchainV1", [{
      recommended: bytesToHex(recommended),
      required: bytesToHex(required),
    }]);
    return hexToBytes(answer);
  }

  async newPayload(
    version: EngineVersion,
    payload: ExecutionPayload,
    versionedHashes?: Uint8Array[],
    parentBeaconBlockRoot?: Uint8Array,
    executionRequests?: Uint8Array[],
  ): Promise<PayloadStatus> {
    const hex = bytesToHex;
    const params: unknown[] = [executionPayloadToJson(payload)];
    if (version >= 3) {
      params.push((versionedHashes ?? []).map(hex), hex(parentBeaconBlockRoot ?? new Uint8Array(32)));
    }
    if (version >= 4) params.push((executionRequests ?? []).map(hex));
    return parsePayloadStatus(await this.#rpc.call(`engine_newPayloadV${version}`, params));
  }

  async getPayload(version: EngineVersion, payloadId: Uint8Array): Promise<ExecutionPayloadEnvelope> {
    const r = await this.#rpc.call<unknown>(`engine_getPayloadV${version}`, [bytesToHex(payloadId)]);
    // V1/V2 answer the payload alone or {executionPayload, blockValue}.
    return parseEnvelope(version === 1 ? { executionPayload: r, blockValue: "0x0" } : r);
  }
}

interface RpcDeposit {
  sourceHash: string;
  from: string;
  to: string | null;
  mint?: string;
  value: string;
  gas: string;
  isSystemTx?: boolean;
  input: string;
}

interface RpcBlock {
  hash: string;
  parentHash: string;
  miner: string;
  stateRoot: string;
  receiptsRoot: string;
  logsBloom: string;
  mixHash: string;
  number: string;
  gasLimit: string;
  gasUsed: string;
  timestamp: string;
  extraData: string;
  baseFeePerGas?: string;
  withdrawals?: { index: string; validatorIndex: string; address: string; amount: string }[];
  blobGasUsed?: string;
  excessBlobGas?: string;
  withdrawalsRoot?: string;
  transactions: (RpcTransaction | (RpcDeposit & { type: string }))[];
}

/** The transaction's consensus encoding from its RPC fields. */
function rawTransaction(tx: RpcTransaction | (RpcDeposit & { type: string })): Uint8Array {
  if (tx.type !== undefined && fromQuantity(tx.type) === 0x7en) {
    const d = tx as RpcDeposit;
    return encodeDepositTx({
      sourceHash: hexToBytes(d.sourceHash),
      from: hexToBytes(d.from),
      to: d.to === null ? null : hexToBytes(d.to),
      mint: d.mint === undefined ? 0n : fromQuantity(d.mint),
      value: fromQuantity(d.value),
      gas: fromQuantity(d.gas),
      isSystemTx: d.isSystemTx === true,
      data: hexToBytes(d.input),
    });
  }
  return encodeRpcTransaction(tx as RpcTransaction).signed;
}

/** The driver's reads of an external engine (its authrpc `eth` namespace). */
export function externalL2(rpc: JsonRpcClient): L2Chain {
  /** The number of the block under a label ("safe", "finalized"); undefined when the client has none. */
  const labelNumber = async (label: string): Promise<bigint | undefined> => {
    const b = await rpc.call<{ number: string } | null>("eth_getBlockByNumber", [label, false]).catch(() =>
      null
    );
    return b === null ? undefined : fromQuantity(b.number);
  };
  return {
    async payloadByNumber(number: bigint): Promise<ExecutionPayload | undefined> {
      const b = await rpc.call<RpcBlock | null>("eth_getBlockByNumber", [`0x${number.toString(16)}`, true]);
      if (b === null) return undefined;
      const q = (v: string | undefined) => (v === undefined ? undefined : fromQuantity(v));
      return {
        parentHash: hexToBytes(b.parentHash),
        feeRecipient: hexToBytes(b.miner),
        stateRoot: hexToBytes(b.stateRoot),
        receiptsRoot: hexToBytes(b.receiptsRoot),
        logsBloom: hexToBytes(b.logsBloom),
        prevRandao: hexToBytes(b.mixHash),
        blockNumber: fromQuantity(b.number),
        gasLimit: fromQuantity(b.gasLimit),
        gasUsed: fromQuantity(b.gasUsed),
        timestamp: fromQuantity(b.timestamp),
        extraData: hexToBytes(b.extraData),
        baseFeePerGas: q(b.baseFeePerGas) ?? 0n,
        blockHash: hexToBytes(b.hash),
        transactions: b.transactions.map(rawTransaction),
        withdrawals: b.withdrawals?.map((w) => ({
          index: fromQuantity(w.index),
          validatorIndex: fromQuantity(w.validatorIndex),
          address: hexToBytes(w.address),
          amount: fromQuantity(w.amount),
        })),
        blobGasUsed: q(b.blobGasUsed),
        excessBlobGas: q(b.excessBlobGas),
        withdrawalsRoot: b.withdrawalsRoot === undefined ? undefined : hexToBytes(b.withdrawalsRoot),
      };
    },
    safeNumber: () => labelNumber("safe"),
    finalizedNumber: () => labelNumber("finalized"),
    async headNumber(): Promise<bigint> {
      return fromQuantity(await rpc.call<string>("eth_blockNumber"));
    },
    async messagePasserStorageRoot(hash: Uint8Array): Promise<Uint8Array> {
      const proof = await rpc.call<{ storageHash: string }>("eth_getProof", [
        bytesToHex(L2_TO_L1_MESSAGE_PASSER_ADDRESS),
        [],
        { blockHash: bytesToHex(hash) },
      ]);
      return hexToBytes(proof.storageHash);
    },
  };
}
