/**
 * Pure transaction rules the pool applies: fee fields, effective tip, cost, intrinsic gas and
 * the EIP-7623 calldata floor. Numbers follow go-ethereum `core/state_transition.go`
 * (IntrinsicGas, FloorDataGas) and the EIPs cited at each constant.
 */
import { type Common, createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { paramsTx, type TypedTransaction } from "@ethereumjs/tx";
import type { KZG } from "@ethereumjs/util";
import { countZeroBytes, decodeSignedTx, txCommon } from "../evm/mod.ts";
import { txPoolError } from "./errors.ts";

/** Transaction type numbers (EIP-2718). */
export const TX_TYPE = {
  legacy: 0,
  accessList: 1, // EIP-2930
  feeMarket: 2, // EIP-1559
  blob: 3, // EIP-4844, refused on L2 (OP specs, exec-engine / ecotone: no blob transactions)
  setCode: 4, // EIP-7702, from Prague / Isthmus
  deposit: 0x7e, // OP deposit, never accepted from the pool (specs/protocol/deposits.md)
} as const;

/** Fork flags that change intrinsic gas. */
export interface GasRules {
  /** EIP-3860 initcode word cost and size limit (Shanghai; Canyon on OP). */
  isShanghai: boolean;
  /** EIP-7623 calldata floor and EIP-7702 (Prague; Isthmus on OP). */
  isPrague: boolean;
}

// Yellow paper / EIP-2028 (Istanbul) gas constants, as in geth params/protocol_params.go.
const TX_GAS = 21_000n;
const TX_GAS_CONTRACT_CREATION = 53_000n;
const TX_DATA_ZERO_GAS = 4n;
const TX_DATA_NON_ZERO_GAS = 16n; // EIP-2028
const INIT_CODE_WORD_GAS = 2n; // EIP-3860
const ACCESS_LIST_ADDRESS_GAS = 2_400n; // EIP-2930
const ACCESS_LIST_STORAGE_KEY_GAS = 1_900n; // EIP-2930
const PER_EMPTY_ACCOUNT_COST = 25_000n; // EIP-7702 PER_EMPTY_ACCOUNT_COST per authorization
const TX_TOKEN_PER_NON_ZERO_BYTE = 4n; // EIP-7623
const TOTAL_COST_FLOOR_PER_TOKEN = 10n; // EIP-7623
/** EIP-3860 MAX_INITCODE_SIZE = 2 * 24576. */
export const MAX_INITCODE_SIZE = 49_152;
const MAX_UINT64 = (1n << 64n) - 1n;
export { MAX_UINT64 };

/** The most a sender will pay per gas (`gasPrice` for legacy and 2930 txs). */
export function feeCap(tx: TypedTransaction): bigint {
  return "maxFeePerGas" in tx ? tx.maxFeePerGas : (tx as { gasPrice: bigint }).gasPrice;
}

/** The most a sender tips per gas (`gasPrice` for legacy and 2930 txs). */
export function tipCap(tx: TypedTransaction): bigint {
  return "maxPriorityFeePerGas" in tx ? tx.maxPriorityFeePerGas : (tx as { gasPrice: bigint }).gasPrice;
}

/**
 * The tip per gas the block producer earns at `baseFee`: min(tipCap, feeCap - baseFee).
 * Negative when the fee cap is below the base fee (the tx cannot be included).
 */
export function effectiveTip(tx: TypedTransaction, baseFee: bigint): bigint {
  const room = feeCap(tx) - baseFee;
  const tip = tipCap(tx);
  return room < tip ? room : tip;
}

/** EIP-4844 GAS_PER_BLOB. */
const GAS_PER_BLOB = 131_072n;

/**
 * value + gasLimit * feeCap (+ blob gas * maxFeePerBlobGas for a blob transaction): what the sender
 * must hold before any L1 fee (geth `tx.Cost()`).
 */
export function txCost(tx: TypedTransaction): bigint {
  let cost = tx.value + tx.gasLimit * feeCap(tx);
  if ("maxFeePerBlobGas" in tx && "blobVersionedHashes" in tx) {
    cost += GAS_PER_BLOB * BigInt(tx.blobVersionedHashes.length) * tx.maxFeePerBlobGas;
  }
  return cost;
}

function isCreation(tx: TypedTransaction): boolean {
  return tx.to === undefined;
}

/** Intrinsic gas (geth `core.IntrinsicGas` with Homestead and Istanbul active). */
export function intrinsicGas(tx: TypedTransaction, rules: GasRules): bigint {
  const data = tx.data;
  let gas = isCreation(tx) ? TX_GAS_CONTRACT_CREATION : TX_GAS;
  const zeros = countZeroBytes(data);
  gas += BigInt(zeros) * TX_DATA_ZERO_GAS + BigInt(data.length - zeros) * TX_DATA_NON_ZERO_GAS;
  if (isCreation(tx) && rules.isShanghai) {
    gas += BigInt(Math.ceil(data.length / 32)) * INIT_CODE_WORD_GAS;
  }
  if ("accessList" in tx) {
    for (const [, keys] of tx.accessList) {
      gas += ACCESS_LIST_ADDRESS_GAS + BigInt(keys.length) * ACCESS_LIST_STORAGE_KEY_GAS;
    }
  }
  if ("authorizationList" in tx) {
    gas += BigInt(tx.authorizationList.length) * PER_EMPTY_ACCOUNT_COST;
  }
  return gas;
}

/** EIP-7623 floor: 21000 + 10 * (zero bytes + 4 * non-zero bytes). */
export function floorDataGas(tx: TypedTransaction): bigint {
  const zeros = countZeroBytes(tx.data);
  const tokens = BigInt(zeros) + BigInt(tx.data.length - zeros) * TX_TOKEN_PER_NON_ZERO_BYTE;
  return TX_GAS + tokens * TOTAL_COST_FLOOR_PER_TOKEN;
}

const commonCache = new Map<bigint, Common>();
const completed = new WeakSet<Common>();

/**
 * `common` as a shared decoding view (evm `txCommon`): every @ethereumjs tx constructor otherwise
 * copies its Common and re-merges the tx parameters, which costs more than the rest of the pool's
 * work per transaction with a fully configured Common. The tx parameters are merged into `common`
 * once, so the view's no-op `updateParams` loses nothing. The view refuses hardfork changes; the
 * block builder re-decodes a transaction pooled under another fork (tx_runner `rebase`).
 */
export function sharedTxCommon(common: Common): Common {
  if (!completed.has(common)) {
    common.updateParams(paramsTx);
    completed.add(common);
  }
  return txCommon(common);
}

/**
 * A Common under which every pool-acceptable type decodes (Prague rules, the given chain id), as a
 * shared view ({@link sharedTxCommon}). Fork gating is the pool's own check (`allowedTypes`,
 * {@link GasRules}).
 */
export function decodingCommon(chainId: bigint): Common {
  let common = commonCache.get(chainId);
  if (common === undefined) {
    common = sharedTxCommon(
      createCustomCommon({ chainId: Number(chainId) }, Mainnet, { hardfork: Hardfork.Prague }),
    );
    commonCache.set(chainId, common);
  }
  return common;
}

const blobCommonCache = new Map<string, { kzg: KZG; common: Common }>();

/**
 * {@link decodingCommon} with a KZG implementation: @ethereumjs refuses to instantiate any blob
 * transaction under a Common without `customCrypto.kzg`. The block builder re-decodes such
 * transactions under the block's rules.
 */
export function blobDecodingCommon(chainId: bigint, kzg: KZG): Common {
  const key = chainId.toString();
  let cached = blobCommonCache.get(key);
  if (cached === undefined || cached.kzg !== kzg) {
    const common = sharedTxCommon(
      createCustomCommon({ chainId: Number(chainId) }, Mainnet, {
        hardfork: Hardfork.Prague,
        customCrypto: { kzg },
      }),
    );
    cached = { kzg, common };
    blobCommonCache.set(key, cached);
  }
  return cached.common;
}

/**
 * Decode raw transaction bytes (the eth_sendRawTransaction payload) under `common`.
 * Deposits (0x7E), unknown and disallowed types are refused before decoding; a chain id that is
 * not `common`'s is refused with geth's "invalid sender: invalid chain id for signer".
 */
export function decodeRawTransaction(
  raw: Uint8Array,
  common: Common,
  allowedTypes: ReadonlySet<number>,
): TypedTransaction {
  if (raw.length === 0) throw txPoolError("INVALID_TRANSACTION", "typed transaction too short");
  const first = raw[0];
  if (first < 0x80) {
    if (!allowedTypes.has(first)) {
      throw txPoolError("TX_TYPE_NOT_SUPPORTED", undefined, { type: first });
    }
  } else if (first < 0xc0) {
    throw txPoolError("INVALID_TRANSACTION", "expected input list for types.LegacyTx");
  } else if (!allowedTypes.has(TX_TYPE.legacy)) {
    throw txPoolError("TX_TYPE_NOT_SUPPORTED", undefined, { type: 0 });
  }
  try {
    return decodeSignedTx(raw, common, { allowUnlimitedInitCodeSize: true });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (/chain ID|chain id|EIP155/.test(message)) {
      throw txPoolError("INVALID_SENDER", "invalid chain id for signer", { reason: message }, err);
    }
    if (message.includes("maxFeePerGas cannot be less than maxPriorityFeePerGas")) {
      throw txPoolError("TIP_ABOVE_FEE_CAP", undefined, { reason: message }, err);
    }
    if (message.includes("authorization list is empty")) {
      // @ethereumjs refuses it while decoding; geth's pool says it in its own words (validation.go).
      throw txPoolError("EMPTY_AUTHORIZATIONS", undefined, { reason: message }, err);
    }
    if (/[Ss]ignature|v = /.test(message)) {
      throw txPoolError("INVALID_SENDER", "invalid transaction v, r, s values", { reason: message }, err);
    }
    throw txPoolError("INVALID_TRANSACTION", message, {}, err);
  }
}
