/**
 * The deposited transaction, EIP-2718 type 0x7E (specs/protocol/deposits.md
 * "The Deposited Transaction Type"): `0x7E || rlp([sourceHash, from, to, mint, value, gas, isSystemTx, data])`,
 * and its source hashes ("Source hash computation").
 */
import { RLP } from "@ethereumjs/rlp";
import { bigIntToBytes, bytesToBigInt, concatBytes } from "../common/bytes.ts";
import { BaseError } from "../common/errors.ts";
import { keccak256 } from "../common/hash.ts";

/** EIP-2718 type byte of a deposited transaction. */
export const DEPOSIT_TX_TYPE = 0x7e;

export interface DepositTx {
  /** 32 bytes: uniquely identifies the origin of the deposit. */
  sourceHash: Uint8Array;
  /** 20 bytes. */
  from: Uint8Array;
  /** 20 bytes, or null for a contract creation. */
  to: Uint8Array | null;
  /** ETH minted on L2 (uint256). */
  mint: bigint;
  /** ETH sent to `to` (uint256). */
  value: bigint;
  /** Gas limit (uint64). */
  gas: bigint;
  /** Must be false from Regolith. */
  isSystemTx: boolean;
  data: Uint8Array;
}

const UINT64_MAX = (1n << 64n) - 1n;
const UINT256_MAX = (1n << 256n) - 1n;

function checkRange(name: string, value: bigint, max: bigint): void {
  if (value < 0n || value > max) {
    throw new BaseError("INVALID_DEPOSIT_TX", `Cannot encode deposit tx: ${name} ${value} is out of range`);
  }
}

function checkLength(name: string, bytes: Uint8Array, length: number, verb: string): void {
  if (bytes.length !== length) {
    throw new BaseError(
      "INVALID_DEPOSIT_TX",
      `Cannot ${verb} deposit tx: ${name} length is ${bytes.length}, expected ${length}`,
    );
  }
}

/** The consensus encoding: 0x7E followed by the RLP list of the eight fields. */
export function encodeDepositTx(tx: DepositTx): Uint8Array {
  checkLength("sourceHash", tx.sourceHash, 32, "encode");
  checkLength("from", tx.from, 20, "encode");
  if (tx.to !== null) checkLength("to", tx.to, 20, "encode");
  checkRange("mint", tx.mint, UINT256_MAX);
  checkRange("value", tx.value, UINT256_MAX);
  checkRange("gas", tx.gas, UINT64_MAX);
  const body = RLP.encode([
    tx.sourceHash,
    tx.from,
    tx.to ?? new Uint8Array(),
    bigIntToBytes(tx.mint),
    bigIntToBytes(tx.value),
    bigIntToBytes(tx.gas),
    tx.isSystemTx ? new Uint8Array([1]) : new Uint8Array(),
    tx.data,
  ]);
  return concatBytes(new Uint8Array([DEPOSIT_TX_TYPE]), body);
}

function decodeInt(name: string, item: Uint8Array, maxBytes: number): bigint {
  if (item.length > 0 && item[0] === 0) {
    throw new BaseError("INVALID_DEPOSIT_TX", `Cannot decode deposit tx: ${name} has leading zero bytes`);
  }
  if (item.length > maxBytes) {
    throw new BaseError(
      "INVALID_DEPOSIT_TX",
      `Cannot decode deposit tx: ${name} is ${item.length} bytes, at most ${maxBytes} allowed`,
    );
  }
  return bytesToBigInt(item);
}

