/**
 * Transaction receipts as the consensus layer encodes them (EIP-2718 typed envelopes).
 * Deposit receipts (type 0x7E) add depositNonce from Regolith and depositReceiptVersion
 * from Canyon to the consensus encoding (specs/protocol/deposits.md, "Deposit Receipt").
 */
import { rlpEncode, rlpEncodeTyped, type RlpInput } from "../common/rlp.ts";

export interface Log {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
}

export interface Receipt {
  type: number;
  /** 1 success, 0 failure (post-Byzantium status). */
  status: 0 | 1;
  cumulativeGasUsed: bigint;
  logsBloom: Uint8Array;
  logs: Log[];
  /** Deposit receipts only, from Regolith. */
  depositNonce?: bigint;
  /** Deposit receipts only, from Canyon: 1. */
  depositReceiptVersion?: bigint;
}

const STATUS_SUCCESS = new Uint8Array([1]);
const STATUS_FAILURE = new Uint8Array();

/** The consensus encoding: `rlp(fields)` for a legacy (type 0) receipt, else `type || rlp(fields)` (EIP-2718). */
export function encodeReceipt(r: Receipt): Uint8Array {
  const fields: RlpInput[] = [
    r.status === 1 ? STATUS_SUCCESS : STATUS_FAILURE,
    r.cumulativeGasUsed,
    r.logsBloom,
    r.logs.map((l) => [l.address, l.topics, l.data]),
  ];
  if (r.depositNonce !== undefined) {
    fields.push(r.depositNonce);
    if (r.depositReceiptVersion !== undefined) fields.push(r.depositReceiptVersion);
  }
  return r.type === 0 ? rlpEncode(fields) : rlpEncodeTyped(r.type, fields);
}
