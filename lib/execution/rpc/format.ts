/**
 * Wire formatters (DESIGN.md rule 8: hex only at the edges): blocks, transactions, receipts and
 * logs as geth's internal/ethapi marshals them (RPCMarshalBlock, newRPCTransaction,
 * MarshalReceipt), with op-geth's additions: deposit fields (sourceHash, mint, isSystemTx,
 * depositReceiptVersion, v/r/s 0x0, nonce from the receipt's depositNonce) and the receipt's L1
 * fee fields (specs/protocol/exec-engine.md; deposits.md "Deposit Receipt"). Shared with the
 * subscription methods (newHeads, logs).
 */
import { RLP } from "@ethereumjs/rlp";
import type { TypedTransaction } from "@ethereumjs/tx";
import { type Hex, keccak256 } from "../../common/mod.ts";
import { JsonBytes } from "../../rpc/mod.ts";
import {
  type Block,
  decodeDepositTx,
  DEPOSIT_TX_TYPE,
  type DepositTx,
  encodeHeader,
  type Header,
} from "../../protocol/mod.ts";
import type { LogEntry, StoredReceipt } from "../chain/mod.ts";
import { decodeSignedTx, loadedKzg } from "../evm/mod.ts";
import { blobDecodingCommon, decodingCommon } from "../txpool/mod.ts";

/** A quantity: 0x-prefixed, no leading zeros. */
export function q(v: bigint | number): Hex {
  return `0x${v.toString(16)}` as Hex;
}

/**
 * Hex of bytes with the runtime's native `Uint8Array.prototype.toHex` (Deno 2.9 / V8): a flat
 * string built in one step. The common `bytesToHex` appends two characters at a time, which leaves
 * a rope that JSON.stringify must flatten again; on eth_getLogs pages of 1,000 logs that was most of
 * the request's time.
 */
export function h(bytes: Uint8Array): Hex {
  return `0x${bytes.toHex()}` as Hex;
}

const BLOB_TX_TYPE = 3;

/** A decoded block transaction: a signed user tx or a deposit. */
export type AnyTx = TypedTransaction | DepositTx;

export function isDepositTx(tx: AnyTx): tx is DepositTx {
  return "sourceHash" in tx;
}

/** Decodes a transaction as stored in a block body. */
export function decodeTx(raw: Uint8Array, chainId: bigint): AnyTx {
  if (raw.length > 0 && raw[0] === DEPOSIT_TX_TYPE) return decodeDepositTx(raw);
  // @ethereumjs makes no blob transaction under a Common without KZG; a chain that has them loaded it
  // as it opened (ExecutionEngine.open).
  const kzg = raw[0] === BLOB_TX_TYPE ? loadedKzg() : undefined;
  return decodeSignedTx(raw, kzg === undefined ? decodingCommon(chainId) : blobDecodingCommon(chainId, kzg));
}

/** Where a transaction sits, for its block fields (absent for pool transactions). */
export interface TxPlacement {
  blockHash: Uint8Array;
  blockNumber: bigint;
  index: number;
  /** The block's base fee: gasPrice of a 1559 tx is baseFee + effective tip. */
  baseFee?: bigint;
  /** The tx's receipt: its `from` saves a signature recovery, depositNonce is a deposit's nonce. */
  receipt?: StoredReceipt;
  /** The tx hash when known (saves hashing). */
  hash?: Uint8Array;
}

