/**
 * Alt-DA data (specs/experimental/alt-da.md; op-alt-da commitment.go, params.go, damgr.go): input
 * commitments as batcher transactions carry them, and the DataAvailabilityChallenge contract's event
 * and `resolve` call as derivation reads them.
 *
 * A batcher transaction of an Alt-DA chain carries `1 ++ commitment` ("Input Commitment Submission":
 * transaction data version 1) instead of frames; the commitment is `type ++ bytes`:
 * - type 0, keccak256: the 32-byte keccak256 of the input (the frames with their version byte 0);
 * - type 1, generic ("da-service"): `da_layer_byte ++ payload`, opaque to the node (the DA server
 *   checks it).
 *
 * ```solidity
 * event ChallengeStatusChanged(uint256 indexed challengedBlockNumber, bytes challengedCommitment, ChallengeStatus status);
 * function resolve(uint256 challengedBlockNumber, bytes calldata challengedCommitment, bytes calldata resolveData);
 * ```
 */
import { bytesToBigInt, bytesToUnprefixedHex, concatBytes, equalBytes } from "../common/bytes.ts";
import { BaseError } from "../common/errors.ts";
import { keccak256 } from "../common/hash.ts";
import type { L1Log } from "./deposit_event.ts";

/** The batcher transaction data version of a commitment (frames are version 0). */
export const TX_DATA_VERSION_1 = 1;

/**
 * The largest input a keccak256 commitment may stand for: one the challenge contract can take in a
 * resolving transaction (131,072 bytes, geth's transaction size limit, less 400 of overhead).
 */
export const MAX_INPUT_SIZE = 130_672;

export const KECCAK256_COMMITMENT = 0;
export const GENERIC_COMMITMENT = 1;
export type CommitmentType = typeof KECCAK256_COMMITMENT | typeof GENERIC_COMMITMENT;

/** An input commitment: its type and the bytes after the type byte. */
export interface Commitment {
  type: CommitmentType;
  bytes: Uint8Array;
}

/** The rollup config's name of a commitment type (`alt_da.da_commitment_type`). */
export function commitmentTypeOf(name: "KeccakCommitment" | "GenericCommitment"): CommitmentType {
  return name === "KeccakCommitment" ? KECCAK256_COMMITMENT : GENERIC_COMMITMENT;
}

function invalid(reason: string): BaseError {
  return new BaseError("ALTDA_INVALID_COMMITMENT", `Cannot decode the Alt-DA commitment: ${reason}`);
}

/** `type ++ bytes` (as in URLs of the DA server and in the challenge contract). */
export function encodeCommitment(c: Commitment): Uint8Array {
  return concatBytes(new Uint8Array([c.type]), c.bytes);
}

/** The batcher transaction data of a commitment: `1 ++ type ++ bytes`. */
export function commitmentTxData(c: Commitment): Uint8Array {
  return concatBytes(new Uint8Array([TX_DATA_VERSION_1, c.type]), c.bytes);
}

/** Decodes `type ++ bytes`: a known type, 32 bytes for keccak256, at least one byte for generic. */
export function decodeCommitment(data: Uint8Array): Commitment {
  if (data.length === 0) throw invalid("empty");
  const type = data[0];
  const bytes = data.slice(1);
  if (type === KECCAK256_COMMITMENT) {
    if (bytes.length !== 32) throw invalid(`a keccak256 commitment is 32 bytes, got ${bytes.length}`);
    return { type, bytes };
  }
  if (type === GENERIC_COMMITMENT) {
    if (bytes.length === 0) throw invalid("an empty generic commitment");
    return { type, bytes };
  }
  throw invalid(`unknown commitment type ${type}`);
}

/** The keccak256 commitment of `input`. */
export function keccakCommitment(input: Uint8Array): Commitment {
  return { type: KECCAK256_COMMITMENT, bytes: keccak256(input) };
}

/**
 * Whether `input` is what `c` commits to: keccak256 commitments are checked, generic ones always pass
 * (the DA server verifies them).
 */
export function commitmentMatches(c: Commitment, input: Uint8Array): boolean {
  return c.type !== KECCAK256_COMMITMENT || equalBytes(c.bytes, keccak256(input));
}

/** A key for maps of commitments: the encoded commitment in hex. */
export function commitmentKey(c: Commitment): string {
  return `${c.type.toString(16).padStart(2, "0")}${bytesToUnprefixedHex(c.bytes)}`;
}

/** The challenge contract's `ChallengeStatus`. */
export const ChallengeStatus = { Uninitialized: 0, Active: 1, Resolved: 2, Expired: 3 } as const;
export type ChallengeStatus = typeof ChallengeStatus[keyof typeof ChallengeStatus];

export const CHALLENGE_STATUS_CHANGED_SIGNATURE = "ChallengeStatusChanged(uint256,bytes,uint8)";
export const CHALLENGE_STATUS_CHANGED_TOPIC: Uint8Array = keccak256(
  new TextEncoder().encode(CHALLENGE_STATUS_CHANGED_SIGNATURE),
);

function abiError(what: string, reason: string): BaseError {
  return new BaseError("ALTDA_INVALID_EVENT", `Cannot decode ${what}: ${reason}`);
}

/** A uint256 word at `at` that must fit a safe integer (offsets, lengths). */
function smallWord(data: Uint8Array, at: number, what: string): number {
  if (at + 32 > data.length) throw abiError(what, "data too short");
  const v = bytesToBigInt(data.subarray(at, at + 32));
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw abiError(what, `value ${v} out of range`);
  return Number(v);
}

/** ABI `bytes` whose offset word is at `head` in `data` (offsets from `base`). */
function abiBytes(data: Uint8Array, base: number, head: number, what: string): Uint8Array {
  const offset = smallWord(data, head, what);
  const length = smallWord(data, base + offset, what);
  const start = base + offset + 32;
  if (start + length > data.length) throw abiError(what, "bytes run past the data");
  return data.slice(start, start + length);
}

/** A `ChallengeStatusChanged` log: the challenged commitment, its inclusion block, the new status. */
export interface ChallengeEvent {
  commitment: Commitment;
  blockNumber: bigint;
  status: number;
}

/** Whether `log` is a ChallengeStatusChanged of the contract at `address`. */
export function isChallengeLog(log: L1Log, address: Uint8Array): boolean {
  return equalBytes(log.address, address) && log.topics.length > 0 &&
    equalBytes(log.topics[0], CHALLENGE_STATUS_CHANGED_TOPIC);
}

/** Decodes a ChallengeStatusChanged log (topic 1 the block number; data: bytes commitment, uint8 status). */
export function decodeChallengeLog(log: L1Log): ChallengeEvent {
  const what = "a ChallengeStatusChanged event";
  if (log.topics.length !== 2) throw abiError(what, `expected 2 topics, got ${log.topics.length}`);
  const status = smallWord(log.data, 32, what);
  if (status > 255) throw abiError(what, `status ${status} is not a uint8`);
  const commitment = decodeCommitment(abiBytes(log.data, 0, 0, what));
  return { commitment, blockNumber: bytesToBigInt(log.topics[1]), status };
}

/** The `resolveData` argument of a `resolve(uint256,bytes,bytes)` call (op-alt-da DecodeResolvedInput). */
export function decodeResolveInput(calldata: Uint8Array): Uint8Array {
  const what = "a resolve call";
  if (calldata.length < 4) throw abiError(what, "no selector");
  const args = calldata.subarray(4);
  const data = abiBytes(args, 0, 64, what);
  if (data.length === 0) throw abiError(what, "empty resolve data");
  return data;
}
