/** Shared fixtures of the txpool tests: real keys, real signed transactions, a small chain state. */
import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import {
  createAccessList2930Tx,
  createBlob4844Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  type TypedTransaction,
} from "@ethereumjs/tx";
import { Address, eoaCode7702SignAuthorization, privateToAddress } from "@ethereumjs/util";
import { bytesToHex, type Hex, hexToBytes } from "../../../../lib/common/bytes.ts";
import { keccak256 } from "../../../../lib/common/hash.ts";
import { blobNetworkEncoding, type PoolHead, type TxPoolDeps } from "../../../../lib/execution/txpool/mod.ts";
import {
  type BlobsBundle,
  blobSidecar,
  kzgToVersionedHash,
  loadKzg,
} from "../../../../lib/execution/evm/mod.ts";

export const CHAIN_ID = 901n;
export const GWEI = 1_000_000_000n;
export const ETH = 10n ** 18n;
export const common = createCustomCommon({ chainId: Number(CHAIN_ID) }, Mainnet, {
  hardfork: Hardfork.Prague,
});
const homestead = createCustomCommon({ chainId: Number(CHAIN_ID) }, Mainnet, {
  hardfork: Hardfork.Homestead,
});
const otherChain = createCustomCommon({ chainId: 10 }, Mainnet, { hardfork: Hardfork.Prague });

/** Account 0 of the test mnemonic, then keys derived from it by hashing. */
export const KEYS: Uint8Array[] = [
  hexToBytes("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"),
];
for (let i = 1; i < 120; i++) KEYS.push(keccak256(KEYS[i - 1]));
export const ADDRESSES: Uint8Array[] = KEYS.map((k) => privateToAddress(k));
export const addressHex = (i: number): Hex => bytesToHex(ADDRESSES[i]);

export const TO = new Address(hexToBytes("0x70997970c51812dc3a010c7d01b50e0d17dc79c8"));

export interface TxSpec {
  key?: number;
  nonce?: bigint;
  tip?: bigint;
  feeCap?: bigint;
  gas?: bigint;
  value?: bigint;
  data?: Uint8Array;
  to?: Address | null;
}

/** A signed EIP-1559 transfer. */
export function tx1559(spec: TxSpec = {}): TypedTransaction {
  return createFeeMarket1559Tx({
    chainId: CHAIN_ID,
    nonce: spec.nonce ?? 0n,
    maxPriorityFeePerGas: spec.tip ?? GWEI,
    maxFeePerGas: spec.feeCap ?? (spec.tip !== undefined && spec.tip > 10n * GWEI ? spec.tip : 10n * GWEI),
    gasLimit: spec.gas ?? 21_000n,
    to: spec.to === null ? undefined : spec.to ?? TO,
    value: spec.value ?? 1n,
    data: spec.data ?? new Uint8Array(),
  }, { common, allowUnlimitedInitCodeSize: true }).sign(KEYS[spec.key ?? 0]);
}

/** A signed EIP-155 legacy transfer at `gasPrice`. */
export function txLegacy(spec: TxSpec & { gasPrice?: bigint; unprotected?: boolean; chain?: "other" } = {}) {
  const c = spec.unprotected ? homestead : spec.chain === "other" ? otherChain : common;
  return createLegacyTx({
    nonce: spec.nonce ?? 0n,
    gasPrice: spec.gasPrice ?? 2n * GWEI,
    gasLimit: spec.gas ?? 21_000n,
    to: TO,
    value: spec.value ?? 1n,
    data: spec.data ?? new Uint8Array(),
  }, { common: c }).sign(KEYS[spec.key ?? 0]);
}

/** A signed EIP-2930 transaction with an access list. */
export function tx2930(spec: TxSpec & { gasPrice?: bigint } = {}) {
  return createAccessList2930Tx({
    chainId: CHAIN_ID,
    nonce: spec.nonce ?? 0n,
    gasPrice: spec.gasPrice ?? 2n * GWEI,
    gasLimit: spec.gas ?? 30_000n,
    to: TO,
    accessList: [{ address: bytesToHex(TO.bytes), storageKeys: [bytesToHex(new Uint8Array(32))] }],
  }, { common }).sign(KEYS[spec.key ?? 0]);
}

