/**
 * ExecutionPayload <-> Block (execution-apis `src/engine/paris.md` "ExecutionPayloadV1" through
 * `cancun.md` "ExecutionPayloadV3"; OP: specs/protocol/exec-engine.md, isthmus/exec-engine.md
 * "withdrawalsRoot in the payload"). The header fields a payload does not carry come from the rules:
 * ommersHash = empty list, difficulty 0, nonce 0, parentBeaconBlockRoot from newPayloadV3/V4, and
 * requestsHash from V4's executionRequests (OP: always empty, so sha256("")).
 */
import { RLP } from "@ethereumjs/rlp";
import { bigIntToBytes, bytesToBigInt } from "../../common/bytes.ts";
import {
  type Block,
  EMPTY_OMMERS_HASH,
  EMPTY_TRIE_ROOT,
  hashHeader,
  type Header,
} from "../../protocol/block.ts";
import type { ExecutionPayload, Withdrawal } from "../../protocol/engine.ts";
import { computeRequestsHash, noteDerivedTransactionsRoot } from "../evm/mod.ts";
import { orderedTrieRoot } from "../../protocol/ordered_trie.ts";

/** RLP items of a withdrawal as it sits in a block body (EIP-4895). */
export function encodeWithdrawalItems(w: Withdrawal): Uint8Array[] {
  return [bigIntToBytes(w.index), bigIntToBytes(w.validatorIndex), w.address, bigIntToBytes(w.amount)];
}

/** EIP-7685: sha256 over sha256 of each non-empty request (empty list = sha256("")); evm computeRequestsHash. */
export function requestsHash(requests: Uint8Array[]): Uint8Array {
  return computeRequestsHash(requests);
}

/** EIP-4895 withdrawals root: the ordered trie of the RLP-encoded withdrawals. */
function withdrawalsTrieRoot(withdrawals: Withdrawal[]): Uint8Array {
  if (withdrawals.length === 0) return EMPTY_TRIE_ROOT;
  return orderedTrieRoot(withdrawals.map((w) => RLP.encode(encodeWithdrawalItems(w))));
}

export interface PayloadSidecar {
  /** newPayloadV3/V4 parameter (Cancun/Ecotone). */
  parentBeaconBlockRoot?: Uint8Array;
  /** newPayloadV4 parameter (Prague/Isthmus). */
  executionRequests?: Uint8Array[];
}

/** The block a payload describes (its hash is recomputed from the header; compare with blockHash). */
export function payloadToBlock(payload: ExecutionPayload, sidecar: PayloadSidecar = {}): Block {
  const header: Header = {
    parentHash: payload.parentHash,
    ommersHash: EMPTY_OMMERS_HASH,
    coinbase: payload.feeRecipient,
    stateRoot: payload.stateRoot,
    transactionsRoot: orderedTrieRoot(payload.transactions),
    receiptsRoot: payload.receiptsRoot,
    logsBloom: payload.logsBloom,
    difficulty: 0n,
    number: payload.blockNumber,
    gasLimit: payload.gasLimit,
    gasUsed: payload.gasUsed,
    timestamp: payload.timestamp,
    extraData: payload.extraData,
    mixHash: payload.prevRandao,
    nonce: new Uint8Array(8),
    baseFeePerGas: payload.baseFeePerGas,
  };
  if (payload.withdrawals !== undefined) {
    header.withdrawalsRoot = payload.withdrawalsRoot ?? withdrawalsTrieRoot(payload.withdrawals);
  }
  if (payload.blobGasUsed !== undefined || payload.excessBlobGas !== undefined) {
    header.blobGasUsed = payload.blobGasUsed ?? 0n;
    header.excessBlobGas = payload.excessBlobGas ?? 0n;
  }
  if (sidecar.parentBeaconBlockRoot !== undefined) {
    header.parentBeaconBlockRoot = sidecar.parentBeaconBlockRoot;
  }
  if (sidecar.executionRequests !== undefined) header.requestsHash = requestsHash(sidecar.executionRequests);
  const block: Block = { header, transactions: payload.transactions };
  if (payload.withdrawals !== undefined) block.withdrawals = payload.withdrawals.map(encodeWithdrawalItems);
  noteDerivedTransactionsRoot(block);
  return block;
}

/** The payload of a block (withdrawals decoded from the body items). */
export function blockToPayload(block: Block, hash: Uint8Array = hashHeader(block.header)): ExecutionPayload {
  const h = block.header;
  const payload: ExecutionPayload = {
    parentHash: h.parentHash,
    feeRecipient: h.coinbase,
    stateRoot: h.stateRoot,
    receiptsRoot: h.receiptsRoot,
    logsBloom: h.logsBloom,
    prevRandao: h.mixHash,
    blockNumber: h.number,
    gasLimit: h.gasLimit,
    gasUsed: h.gasUsed,
    timestamp: h.timestamp,
    extraData: h.extraData,
    baseFeePerGas: h.baseFeePerGas ?? 0n,
    blockHash: hash,
    transactions: block.transactions,
  };
  if (block.withdrawals !== undefined) {
    payload.withdrawals = block.withdrawals.map((items) => ({
      index: bytesToBigInt(items[0]),
      validatorIndex: bytesToBigInt(items[1]),
      address: items[2],
      amount: bytesToBigInt(items[3]),
    }));
  }
  if (h.blobGasUsed !== undefined) {
    payload.blobGasUsed = h.blobGasUsed;
    payload.excessBlobGas = h.excessBlobGas ?? 0n;
  }
  return payload;
}

/** The Isthmus payload also carries the header's withdrawalsRoot (isthmus/exec-engine.md). */
export function withIsthmusRoot(payload: ExecutionPayload, header: Header): ExecutionPayload {
  return { ...payload, withdrawalsRoot: header.withdrawalsRoot };
}
