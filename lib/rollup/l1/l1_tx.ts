/**
 * L1 transactions as an L1 node's JSON-RPC returns them (eth_getBlockByHash with full transactions),
 * and their verified sender: the derivation pipeline accepts batcher data only from the batcher
 * address (derivation.md "Batcher Transaction Format": "the `from` address matches the batch-sender
 * address"), so the sender is recovered from the signature (as op-node's l1Signer.Sender), not taken
 * from the RPC's `from`. The fields are re-encoded as the signed transaction, whose hash must be the
 * RPC's `hash`: the fields are then exactly the transaction's.
 *
 * Types 0 (with or without EIP-155), 1 (EIP-2930), 2 (EIP-1559), 3 (EIP-4844) and 4 (EIP-7702).
 * Signatures follow the Homestead rules (r and s in range, s at most n/2).
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex, equalBytes, fromQuantity, hexToBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import { keccak256 } from "../../common/hash.ts";
import { rlpEncode, type RlpInput } from "../../common/rlp.ts";

/** The fields of a transaction object of the Ethereum JSON-RPC (quantities and data as hex strings). */
export interface RpcTransaction {
  hash: string;
  type?: string;
  from?: string;
  to?: string | null;
  nonce: string;
  gas: string;
  value: string;
  input: string;
  gasPrice?: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
  maxFeePerBlobGas?: string;
  chainId?: string;
  accessList?: { address: string; storageKeys: string[] }[];
  blobVersionedHashes?: string[];
  authorizationList?: {
    chainId: string;
    address: string;
    nonce: string;
    yParity?: string;
    v?: string;
    r: string;
    s: string;
  }[];
  v?: string;
  yParity?: string;
  r: string;
  s: string;
}

/** An L1 transaction in internal form, with its verified sender. */
export interface L1Tx {
  hash: Uint8Array;
  type: number;
  from: Uint8Array;
  to: Uint8Array | null;
  input: Uint8Array;
  /** EIP-4844 transactions only. */
  blobVersionedHashes: Uint8Array[];
}

const N = secp256k1.Point.CURVE().n;

function bad(hash: string, message: string): BaseError {
  return new BaseError("L1_TX_INVALID", `Cannot verify L1 transaction ${hash}: ${message}`);
}

function q(v: string | undefined, field: string, hash: string): bigint {
  if (v === undefined) throw bad(hash, `${field} is missing`);
  return fromQuantity(v);
}

function accessList(list: RpcTransaction["accessList"]): RlpInput {
  return (list ?? []).map((e) => [hexToBytes(e.address), e.storageKeys.map(hexToBytes)]);
}

/**
 * A signed transaction's encodings from its RPC fields: the signed (consensus) encoding, the payload its
 * signature signs, and the recovery bit. Throws L1_TX_INVALID for fields that cannot be a transaction.
 */
