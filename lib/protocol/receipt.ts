/**
 * Transaction receipts as the consensus layer encodes them (EIP-2718 typed envelopes).
 * Deposit receipts (type 0x7E) add depositNonce from Regolith and depositReceiptVersion
 * from Canyon to the consensus encoding (specs/protocol/deposits.md, "Deposit Receipt").
 */
import { bigIntToBytes } from "../common/bytes.ts";
import { rlpEncode } from "../common/rlp.ts";

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

export function encodeReceipt(r: Receipt): Uint8Array {
  const fields: (Uint8Array | Uint8Array[] | (Uint8Array | Uint8Array[])[][])[] = [
    r.status === 1 ? new Uint8Array([1]) : new Uint8Array(),
    bigIntToBytes(r.cumulativeGasUsed),
    r.logsBloom,
    r.logs.map((l) => [l.address, l.topics, l.data]),
  ];
  if (r.depositNonce !== undefined) {
    fields.push(bigIntToBytes(r.depositNonce));
    if (r.depositReceiptVersion !== undefined) fields.push(bigIntToBytes(r.depositReceiptVersion));
  }
  const body = rlpEncode(fields);
  if (r.type === 0) return body;
  const out = new Uint8Array(body.length + 1);
  out[0] = r.type;
  out.set(body, 1);
  return out;
}