/** geth's RPCTransaction for a signed tx or a deposit; pool txs have null block fields. */
export function formatTransaction(
  tx: AnyTx,
  placement: TxPlacement | undefined,
  hash: Uint8Array,
  /** The sender of an unsigned transaction (eth_fillTransaction). */
  sender?: Uint8Array,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    blockHash: placement ? h(placement.blockHash) : null,
    blockNumber: placement ? q(placement.blockNumber) : null,
  };
  if (isDepositTx(tx)) {
    // op-geth internal/ethapi newRPCTransaction: deposits carry no signature and no fee.
    const receipt = placement?.receipt;
    out.from = h(tx.from);
    out.gas = q(tx.gas);
    out.gasPrice = "0x0";
    out.hash = h(hash);
    out.input = h(tx.data);
    out.nonce = q(receipt?.depositNonce ?? 0n);
    out.to = tx.to === null ? null : h(tx.to);
    out.transactionIndex = placement ? q(placement.index) : null;
    out.value = q(tx.value);
    out.type = q(DEPOSIT_TX_TYPE);
    out.v = "0x0";
    out.r = "0x0";
    out.s = "0x0";
    out.sourceHash = h(tx.sourceHash);
    // op-geth: a zero mint decodes as nil (rlp:"nil") and `mint` is omitempty.
    if (tx.mint !== 0n) out.mint = q(tx.mint);
    if (tx.isSystemTx) out.isSystemTx = true;
    if (receipt?.depositReceiptVersion !== undefined) {
      out.depositReceiptVersion = q(receipt.depositReceiptVersion);
    }
    return out;
  }
  const from = sender ?? placement?.receipt?.from ?? tx.getSenderAddress().bytes;
  out.from = h(from);
  out.gas = q(tx.gasLimit);
  const type = tx.type;
  if ("maxFeePerGas" in tx) {
    const fee = tx as TypedTransaction & { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
    let price = fee.maxFeePerGas;
    if (placement?.baseFee !== undefined) {
      const tip = fee.maxFeePerGas - placement.baseFee;
      price = placement.baseFee + (tip < fee.maxPriorityFeePerGas ? tip : fee.maxPriorityFeePerGas);
    }
    out.gasPrice = q(price);
    out.maxFeePerGas = q(fee.maxFeePerGas);
    out.maxPriorityFeePerGas = q(fee.maxPriorityFeePerGas);
  } else {
    out.gasPrice = q((tx as { gasPrice: bigint }).gasPrice);
  }
  out.hash = h(hash);
  out.input = h(tx.data);
  out.nonce = q(tx.nonce);
  out.to = tx.to === undefined ? null : h(tx.to.bytes);
  out.transactionIndex = placement ? q(placement.index) : null;
  out.value = q(tx.value);
  out.type = q(type);
  const v = tx.v ?? 0n;
  if (type === 0) {
    // EIP-155: v = chainId * 2 + 35 / 36; an unprotected tx (v 27/28) has no chain id.
    if (v >= 35n) out.chainId = q((v - 35n) / 2n);
  } else {
    const typed = tx as TypedTransaction & { chainId: bigint; accessList: [Uint8Array, Uint8Array[]][] };
    out.accessList = typed.accessList.map(([address, keys]) => ({
      address: h(address),
      storageKeys: keys.map(h),
    }));
    out.chainId = q(typed.chainId);
    if (type === 3) {
      const blob = tx as TypedTransaction & { maxFeePerBlobGas: bigint; blobVersionedHashes: Hex[] };
      out.maxFeePerBlobGas = q(blob.maxFeePerBlobGas);
      out.blobVersionedHashes = blob.blobVersionedHashes;
    }
    if (type === 4) {
      out.authorizationList = authorizationsJson(tx);
    }
  }
  out.v = q(v);
  out.r = q(tx.r ?? 0n);
  out.s = q(tx.s ?? 0n);
  if (type !== 0) out.yParity = q(v);
  return out;
}

function bytesToBig(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt(h(b));
}

/** One log in the wire shape of spec section 2.4 (with geth's blockTimestamp). */
export function formatLog(log: LogEntry): Record<string, unknown> {
  return {
    address: h(log.address),
    topics: log.topics.map(h),
    data: h(log.data),
    blockNumber: q(log.blockNumber),
    transactionHash: h(log.transactionHash),
    transactionIndex: q(log.transactionIndex),
    blockHash: h(log.blockHash),
    blockTimestamp: q(log.blockTimestamp),
    logIndex: q(log.logIndex),
    removed: log.removed,
  };
}

/**
 * A JSON array of {@link formatLog}'s objects (same fields, same order) as UTF-8 bytes, written
 * directly (rpc/json_bytes.ts): every value is a hex string or a boolean, so nothing needs escaping.
 */