export function encodeRpcTransaction(
  tx: RpcTransaction,
): { signed: Uint8Array; unsigned: Uint8Array; recovery: number } {
  const hash = tx.hash;
  const type = tx.type === undefined ? 0 : Number(fromQuantity(tx.type));
  const to = tx.to === null || tx.to === undefined ? new Uint8Array() : hexToBytes(tx.to);
  const nonce = q(tx.nonce, "nonce", hash);
  const gas = q(tx.gas, "gas", hash);
  const value = q(tx.value, "value", hash);
  const input = hexToBytes(tx.input);
  const r = q(tx.r, "r", hash);
  const s = q(tx.s, "s", hash);
  let unsigned: Uint8Array;
  let signed: Uint8Array;
  let recovery: number;
  if (type === 0) {
    const v = q(tx.v, "v", hash);
    const gasPrice = q(tx.gasPrice, "gasPrice", hash);
    const base: RlpInput[] = [nonce, gasPrice, gas, to, value, input];
    if (v === 27n || v === 28n) {
      unsigned = rlpEncode(base);
      recovery = Number(v - 27n);
    } else if (v >= 35n) {
      const chainId = (v - 35n) / 2n;
      unsigned = rlpEncode([...base, chainId, 0n, 0n]);
      recovery = Number(v - 35n - 2n * chainId);
    } else throw bad(hash, `legacy v ${v} is neither 27/28 nor EIP-155`);
    signed = rlpEncode([...base, v, r, s]);
  } else {
    const chainId = q(tx.chainId, "chainId", hash);
    const yParity = tx.yParity !== undefined ? q(tx.yParity, "yParity", hash) : q(tx.v, "v", hash);
    if (yParity > 1n) throw bad(hash, `y-parity ${yParity}`);
    recovery = Number(yParity);
    let fields: RlpInput[];
    if (type === 1) {
      fields = [
        chainId,
        nonce,
        q(tx.gasPrice, "gasPrice", hash),
        gas,
        to,
        value,
        input,
        accessList(tx.accessList),
      ];
    } else if (type === 2 || type === 3 || type === 4) {
      fields = [
        chainId,
        nonce,
        q(tx.maxPriorityFeePerGas, "maxPriorityFeePerGas", hash),
        q(tx.maxFeePerGas, "maxFeePerGas", hash),
        gas,
        to,
        value,
        input,
        accessList(tx.accessList),
      ];
      if (type === 3) {
        if (tx.to === null || tx.to === undefined) {
          throw bad(hash, "a blob transaction must have a recipient");
        }
        fields.push(
          q(tx.maxFeePerBlobGas, "maxFeePerBlobGas", hash),
          (tx.blobVersionedHashes ?? []).map(hexToBytes),
        );
      }
      if (type === 4) {
        fields.push((tx.authorizationList ?? []).map((a) => [
          fromQuantity(a.chainId),
          hexToBytes(a.address),
          fromQuantity(a.nonce),
          fromQuantity(a.yParity ?? a.v ?? "0x0"),
          fromQuantity(a.r),
          fromQuantity(a.s),
        ]));
      }
    } else throw bad(hash, `unknown transaction type ${type}`);
    unsigned = new Uint8Array([type, ...rlpEncode(fields)]);
    signed = new Uint8Array([type, ...rlpEncode([...fields, yParity, r, s])]);
  }
  return { signed, unsigned, recovery };
}

/** The sender of a signed transaction, checking that the fields hash to `tx.hash`. */
export function verifyL1Tx(tx: RpcTransaction): L1Tx {
  return verifyL1TxEncoded(tx).tx;
}

/**
 * verifyL1Tx, with the transaction's consensus (EIP-2718) encoding: the value of its entry in the block's
 * transactions trie (a blob transaction without its sidecar).
 */
export function verifyL1TxEncoded(tx: RpcTransaction): { tx: L1Tx; encoded: Uint8Array } {
  const hash = tx.hash;
  const type = tx.type === undefined ? 0 : Number(fromQuantity(tx.type));
  const input = hexToBytes(tx.input);
  const r = q(tx.r, "r", hash);
  const s = q(tx.s, "s", hash);
  const { signed, unsigned, recovery } = encodeRpcTransaction(tx);
  if (bytesToHex(keccak256(signed)) !== hash.toLowerCase()) {
    throw bad(hash, "its fields do not hash to its hash");
  }
  if (r === 0n || s === 0n || r >= N || s >= N) throw bad(hash, "signature values out of range");
  if (s > N / 2n) throw bad(hash, "signature s above n/2");
  const sig = new Uint8Array(65);
  sig[0] = recovery;
  sig.set(hexToBytes(`0x${r.toString(16).padStart(64, "0")}`), 1);
  sig.set(hexToBytes(`0x${s.toString(16).padStart(64, "0")}`), 33);
  let pub: Uint8Array;
  try {
    const compressed = secp256k1.recoverPublicKey(sig, keccak256(unsigned), { prehash: false });
    pub = secp256k1.Point.fromBytes(compressed).toBytes(false);
  } catch (e) {
    throw bad(hash, `no public key recovers from the signature (${(e as Error).message})`);
  }
  const from = keccak256(pub.subarray(1)).slice(12);
  if (tx.from !== undefined && !equalBytes(from, hexToBytes(tx.from))) {
    throw bad(hash, `signed by ${bytesToHex(from)}, the RPC says ${tx.from}`);
  }
  return {
    tx: {
      hash: hexToBytes(hash),
      type,
      from,
      to: tx.to === null || tx.to === undefined ? null : hexToBytes(tx.to),
      input,
      blobVersionedHashes: (tx.blobVersionedHashes ?? []).map(hexToBytes),
    },
    encoded: signed,
  };
}
