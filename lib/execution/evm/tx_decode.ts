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
 * Where the time goes (scripts/bench_rlp.ts and a CPU profile, EIP-1559 transfers, shared txCommon):
 * the RLP decode is ~20x faster than @ethereumjs/rlp's and now ~5% of decodeSignedTx (1.7x faster than
 * createTxFromRLP overall); the rest is the @ethereumjs/tx constructor's validation: about half of all
 * the time in @ethereumjs/util `toBytes` copying each field (`Uint8Array.from`), ~13% `bytesToBigInt`
 * (through hex strings), then `sharedConstructor` and `valueOverflowCheck`.
 */
import type { Common } from "@ethereumjs/common";
import {
  create1559FeeMarketTxFromBytesArray,
  createAccessList2930TxFromBytesArray,
  createBlob4844TxFromBytesArray,
  createEOACode7702TxFromBytesArray,
  createLegacyTxFromBytesArray,
  type TxOptions,
  type TypedTransaction,
} from "@ethereumjs/tx";
import { EthereumJSErrorWithoutCode } from "@ethereumjs/util";
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
    case 2:
      return create1559FeeMarketTxFromBytesArray(
        fieldsOf<Fields<typeof create1559FeeMarketTxFromBytesArray>>(payload, NOT_A_LIST_TYPED),
        opts,
      );
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