/** Decode a type-0x7E envelope. Strict: type byte, field count, field sizes and canonical RLP are checked. */
export function decodeDepositTx(bytes: Uint8Array): DepositTx {
  if (bytes.length === 0) {
    throw new BaseError("INVALID_DEPOSIT_TX", "Cannot decode deposit tx: input is empty");
  }
  if (bytes[0] !== DEPOSIT_TX_TYPE) {
    throw new BaseError(
      "INVALID_DEPOSIT_TX",
      `Cannot decode deposit tx: type byte is 0x${bytes[0].toString(16).padStart(2, "0")}, expected 0x7e`,
    );
  }
  let decoded: unknown;
  try {
    decoded = RLP.decode(bytes.subarray(1));
  } catch (cause) {
    throw new BaseError(
      "INVALID_DEPOSIT_TX",
      `Cannot decode deposit tx: invalid RLP (${(cause as Error).message})`,
      {
        cause,
      },
    );
  }
  if (!Array.isArray(decoded)) {
    throw new BaseError("INVALID_DEPOSIT_TX", "Cannot decode deposit tx: payload is not an RLP list");
  }
  if (decoded.length !== 8) {
    throw new BaseError(
      "INVALID_DEPOSIT_TX",
      `Cannot decode deposit tx: list has ${decoded.length} fields, expected 8`,
    );
  }
  const names = ["sourceHash", "from", "to", "mint", "value", "gas", "isSystemTx", "data"];
  const items = decoded.map((item, i) => {
    if (!(item instanceof Uint8Array)) {
      throw new BaseError(
        "INVALID_DEPOSIT_TX",
        `Cannot decode deposit tx: ${names[i]} is a list, expected bytes`,
      );
    }
    return item;
  });
  const [sourceHash, from, to, mint, value, gas, isSystem, data] = items;
  checkLength("sourceHash", sourceHash, 32, "decode");
  checkLength("from", from, 20, "decode");
  if (to.length !== 0) checkLength("to", to, 20, "decode");
  let isSystemTx: boolean;
  if (isSystem.length === 0) isSystemTx = false;
  else if (isSystem.length === 1 && isSystem[0] === 1) isSystemTx = true;
  else {
    throw new BaseError(
      "INVALID_DEPOSIT_TX",
      "Cannot decode deposit tx: isSystemTx is not a canonical boolean",
    );
  }
  return {
    sourceHash: sourceHash.slice(),
    from: from.slice(),
    to: to.length === 0 ? null : to.slice(),
    mint: decodeInt("mint", mint, 32),
    value: decodeInt("value", value, 32),
    gas: decodeInt("gas", gas, 8),
    isSystemTx,
    data: data.slice(),
  };
}

/** The transaction hash: keccak256 of the full typed encoding. */
export function depositTxHash(tx: DepositTx): Uint8Array {
  return keccak256(encodeDepositTx(tx));
}

/** Source-hash domains (deposits.md "Source hash computation"). */
export const DEPOSIT_SOURCE_DOMAIN = {
  userDeposit: 0n,
  l1InfoDeposit: 1n,
  upgradeDeposit: 2n,
} as const;

function sourceHash(domain: bigint, inner: Uint8Array): Uint8Array {
  return keccak256(concatBytes(bigIntToBytes(domain, 32), inner));
}

function checkBlockHash(l1BlockHash: Uint8Array): void {
  if (l1BlockHash.length !== 32) {
    throw new BaseError(
      "INVALID_DEPOSIT_TX",
      `Cannot compute source hash: L1 block hash length is ${l1BlockHash.length}`,
    );
  }
}

/** `keccak256(bytes32(0) ++ keccak256(l1BlockHash ++ bytes32(l1LogIndex)))`. */
export function userDepositSourceHash(l1BlockHash: Uint8Array, logIndex: bigint): Uint8Array {
  checkBlockHash(l1BlockHash);
  return sourceHash(
    DEPOSIT_SOURCE_DOMAIN.userDeposit,
    keccak256(concatBytes(l1BlockHash, bigIntToBytes(logIndex, 32))),
  );
}

/** `keccak256(bytes32(1) ++ keccak256(l1BlockHash ++ bytes32(seqNumber)))`. */
export function l1InfoDepositSourceHash(l1BlockHash: Uint8Array, seqNumber: bigint): Uint8Array {
  checkBlockHash(l1BlockHash);
  return sourceHash(
    DEPOSIT_SOURCE_DOMAIN.l1InfoDeposit,
    keccak256(concatBytes(l1BlockHash, bigIntToBytes(seqNumber, 32))),
  );
}

/** `keccak256(bytes32(2) ++ keccak256(utf8(intent)))`. */
export function upgradeDepositSourceHash(intent: string): Uint8Array {
  return sourceHash(DEPOSIT_SOURCE_DOMAIN.upgradeDeposit, keccak256(new TextEncoder().encode(intent)));
}