export function logsJsonBytes(logs: readonly LogEntry[]): Uint8Array<ArrayBuffer> {
  const w = new JsonBytes(64 + logs.length * 640);
  w.ascii("[");
  for (let i = 0; i < logs.length; i++) {
    const log = logs[i];
    w.ascii(i === 0 ? '{"address":' : ',{"address":').hexString(log.address).ascii(',"topics":[');
    for (let t = 0; t < log.topics.length; t++) {
      if (t > 0) w.ascii(",");
      w.hexString(log.topics[t]);
    }
    w.ascii('],"data":').hexString(log.data)
      .ascii(',"blockNumber":').quantity(log.blockNumber)
      .ascii(',"transactionHash":').hexString(log.transactionHash)
      .ascii(',"transactionIndex":').quantity(log.transactionIndex)
      .ascii(',"blockHash":').hexString(log.blockHash)
      .ascii(',"blockTimestamp":').quantity(log.blockTimestamp)
      .ascii(',"logIndex":').quantity(log.logIndex)
      .ascii(log.removed ? ',"removed":true}' : ',"removed":false}');
  }
  return w.ascii("]").bytes();
}

/** The authorization list of an EIP-7702 transaction in its JSON form. */
export function authorizationsJson(tx: TypedTransaction): Record<string, Hex>[] {
  const auth = (tx as unknown as { authorizationList: Uint8Array[][] }).authorizationList;
  return auth.map(([chainId, address, nonce, yParity, r, s]) => ({
    chainId: q(bytesToBig(chainId)),
    address: h(address),
    nonce: q(bytesToBig(nonce)),
    yParity: q(bytesToBig(yParity)),
    r: q(bytesToBig(r)),
    s: q(bytesToBig(s)),
  }));
}

/** A receipt (spec 2.2 and op-geth's L1 fee and deposit fields). */
export function formatReceipt(
  r: StoredReceipt,
  block: { hash: Uint8Array; header: Header },
  index: number,
): Record<string, unknown> {
  const blockHash = h(block.hash);
  const blockNumber = q(block.header.number);
  const txHash = h(r.txHash);
  const txIndex = q(index);
  const timestamp = q(block.header.timestamp);
  const out: Record<string, unknown> = {
    blockHash,
    blockNumber,
    contractAddress: r.contractAddress === null ? null : h(r.contractAddress),
    cumulativeGasUsed: q(r.cumulativeGasUsed),
    effectiveGasPrice: q(r.effectiveGasPrice),
    from: h(r.from),
    gasUsed: q(r.gasUsed),
    logs: r.logs.map((log, i) => ({
      address: h(log.address),
      topics: log.topics.map(h),
      data: h(log.data),
      blockNumber,
      transactionHash: txHash,
      transactionIndex: txIndex,
      blockHash,
      blockTimestamp: timestamp,
      logIndex: q(r.logIndexStart + i),
      removed: false,
    })),
    logsBloom: h(r.logsBloom),
    status: q(r.status),
    to: r.to === null ? null : h(r.to),
    transactionHash: txHash,
    transactionIndex: txIndex,
    type: q(r.type),
  };
  if (r.blobGasUsed !== undefined) out.blobGasUsed = q(r.blobGasUsed);
  if (r.blobGasPrice !== undefined) out.blobGasPrice = q(r.blobGasPrice);
  if (r.type === DEPOSIT_TX_TYPE) {
    if (r.depositNonce !== undefined) out.depositNonce = q(r.depositNonce);
    if (r.depositReceiptVersion !== undefined) out.depositReceiptVersion = q(r.depositReceiptVersion);
    return out;
  }
  if (r.l1GasPrice !== undefined) out.l1GasPrice = q(r.l1GasPrice);
  if (r.l1GasUsed !== undefined) out.l1GasUsed = q(r.l1GasUsed);
  if (r.l1Fee !== undefined) out.l1Fee = q(r.l1Fee);
  if (r.l1FeeScalar !== undefined) out.l1FeeScalar = r.l1FeeScalar;
  if (r.l1BaseFeeScalar !== undefined) out.l1BaseFeeScalar = q(r.l1BaseFeeScalar);
  if (r.l1BlobBaseFee !== undefined) out.l1BlobBaseFee = q(r.l1BlobBaseFee);
  if (r.l1BlobBaseFeeScalar !== undefined) out.l1BlobBaseFeeScalar = q(r.l1BlobBaseFeeScalar);
  if (r.operatorFeeScalar !== undefined) out.operatorFeeScalar = q(r.operatorFeeScalar);
  if (r.operatorFeeConstant !== undefined) out.operatorFeeConstant = q(r.operatorFeeConstant);
  if (r.daFootprintGasScalar !== undefined) out.daFootprintGasScalar = q(r.daFootprintGasScalar);
  return out;
}

