/**
 * Alt-DA commitments and challenge-contract data (lib/protocol/altda.ts) against op-alt-da's
 * commitment_test.go cases and, for the event and the resolve call, the DataAvailabilityChallenge ABI of
 * @eth-optimism/contracts-bedrock encoded by viem.
 */
import { type Abi, encodeAbiParameters, encodeEventTopics, encodeFunctionData, type Hex } from "viem";
import DacJson from "@eth-optimism/contracts-bedrock/forge-artifacts/DataAvailabilityChallenge.sol/DataAvailabilityChallenge.json" with {
  type: "json",
};
import { bytesToHex, concatBytes, hexToBytes } from "../../../lib/common/bytes.ts";
import { isErrorCode } from "../../../lib/common/errors.ts";
import { keccak256 } from "../../../lib/common/hash.ts";
import {
  CHALLENGE_STATUS_CHANGED_TOPIC,
  ChallengeStatus,
  commitmentMatches,
  commitmentTxData,
  decodeChallengeLog,
  decodeCommitment,
  decodeResolveInput,
  encodeCommitment,
  GENERIC_COMMITMENT,
  isChallengeLog,
  KECCAK256_COMMITMENT,
  keccakCommitment,
} from "../../../lib/protocol/altda.ts";
import { assert, assertEquals, assertThrows } from "../../assert.ts";

const abi = DacJson.abi as Abi;
const text = (s: string) => new TextEncoder().encode(s);

Deno.test("altda commitments: op-alt-da's cases (decoding the bytes after the type byte is refused)", () => {
  // commitment_test.go hands DecodeCommitmentData the commitment without its type byte: every case fails.
  for (
    const data of [
      "abcdefghijklmnopqrstuvwxyz012345",
      "ab_baddata_yz012345",
      "any length of data! wow, that's so generic!",
    ]
  ) {
    const e = assertThrows(() => decodeCommitment(text(data)));
    assert(isErrorCode(e, "ALTDA_INVALID_COMMITMENT"), String(e));
  }
  assertThrows(() => decodeCommitment(new Uint8Array()));
  // Type 0 needs exactly 32 bytes; type 1 at least one; other types are unknown.
  assertThrows(() => decodeCommitment(concatBytes(new Uint8Array([0]), new Uint8Array(31))));
  assertThrows(() => decodeCommitment(new Uint8Array([1])));
  assertThrows(() => decodeCommitment(concatBytes(new Uint8Array([9]), new Uint8Array(32))));
});

Deno.test("altda commitments: keccak256 and generic round-trip, tx data version 1, verification", () => {
  const input = text("frames with their version byte");
  const k = keccakCommitment(input);
  assertEquals(k.type, KECCAK256_COMMITMENT);
  assertEquals(k.bytes, keccak256(input));
  const encoded = encodeCommitment(k);
  assertEquals(encoded[0], 0);
  assertEquals(decodeCommitment(encoded), k);
  assertEquals(commitmentTxData(k), concatBytes(new Uint8Array([1]), encoded));
  assert(commitmentMatches(k, input));
  assert(!commitmentMatches(k, text("wrong data")));

  const g = decodeCommitment(concatBytes(new Uint8Array([1, 0x0c]), text("celestia blob id")));
  assertEquals(g.type, GENERIC_COMMITMENT);
  assertEquals(g.bytes[0], 0x0c);
  assertEquals(bytesToHex(commitmentTxData(g)).slice(0, 8), "0x01010c");
  // Generic commitments are the DA server's to check.
  assert(commitmentMatches(g, text("anything")));
});

Deno.test("altda: ChallengeStatusChanged logs and resolve calls as the contract's ABI encodes them", () => {
  const input = text("the input the resolver posts");
  const comm = bytesToHex(encodeCommitment(keccakCommitment(input))) as Hex;
  const contract = hexToBytes("0x" + "ab".repeat(20));
  const topics = encodeEventTopics({
    abi,
    eventName: "ChallengeStatusChanged",
    args: { challengedBlockNumber: 1234n },
  }) as Hex[];
  assertEquals(hexToBytes(topics[0]), CHALLENGE_STATUS_CHANGED_TOPIC);
  for (const status of [ChallengeStatus.Active, ChallengeStatus.Resolved]) {
    const data = encodeAbiParameters([{ type: "bytes" }, { type: "uint8" }], [comm, status]);
    const log = { address: contract, topics: topics.map((t) => hexToBytes(t)), data: hexToBytes(data) };
    assert(isChallengeLog(log, contract));
    assert(!isChallengeLog(log, new Uint8Array(20)));
    const ev = decodeChallengeLog(log);
    assertEquals(ev.blockNumber, 1234n);
    assertEquals(ev.status, status);
    assertEquals(bytesToHex(encodeCommitment(ev.commitment)), comm);
    // Truncated data is an error, not a wrong value.
    assertThrows(() => decodeChallengeLog({ ...log, data: log.data.subarray(0, 70) }));
  }
  const call = encodeFunctionData({
    abi,
    functionName: "resolve",
    args: [1234n, comm, bytesToHex(input)],
  });
  assertEquals(decodeResolveInput(hexToBytes(call)), input);
  assertThrows(() => decodeResolveInput(hexToBytes(call).subarray(0, 100)));
  const empty = encodeFunctionData({ abi, functionName: "resolve", args: [1n, comm, "0x"] });
  assertThrows(() => decodeResolveInput(hexToBytes(empty)));
});
