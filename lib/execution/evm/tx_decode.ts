/**
 * Signed transactions from their consensus encoding (EIP-2718: a typed envelope `type || rlp(fields)`,
 * or a legacy bare RLP list), for block import: the same result as @ethereumjs/tx's
 * `createTxFromRLP(input, { common })`, decoded with keel's RLP codec (common/rlp.ts) instead of
 * @ethereumjs/rlp. The fields then go through the same @ethereumjs/tx `...FromBytesArray` constructors,
 * so every field check (leading zeros, field counts, chain id, value ranges, signature y-parity and
 * low s) is theirs, unchanged.
 *
 * rlpDecode returns subarray views of `input`. The constructors copy the scalar fields (nonce, fees,
 * to, value, data, signature: @ethereumjs/util `toBytes` is `Uint8Array.from`), but keep the access
 * list and the authorization list as decoded, so those stay views of `input`: @ethereumjs/tx only
 * reads them; the caller must not mutate `input` afterwards.
 *
 * Where the time went (scripts/bench_rlp.ts and a CPU profile, EIP-1559 transfers, shared txCommon):
 * with the RLP decode ~20x faster than @ethereumjs/rlp's, the rest was the @ethereumjs/tx constructor's
 * field conversion: about half of it @ethereumjs/util `toBytes` copying each field (`Uint8Array.from`),
 * ~13% `bytesToBigInt` (through hex strings), then `sharedConstructor` and `valueOverflowCheck`. So
 * the common case of a block, an EIP-1559 call without an access list, is built field by field after
 * the same checks (fastFeeMarketTx): 1,000 transfers decode in ~2.6 ms instead of ~13 ms (19.6 ms with
 * createTxFromRLP). Every other shape goes through the constructors.
 */
import type { Common } from "@ethereumjs/common";
import {
  create1559FeeMarketTxFromBytesArray,
  createAccessList2930TxFromBytesArray,
  createBlob4844TxFromBytesArray,
  createEOACode7702TxFromBytesArray,
  createLegacyTxFromBytesArray,
  FeeMarket1559Tx,
  paramsTx,
  type TxOptions,
  type TypedTransaction,
} from "@ethereumjs/tx";
import { Address, EthereumJSErrorWithoutCode } from "@ethereumjs/util";
import { bytesToHex } from "../../common/bytes.ts";
import { rlpDecode, type RlpValue } from "../../common/rlp.ts";

/** The field list a `...FromBytesArray` constructor takes. */
// deno-lint-ignore no-explicit-any
type Fields<F extends (values: any, opts?: TxOptions) => unknown> = Parameters<F>[0];

/** The decoded payload as the constructors take it; a byte string here is rejected as createTxFromRLP does. */
function fieldsOf<T>(payload: Uint8Array, notListMessage: string): T {
  const values: RlpValue = rlpDecode(payload);
  if (!Array.isArray(values)) throw EthereumJSErrorWithoutCode(notListMessage);
  // Nested lists where bytes belong are rejected by the constructors (validateNotArray), as upstream.
  return values as unknown as T;
}

/** A big-endian unsigned integer (the caller bounds the length): small ones without a hex string. */
function uint(b: Uint8Array): bigint {
  const n = b.length;
  if (n <= 6) {
    let x = 0;
    for (let i = 0; i < n; i++) x = x * 256 + b[i];
    return BigInt(x);
  }
  return BigInt(bytesToHex(b));
}

/** An RLP string holding a canonical integer of at most `max` bytes (no leading zero byte). */
function canonicalUint(v: RlpValue, max: number): v is Uint8Array {
  return v instanceof Uint8Array && v.length <= max && (v.length === 0 || v[0] !== 0);
}