/** A signed EIP-7702 transaction carrying `auths` authorizations (signed by key 1). */
export function tx7702(spec: TxSpec & { auths?: number } = {}) {
  const authorizationList = [];
  for (let i = 0; i < (spec.auths ?? 1); i++) {
    authorizationList.push(
      eoaCode7702SignAuthorization(
        { chainId: "0x385", address: bytesToHex(TO.bytes), nonce: `0x${i}` },
        KEYS[1],
      ),
    );
  }
  return createEOACode7702Tx({
    chainId: CHAIN_ID,
    nonce: spec.nonce ?? 0n,
    maxPriorityFeePerGas: spec.tip ?? GWEI,
    maxFeePerGas: spec.feeCap ?? 10n * GWEI,
    gasLimit: spec.gas ?? 100_000n,
    to: TO,
    authorizationList,
  }, { common }).sign(KEYS[spec.key ?? 0]);
}

/** A transaction signed for another chain id. */
export function txOtherChain(): TypedTransaction {
  return createFeeMarket1559Tx({
    chainId: 10n,
    maxPriorityFeePerGas: GWEI,
    maxFeePerGas: 10n * GWEI,
    gasLimit: 21_000n,
    to: TO,
  }, { common: otherChain }).sign(KEYS[0]);
}

/** A small in-memory chain: account states, a mutable head, an L1 fee, a settable clock. */
export class TestChain {
  accounts = new Map<Hex, { nonce: bigint; balance: bigint; code?: Uint8Array }>();
  head: PoolHead = {
    chainId: CHAIN_ID,
    gasLimit: 30_000_000n,
    nextBaseFee: GWEI,
    allowedTypes: new Set([0, 1, 2, 4]),
    timestamp: 1_700_000_000n,
    isShanghai: true,
    isPrague: true,
  };
  l1Fee = 0n;
  now = 1_700_000_000_000;

  constructor(balance = 100n * ETH, count = 120) {
    for (let i = 0; i < count; i++) this.accounts.set(addressHex(i), { nonce: 0n, balance });
  }

  set(i: number, state: Partial<{ nonce: bigint; balance: bigint; code: Uint8Array }>): void {
    const cur = this.accounts.get(addressHex(i)) ?? { nonce: 0n, balance: 0n };
    this.accounts.set(addressHex(i), { ...cur, ...state });
  }

  deps(): TxPoolDeps {
    return {
      getAccount: (address) =>
        Promise.resolve(this.accounts.get(bytesToHex(address)) ?? { nonce: 0n, balance: 0n }),
      head: () => this.head,
      l1Cost: () => this.l1Fee,
      clock: () => this.now,
    };
  }
}

/** A valid blob: every 32-byte field element starts with a zero byte; the rest is `seed`. */
export function testBlob(seed: number): Uint8Array {
  const blob = new Uint8Array(131_072);
  for (let i = 0; i < blob.length; i += 32) blob.fill(seed & 0xff, i + 1, i + 32);
  return blob;
}

/**
 * A signed blob transaction on `chainId` (Prague rules) carrying `seeds.length` blobs: the canonical
 * encoding (as blocks carry it), the network form (as eth_sendRawTransaction takes it) and its sidecar.
 */
export async function blobTx(
  chainId: bigint = CHAIN_ID,
  spec: TxSpec & { seeds?: number[]; blobs?: Uint8Array[]; blobFeeCap?: bigint; keyBytes?: Uint8Array } = {},
): Promise<{ tx: TypedTransaction; canonical: Uint8Array; network: Uint8Array; sidecar: BlobsBundle }> {
  const kzg = await loadKzg();
  const sidecar = blobSidecar(kzg, spec.blobs ?? (spec.seeds ?? [1]).map(testBlob));
  const txCommon = createCustomCommon({ chainId: Number(chainId) }, Mainnet, {
    hardfork: Hardfork.Prague,
    customCrypto: { kzg },
  });
  const tx = createBlob4844Tx({
    chainId,
    nonce: spec.nonce ?? 0n,
    maxPriorityFeePerGas: spec.tip ?? GWEI,
    maxFeePerGas: spec.feeCap ?? 10n * GWEI,
    maxFeePerBlobGas: spec.blobFeeCap ?? 10n,
    gasLimit: spec.gas ?? 21_000n,
    to: spec.to ?? TO,
    value: spec.value ?? 1n,
    blobVersionedHashes: sidecar.commitments.map((c) => bytesToHex(kzgToVersionedHash(c))),
  }, { common: txCommon }).sign(spec.keyBytes ?? KEYS[spec.key ?? 0]);
  const canonical = tx.serialize();
  return { tx, canonical, network: blobNetworkEncoding(canonical, sidecar), sidecar };
}
