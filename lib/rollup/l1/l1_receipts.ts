/**
 * L1 receipts as the L1 node's JSON-RPC serves them, by the method its kind prefers (`--l1.rpckind`), and
 * their consensus encodings, whose ordered trie root must be the block header's receiptsRoot.
 *
 * The methods and their order of preference per provider kind are op-node's (op-service/sources
 * receipts_rpc.go, `AvailableReceiptsFetchingMethods` and `PickBestReceiptsFetchingMethod`): a method the
 * endpoint refuses as unknown or with invalid parameters (`unusableMethod` in op-service/sources/types.go)
 * is set aside and the next one tried, down to `eth_getTransactionReceipt` per transaction.
 *
 * A receipt's consensus encoding (EIP-2718): `rlp([statusOrPostState, cumulativeGasUsed, logsBloom, logs])`,
 * prefixed with its type byte unless legacy. debug_getRawReceipts returns exactly these encodings; the JSON
 * methods return the fields, which are encoded again.
 */
import { fromQuantity, hexToBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import { rlpDecode, rlpEncode, rlpEncodeTyped, type RlpValue } from "../../common/rlp.ts";
import type { L1Log, L1Receipt } from "../../protocol/deposit_event.ts";
import { encodeReceipt, type Log } from "../../protocol/receipt.ts";

/** A receipt object of the Ethereum JSON-RPC (hex strings); Byzantium and later have `status`, earlier `root`. */
export interface RpcReceipt {
  type?: string;
  status?: string;
  root?: string;
  cumulativeGasUsed?: string;
  logsBloom?: string;
  blockHash?: string;
  blockNumber?: string;
  transactionIndex?: string;
  logs: { address: string; topics: string[]; data: string }[];
}

/** The receipt-fetching methods, in op-node's order of preference (cheapest first on hosted providers). */
export const RECEIPTS_METHODS = [
  "alchemy_getTransactionReceipts",
  "debug_getRawReceipts",
  "erigon_getBlockReceiptsByBlockHash",
  "eth_getBlockReceipts",
  "parity_getBlockReceipts",
  "eth_getTransactionReceipt",
] as const;
export type ReceiptsMethod = typeof RECEIPTS_METHODS[number];

/** The methods an endpoint of `kind` may serve (op-node `AvailableReceiptsFetchingMethods`); unknown kinds: per transaction. */
export function receiptsMethodsOf(kind: string): Set<ReceiptsMethod> {
  const m = (...ms: ReceiptsMethod[]) => new Set<ReceiptsMethod>([...ms, "eth_getTransactionReceipt"]);
  switch (kind) {
    case "alchemy":
      return m("alchemy_getTransactionReceipts", "eth_getBlockReceipts");
    case "quicknode":
      return m("debug_getRawReceipts", "eth_getBlockReceipts");
    case "parity":
    case "nethermind":
      return m("parity_getBlockReceipts");
    case "debug_geth":
      return m("debug_getRawReceipts");
    case "erigon":
      return m("erigon_getBlockReceiptsByBlockHash");
    case "any":
      return m(
        "alchemy_getTransactionReceipts",
        "eth_getBlockReceipts",
        "debug_getRawReceipts",
        "erigon_getBlockReceiptsByBlockHash",
        "parity_getBlockReceipts",
      );
    case "standard":
      return m("eth_getBlockReceipts");
    default: // basic, infura (no block-wide method there, op-node says) and anything else
      return m();
  }
}

/**
 * The method to fetch the receipts of a block of `txCount` transactions with, among those still
 * `available` (op-node `PickBestReceiptsFetchingMethod`): Alchemy and QuickNode bill the block-wide methods
 * at a flat price, so below a transaction count per-transaction calls are cheaper there.
 */
export function pickReceiptsMethod(
  kind: string,
  available: ReadonlySet<ReceiptsMethod>,
  txCount: number,
): ReceiptsMethod {
  if (kind === "alchemy") {
    // 250 and 500 compute units a block against 15 a transaction.
    if (available.has("alchemy_getTransactionReceipts") && txCount > Math.floor(250 / 15)) {
      return "alchemy_getTransactionReceipts";
    }
    if (available.has("eth_getBlockReceipts") && txCount > Math.floor(500 / 15)) {
      return "eth_getBlockReceipts";
    }
    return "eth_getTransactionReceipt";
  }
  if (kind === "quicknode") {
    if (available.has("debug_getRawReceipts")) return "debug_getRawReceipts";
    // 59 credits a block against 2 a transaction.
    if (available.has("eth_getBlockReceipts") && txCount > Math.floor(59 / 2)) return "eth_getBlockReceipts";
    return "eth_getTransactionReceipt";
  }
  for (const m of RECEIPTS_METHODS) if (available.has(m)) return m;
  return "eth_getTransactionReceipt";
}

/**
 * True when an RPC error says the endpoint cannot serve a method (op-node `unusableMethod`): invalid
 * request, method not found or invalid params, or a provider's words for them.
 */
export function isUnusableMethodError(e: unknown): boolean {
  if (!(e instanceof BaseError)) return false;
  if (e.code !== "RPC_ERROR") return false;
  const code = e.meta.code;
  if (code === -32600 || code === -32601 || code === -32602) return true;
  const text = e.message.toLowerCase();
  return [
    "unsupported method",
    "unknown method",
    "invalid param",
    "is not available",
    "rpc method is not whitelisted",
  ]
    .some((s) => text.includes(s));
}

/** A receipt's fields as fetched: what derivation reads, and the consensus encoding to check against the root. */
export interface FetchedReceipt {
  receipt: L1Receipt;
  /** The EIP-2718 consensus encoding; absent when the RPC is trusted (not computed). */
  encoded?: Uint8Array;
  /** JSON receipts only: the block and position the RPC says the receipt has. */
  rpc?: { blockHash?: string; blockNumber?: string; transactionIndex?: string };
}

function invalidReceipt(what: string, i: number, reason: string): BaseError {
  return new BaseError("L1_INVALID", `Cannot trust the receipts of L1 block ${what}: receipt ${i} ${reason}`);
}

/**
 * A JSON receipt in internal form; with `encode`, also its consensus encoding (the fields it needs,
 * cumulativeGasUsed and logsBloom, must be there).
 */
export function parseRpcReceipt(r: RpcReceipt, encode: boolean, what: string, i: number): FetchedReceipt {
  const logs: Log[] = r.logs.map((l) => ({
    address: hexToBytes(l.address),
    topics: l.topics.map(hexToBytes),
    data: hexToBytes(l.data),
  }));
  const status = r.status !== undefined && fromQuantity(r.status) === 1n ? 1 : 0;
  const out: FetchedReceipt = {
    receipt: { status, logs },
    rpc: { blockHash: r.blockHash, blockNumber: r.blockNumber, transactionIndex: r.transactionIndex },
  };
  if (!encode) return out;
  if (r.cumulativeGasUsed === undefined || r.logsBloom === undefined) {
    throw invalidReceipt(what, i, "lacks cumulativeGasUsed or logsBloom");
  }
  const type = r.type === undefined ? 0 : Number(fromQuantity(r.type));
  if (type > 0x7f) throw invalidReceipt(what, i, `has type ${type}`);
  const cumulativeGasUsed = fromQuantity(r.cumulativeGasUsed);
  const logsBloom = hexToBytes(r.logsBloom);
  if (r.status === undefined && r.root !== undefined) {
    // Before Byzantium: the post-transaction state root in place of the status.
    const fields = [
      hexToBytes(r.root),
      cumulativeGasUsed,
      logsBloom,
      logs.map((l) => [l.address, l.topics, l.data]),
    ];
    out.encoded = type === 0 ? rlpEncode(fields) : rlpEncodeTyped(type, fields);
  } else {
    if (r.status === undefined || fromQuantity(r.status) > 1n) {
      throw invalidReceipt(what, i, "has no valid status");
    }
    out.encoded = encodeReceipt({ type, status, cumulativeGasUsed, logsBloom, logs });
  }
  return out;
}

function bytesOf(v: RlpValue | undefined, what: string, i: number, field: string): Uint8Array {
  if (!(v instanceof Uint8Array)) throw invalidReceipt(what, i, `has a malformed ${field}`);
  return v;
}

function listOf(v: RlpValue | undefined, what: string, i: number, field: string): RlpValue[] {
  if (!Array.isArray(v)) throw invalidReceipt(what, i, `has a malformed ${field}`);
  return v;
}

/** A receipt from its consensus encoding (debug_getRawReceipts): type byte (unless legacy) and RLP. */
export function decodeRawReceipt(raw: Uint8Array, what: string, i: number): FetchedReceipt {
  if (raw.length === 0) throw invalidReceipt(what, i, "is empty");
  const typed = raw[0] <= 0x7f;
  let fields: RlpValue[];
  try {
    fields = listOf(rlpDecode(typed ? raw.subarray(1) : raw), what, i, "encoding");
  } catch (e) {
    if (e instanceof BaseError && e.code === "L1_INVALID") throw e;
    throw invalidReceipt(what, i, `does not decode: ${(e as Error).message}`);
  }
  if (fields.length !== 4) throw invalidReceipt(what, i, `has ${fields.length} fields, not 4`);
  const statusOrRoot = bytesOf(fields[0], what, i, "status");
  bytesOf(fields[1], what, i, "cumulativeGasUsed");
  if (bytesOf(fields[2], what, i, "logsBloom").length !== 256) {
    throw invalidReceipt(what, i, "has a malformed logsBloom");
  }
  const logs = listOf(fields[3], what, i, "logs").map((l): L1Log => {
    const [address, topics, data] = listOf(l, what, i, "log");
    return {
      address: bytesOf(address, what, i, "log address"),
      topics: listOf(topics, what, i, "log topics").map((t) => bytesOf(t, what, i, "log topic")),
      data: bytesOf(data, what, i, "log data"),
    };
  });
  // Status 1 is the byte 0x01; failure the empty string; a 32-byte post-state root before Byzantium.
  const status = statusOrRoot.length === 1 && statusOrRoot[0] === 1 ? 1 : 0;
  return { receipt: { status, logs }, encoded: raw };
}