const UINT256_MAX = (1n << 256n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;
const SECP256K1_N_DIV_2 = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
const FEE_MARKET_CAPABILITIES = [1559, 2718, 2930];

/**
 * The common case of block import, a signed EIP-1559 call without an access list, built field by
 * field as the FeeMarket1559Tx constructor builds it (same prototype, the same own properties in the
 * same order, frozen), after the same checks. `undefined` when any check fails or the transaction is
 * of another shape: the caller then runs the constructor, which throws its own error. The constructor
 * spends most of its time converting each field through hex strings and `Uint8Array.from`
 * (@ethereumjs/util toBytes); here the integers are read directly and only `data` is copied.
 * Tested against the constructor (tests/unit/execution/evm/tx_decode_test.ts).
 */
function fastFeeMarketTx(values: RlpValue[], opts: TxOptions, common: Common): TypedTransaction | undefined {
  if (values.length !== 12) return undefined;
  const [chainIdB, nonceB, tipB, feeB, gasB, toB, valueB, data, accessList, vB, rB, sB] = values;
  if (
    !(chainIdB instanceof Uint8Array) || chainIdB.length > 32 || !canonicalUint(nonceB, 8) ||
    !canonicalUint(tipB, 32) || !canonicalUint(feeB, 32) || !canonicalUint(gasB, 8) ||
    !(toB instanceof Uint8Array) || toB.length !== 20 || !canonicalUint(valueB, 32) ||
    !(data instanceof Uint8Array) || !Array.isArray(accessList) || accessList.length !== 0 ||
    !canonicalUint(vB, 1) || !canonicalUint(rB, 32) || rB.length === 0 || !canonicalUint(sB, 32) ||
    sB.length === 0
  ) return undefined;
  const chainId = common.chainId();
  const nonce = uint(nonceB);
  const gasLimit = uint(gasB);
  const maxFeePerGas = uint(feeB);
  const maxPriorityFeePerGas = uint(tipB);
  const v = uint(vB);
  const s = uint(sB);
  if (
    uint(chainIdB) !== chainId || nonce >= UINT64_MAX || gasLimit > UINT64_MAX ||
    gasLimit * maxFeePerGas > UINT256_MAX || maxFeePerGas < maxPriorityFeePerGas || v > 1n ||
    s > SECP256K1_N_DIV_2 || !common.isActivatedEIP(1559) || common.isActivatedEIP(7825) ||
    !common.gteHardfork("homestead")
  ) return undefined;
  // The constructor's assignments, in its order (FeeMarket1559Tx constructor, then sharedConstructor).
  const tx = Object.create(FeeMarket1559Tx.prototype);
  tx.type = 2;
  tx.cache = {};
  tx.activeCapabilities = [];
  tx.common = common.copy(); // sharedConstructor's getCommon (a shared txCommon returns itself)
  tx.common.updateParams(opts.params ?? paramsTx);
  tx.txOptions = opts;
  tx.to = new Address(toB.slice());
  tx.nonce = nonce;
  tx.gasLimit = gasLimit;
  tx.value = uint(valueB);
  tx.data = data.slice();
  tx.v = v;
  tx.r = uint(rB);
  tx.s = s;
  tx.chainId = chainId;
  tx.activeCapabilities = FEE_MARKET_CAPABILITIES.slice();
  tx.accessList = accessList;
  tx.maxFeePerGas = maxFeePerGas;
  tx.maxPriorityFeePerGas = maxPriorityFeePerGas;
  if (opts.freeze ?? true) Object.freeze(tx);
  return tx as TypedTransaction;
}

const NOT_A_LIST_TYPED = "Invalid serialized tx input: must be array";
const NOT_A_LIST_LEGACY = "Invalid serialized tx input. Must be array";

/**
 * Decodes a signed (or unsigned) transaction of type 0 (legacy, with or without EIP-155), 1 (EIP-2930),
 * 2 (EIP-1559), 3 (EIP-4844, canonical form without the blob sidecar) or 4 (EIP-7702).
 *
 * Produces what `createTxFromRLP(input, { ...options, common })` produces: the same class and fields,
 * hash(), serialize() and getSenderAddress(). It rejects the same inputs: transaction-level errors are
 * the very errors @ethereumjs/tx throws (same messages); malformed RLP (truncated, trailing bytes,
 * non-canonical) throws BaseError RLP_INVALID "Cannot decode RLP: <reason>" where @ethereumjs/rlp says
 * "invalid RLP: ...". Deposits (0x7E) are not decoded here (protocol/deposit_tx.ts): their type byte is
 * "unknown", as for createTxFromRLP.
 */
export function decodeSignedTx(
  input: Uint8Array,
  common: Common,
  options: Omit<TxOptions, "common"> = {},
): TypedTransaction {
  const opts: TxOptions = { ...options, common };
  // createTxFromRLP: a first byte above 0x7f (or none) starts a legacy RLP list (EIP-2718).
  if (!(input[0] <= 0x7f)) {
    return createLegacyTxFromBytesArray(
      fieldsOf<Fields<typeof createLegacyTxFromBytesArray>>(input, NOT_A_LIST_LEGACY),
      opts,
    );
  }
  const payload = input.subarray(1);
  switch (input[0]) {
    case 1:
      return createAccessList2930TxFromBytesArray(
        fieldsOf<Fields<typeof createAccessList2930TxFromBytesArray>>(payload, NOT_A_LIST_TYPED),
        opts,
      );
    case 2: {
      const values = fieldsOf<RlpValue[]>(payload, NOT_A_LIST_TYPED);
      return fastFeeMarketTx(values, opts, common) ??
        create1559FeeMarketTxFromBytesArray(
          values as unknown as Fields<typeof create1559FeeMarketTxFromBytesArray>,
          opts,
        );
    }
    case 3:
      // createBlob4844TxFromRLP checks for a KZG implementation before decoding.
      if (common.customCrypto?.kzg === undefined) {
        throw EthereumJSErrorWithoutCode(
          "A common object with customCrypto.kzg initialized required to instantiate a 4844 blob tx",
        );
      }
      return createBlob4844TxFromBytesArray(
        fieldsOf<Fields<typeof createBlob4844TxFromBytesArray>>(payload, NOT_A_LIST_TYPED),
        opts,
      );
    case 4:
      return createEOACode7702TxFromBytesArray(
        fieldsOf<Fields<typeof createEOACode7702TxFromBytesArray>>(payload, NOT_A_LIST_TYPED),
        opts,
      );
    default:
      throw EthereumJSErrorWithoutCode(`TypedTransaction with ID ${input[0]} unknown`);
  }
}