function lengthOfLength(n: number): number {
  let bytes = 0;
  while (n > 0) {
    bytes++;
    n = Math.floor(n / 256);
  }
  return bytes;
}

/** Bytes of an RLP list or string header for a payload of `n` bytes. */
function rlpPrefix(n: number): number {
  return n < 56 ? 1 : 1 + lengthOfLength(n);
}

/** The RLP size of the block: rlp([header, transactions, uncles, withdrawals?]) (geth Block.Size). */
export function blockSize(block: Block): number {
  let payload = encodeHeader(block.header).length;
  let txs = 0;
  for (const tx of block.transactions) {
    // Legacy txs are RLP lists embedded as they are; typed envelopes are RLP strings.
    txs += tx.length > 0 && tx[0] >= 0xc0 ? tx.length : tx.length + rlpPrefix(tx.length);
  }
  payload += txs + rlpPrefix(txs);
  payload += 1; // uncles: the empty list
  if (block.withdrawals !== undefined) payload += RLP.encode(block.withdrawals).length;
  return payload + rlpPrefix(payload);
}

/** The header fields of a block object (also the newHeads notification). */
export function formatHeader(header: Header, hash: Uint8Array): Record<string, unknown> {
  const out: Record<string, unknown> = {
    number: q(header.number),
    hash: h(hash),
    parentHash: h(header.parentHash),
    nonce: h(header.nonce),
    mixHash: h(header.mixHash),
    sha3Uncles: h(header.ommersHash),
    logsBloom: h(header.logsBloom),
    stateRoot: h(header.stateRoot),
    miner: h(header.coinbase),
    difficulty: q(header.difficulty),
    extraData: h(header.extraData),
    gasLimit: q(header.gasLimit),
    gasUsed: q(header.gasUsed),
    timestamp: q(header.timestamp),
    transactionsRoot: h(header.transactionsRoot),
    receiptsRoot: h(header.receiptsRoot),
  };
  if (header.baseFeePerGas !== undefined) out.baseFeePerGas = q(header.baseFeePerGas);
  if (header.withdrawalsRoot !== undefined) out.withdrawalsRoot = h(header.withdrawalsRoot);
  if (header.blobGasUsed !== undefined) out.blobGasUsed = q(header.blobGasUsed);
  if (header.excessBlobGas !== undefined) out.excessBlobGas = q(header.excessBlobGas);
  if (header.parentBeaconBlockRoot !== undefined) {
    out.parentBeaconBlockRoot = h(header.parentBeaconBlockRoot);
  }
  if (header.requestsHash !== undefined) out.requestsHash = h(header.requestsHash);
  return out;
}

/**
 * A block (spec 2.3): header fields, size, totalDifficulty, uncles, transactions (hashes, or
 * full objects when `fullTxs`), withdrawals when the block has them.
 */
export function formatBlock(
  block: Block,
  hash: Uint8Array,
  fullTxs: boolean,
  extra: { totalDifficulty?: bigint; receipts?: StoredReceipt[]; chainId: bigint },
): Record<string, unknown> {
  const out = formatHeader(block.header, hash);
  out.size = q(blockSize(block));
  out.totalDifficulty = q(extra.totalDifficulty ?? block.header.difficulty);
  out.uncles = [];
  const receipts = extra.receipts;
  out.transactions = block.transactions.map((raw, i) => {
    const receipt = receipts?.[i];
    if (!fullTxs) return receipt !== undefined ? h(receipt.txHash) : h(txHash(raw));
    const tx = decodeTx(raw, extra.chainId);
    return formatTransaction(
      tx,
      {
        blockHash: hash,
        blockNumber: block.header.number,
        index: i,
        baseFee: block.header.baseFeePerGas,
        receipt,
      },
      receipt?.txHash ?? txHash(raw),
    );
  });
  if (block.withdrawals !== undefined) out.withdrawals = block.withdrawals.map(formatWithdrawal);
  return out;
}

function formatWithdrawal(w: Uint8Array[]): Record<string, unknown> {
  const [index, validatorIndex, address, amount] = w;
  return {
    index: q(bytesToBig(index)),
    validatorIndex: q(bytesToBig(validatorIndex)),
    address: h(address),
    amount: q(bytesToBig(amount)),
  };
}

/** Hash of a transaction as it is in a block body. */
export function txHash(raw: Uint8Array): Uint8Array {
  return keccak256(raw);
}
