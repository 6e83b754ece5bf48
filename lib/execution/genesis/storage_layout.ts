/**
 * Storage slots from a forge artifact's `storageLayout`: the slot and byte offset of each named
 * state variable, and packing of value-type variables into 32-byte words (Solidity's layout rules:
 * variables share a slot from the low-order end, `offset` counts bytes from the right).
 */
import { BaseError } from "../../common/errors.ts";
import { bigIntToBytes, bytesToBigInt, bytesToHex } from "../../common/bytes.ts";
import type { Artifact } from "./artifacts.ts";

export interface SlotLocation {
  slot: bigint;
  /** Bytes from the low-order end of the word. */
  offset: number;
  /** Size of the variable in bytes. */
  size: number;
}

/** Where `label` lives in `artifact`'s storage. Throws for an unknown label. */
export function slotOf(artifact: Artifact, label: string, contract = "contract"): SlotLocation {
  const entry = artifact.storageLayout.storage.find((s) => s.label === label);
  if (entry === undefined) {
    throw new BaseError("UNKNOWN_STORAGE_LABEL", `Cannot find storage variable ${label} in ${contract}`, {
      meta: { label, contract },
    });
  }
  const size = Number(artifact.storageLayout.types[entry.type]?.numberOfBytes ?? "32");
  return { slot: BigInt(entry.slot), offset: entry.offset, size };
}

/** A value to store: bigint, a boolean, or bytes (an address or bytes32, right-aligned). */
export type StorageValue = bigint | boolean | Uint8Array;

function toBigInt(v: StorageValue): bigint {
  if (typeof v === "bigint") return v;
  if (typeof v === "boolean") return v ? 1n : 0n;
  return bytesToBigInt(v);
}

/**
 * Packs named value-type variables into storage words: slot (0x-hex, 32 bytes) -> 32-byte word.
 * Only value types that fit in one slot are supported; a value that does not fit its variable throws.
 */
export function packStorage(
  artifact: Artifact,
  values: Record<string, StorageValue>,
  contract = "contract",
): Map<string, Uint8Array> {
  const words = new Map<bigint, bigint>();
  for (const [label, value] of Object.entries(values)) {
    const loc = slotOf(artifact, label, contract);
    if (loc.size > 32) {
      throw new BaseError(
        "UNSUPPORTED_STORAGE_TYPE",
        `Cannot pack ${label} in ${contract}: ${loc.size} bytes`,
      );
    }
    const v = toBigInt(value);
    if (v >= 1n << BigInt(8 * loc.size)) {
      throw new BaseError(
        "STORAGE_VALUE_TOO_LARGE",
        `Cannot store ${label} in ${contract}: ${v} exceeds ${loc.size} bytes`,
      );
    }
    const shift = BigInt(8 * loc.offset);
    const mask = ((1n << BigInt(8 * loc.size)) - 1n) << shift;
    const word = words.get(loc.slot) ?? 0n;
    words.set(loc.slot, (word & ~mask) | (v << shift));
  }
  const out = new Map<string, Uint8Array>();
  for (const [slot, word] of words) out.set(bytesToHex(bigIntToBytes(slot, 32)), bigIntToBytes(word, 32));
  return out;
}

/** Reads a packed variable back out of a 32-byte word. */
export function unpackWord(word: Uint8Array, loc: SlotLocation): bigint {
  return (bytesToBigInt(word) >> BigInt(8 * loc.offset)) & ((1n << BigInt(8 * loc.size)) - 1n);
}
