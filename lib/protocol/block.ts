/**
 * Execution-layer block header and block, as plain data (bigint and bytes inside).
 * Header RLP follows the yellow paper field order plus the post-London additions in fork order
 * (EIP-1559 baseFee, EIP-4895 withdrawalsRoot, EIP-4844 blobGasUsed/excessBlobGas,
 * EIP-4788 parentBeaconBlockRoot, EIP-7685 requestsHash). A field is present only if
 * every earlier optional field is present, as geth encodes it.
 */
import { RLP } from "@ethereumjs/rlp";
import { bigIntToBytes, hexToBytes } from "../common/bytes.ts";
import { keccak256 } from "../common/hash.ts";

export interface Header {
  parentHash: Uint8Array;
  ommersHash: Uint8Array;
  coinbase: Uint8Array;
  stateRoot: Uint8Array;
  transactionsRoot: Uint8Array;
  receiptsRoot: Uint8Array;
  logsBloom: Uint8Array;
  difficulty: bigint;
  number: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  timestamp: bigint;
  extraData: Uint8Array;
  mixHash: Uint8Array;
  nonce: Uint8Array;
  baseFeePerGas?: bigint;
  withdrawalsRoot?: Uint8Array;
  blobGasUsed?: bigint;
  excessBlobGas?: bigint;
  parentBeaconBlockRoot?: Uint8Array;
  requestsHash?: Uint8Array;
}

/** A block body holds encoded transactions (typed envelopes, as in the transactions trie). */
export interface Block {
  header: Header;
  transactions: Uint8Array[];
  /** Present from Canyon/Shanghai; always empty on OP chains. */
  withdrawals?: Uint8Array[][];
}

/** keccak256(rlp([])): the ommers hash of every post-merge block. */
export const EMPTY_OMMERS_HASH = keccak256(RLP.encode([]));
/** keccak256(rlp("")): root of an empty trie. */
export const EMPTY_TRIE_ROOT = keccak256(RLP.encode(new Uint8Array()));
/** sha256("") : EIP-7685 requests hash with no requests (Isthmus: always this). */
export const EMPTY_REQUESTS_HASH: Uint8Array = hexToBytes(
  "0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
);

const int = (v: bigint) => bigIntToBytes(v);

/** The RLP list items of a header, in consensus order. */
export function headerFields(h: Header): Uint8Array[] {
  const fields: Uint8Array[] = [
    h.parentHash,
    h.ommersHash,
    h.coinbase,
    h.stateRoot,
    h.transactionsRoot,
    h.receiptsRoot,
    h.logsBloom,
    int(h.difficulty),
    int(h.number),
    int(h.gasLimit),
    int(h.gasUsed),
    int(h.timestamp),
    h.extraData,
    h.mixHash,
    h.nonce,
  ];
  const optional: (Uint8Array | undefined)[] = [
    h.baseFeePerGas === undefined ? undefined : int(h.baseFeePerGas),
    h.withdrawalsRoot,
    h.blobGasUsed === undefined ? undefined : int(h.blobGasUsed),
    h.excessBlobGas === undefined ? undefined : int(h.excessBlobGas),
    h.parentBeaconBlockRoot,
    h.requestsHash,
  ];
  for (const f of optional) {
    if (f === undefined) break;
    fields.push(f);
  }
  return fields;
}

export function encodeHeader(h: Header): Uint8Array {
  return RLP.encode(headerFields(h));
}

export function hashHeader(h: Header): Uint8Array {
  return keccak256(encodeHeader(h));
}
