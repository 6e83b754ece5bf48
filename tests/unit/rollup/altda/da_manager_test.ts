/**
 * The Alt-DA commitment and challenge state (rollup/altda/da_state.ts) and the manager derivation asks
 * for inputs (da_manager.ts): op-alt-da's dastate/damgr scenarios (windows, expiry, reorg, pruning,
 * finality) and the manager against an L1 of blocks carrying the DataAvailabilityChallenge contract's
 * events and resolve calls as its ABI encodes them.
 */
import { type Abi, encodeAbiParameters, encodeEventTopics, encodeFunctionData, type Hex } from "viem";
import DacJson from "@eth-optimism/contracts-bedrock/forge-artifacts/DataAvailabilityChallenge.sol/DataAvailabilityChallenge.json" with {
  type: "json",
};
import { bytesToHex, hexToBytes } from "../../../../lib/common/bytes.ts";
import { BaseError, isErrorCode } from "../../../../lib/common/errors.ts";
import {
  ChallengeStatus,
  type Commitment,
  commitmentKey,
  encodeCommitment,
  GENERIC_COMMITMENT,
  KECCAK256_COMMITMENT,
  keccakCommitment,
} from "../../../../lib/protocol/altda.ts";
import type { L1BlockRef } from "../../../../lib/protocol/block_ref.ts";
import type { L1Receipt } from "../../../../lib/protocol/deposit_event.ts";
import { AltDaManager, type AltDaParams, DaState, type DaStorage } from "../../../../lib/rollup/altda/mod.ts";
import { assert, assertEquals, assertRejects } from "../../../assert.ts";

const abi = DacJson.abi as Abi;
const CONTRACT = hexToBytes("0x" + "da".repeat(20));

function ref(n: bigint): L1BlockRef {
  const h = (x: bigint) => hexToBytes("0x" + x.toString(16).padStart(64, "0"));
  return { number: n, hash: h(n + 1n), parentHash: h(n), timestamp: 12n * n };
}

/** The inclusion block number of the last commitment pruned (a function: no type narrowing across checks). */
const pruned = (s: DaState) => s.lastPrunedCommitment?.number;

let seed = 0;
function commitment(): Commitment {
  return keccakCommitment(new Uint8Array([seed++, 1, 2, 3]));
}

// ---------------------------------------------------------------------------------------------
// The state alone

Deno.test("da state: a commitment expires after its challenge window, or its challenge's resolve window; pruning finalizes", () => {
  const s = new DaState({ challengeWindow: 6n, resolveWindow: 6n });
  const c1 = commitment();
  s.trackCommitment(c1, ref(2n));
  assertEquals(s.expireCommitments(7n), undefined);
  s.prune(7n);
  assertEquals(pruned(s), undefined, "still challengeable at block 7");
  assertEquals(s.expireCommitments(8n), undefined);
  s.prune(7n);
  assertEquals(pruned(s), undefined, "L1 finality at 7 is before its window end (8)");
  s.prune(8n);
  assertEquals(pruned(s), 2n);

  // Challenged at 24 and resolved: the commitment lives until the resolve window ends (30).
  const c2 = commitment();
  s.trackCommitment(c2, ref(20n));
  assertEquals(s.status(c2, 20n), ChallengeStatus.Uninitialized);
  s.createChallenge(c2, 24n, 20n);
  assertEquals(s.status(c2, 20n), ChallengeStatus.Active);
  assert(s.resolveChallenge(c2, 20n, undefined));
  assertEquals(s.status(c2, 20n), ChallengeStatus.Resolved);
  assert(!s.resolveChallenge(commitment(), 20n, undefined), "an untracked challenge");
  assertEquals(s.expireCommitments(28n), undefined);
  s.expireChallenges(28n);
  s.prune(28n);
  assertEquals(pruned(s), 2n);
  assertEquals(s.expireCommitments(30n), undefined, "resolved: no reorg");
  s.expireChallenges(30n);
  s.prune(29n);
  assertEquals(pruned(s), 2n);
  s.prune(32n);
  assertEquals(pruned(s), 20n);
  assert(s.empty);
});

Deno.test("da state: an unresolved challenge expiring with its commitment asks for a reorg (op-alt-da TestExpireChallenges)", () => {
  const s = new DaState({ challengeWindow: 90n, resolveWindow: 90n });
  const comms = new Map<bigint, Commitment>();
  let i = 3713854n;
  for (; i < 3713948n; i += 6n) {
    comms.set(i, commitment());
    s.trackCommitment(comms.get(i)!, ref(i));
    assertEquals(s.expireCommitments(i), undefined);
    s.expireChallenges(i);
  }
  s.createChallenge(comms.get(3713926n)!, 3713948n, 3713926n);
  s.createChallenge(comms.get(3713932n)!, 3713950n, 3713932n);
  for (; i < 3714038n; i += 6n) {
    s.trackCommitment(commitment(), ref(i));
    assertEquals(s.expireCommitments(i), undefined);
    s.expireChallenges(i);
  }
  // The end of the resolve window of the commitment of 3713926 (challenged at 3713948).
  s.expireChallenges(3714037n);
  assertEquals(s.expireCommitments(3714037n), undefined);
  s.expireChallenges(3714038n);
  assertEquals(s.status(comms.get(3713926n)!, 3713926n), ChallengeStatus.Expired);
  assertEquals(s.expireCommitments(3714038n), "reorg");
});

Deno.test("da state: challenges outlive a re-derivation; a commitment seen again is already expired (TestDAChallengeDetached)", () => {
  const s = new DaState({ challengeWindow: 6n, resolveWindow: 6n });
  const c1 = commitment();
  const c2 = commitment();
  s.trackCommitment(c1, ref(1n)); // missing: derivation stalls on it
  s.createChallenge(c2, 3n, 2n);
  s.createChallenge(c1, 5n, 1n);
  s.expireChallenges(10n);
  assertEquals(s.expireCommitments(10n), undefined, "c2 was never derived: no reorg for it");
  s.expireChallenges(11n);
  assertEquals(s.expireCommitments(11n), "reorg");
  s.prune(1n);
  assertEquals(pruned(s), undefined);
  s.clearCommitments();
  s.trackCommitment(c2, ref(2n));
  assertEquals(s.status(c2, 2n), ChallengeStatus.Expired);
  s.expireChallenges(201n);
  assertEquals(s.expireCommitments(201n), "reorg");
  s.prune(201n);
  assert(s.empty);
  // The same commitment read twice from one block (a stalled read retried) is tracked once.
  s.trackCommitment(c1, ref(300n));
  s.trackCommitment(c1, ref(300n));
  s.expireCommitments(306n);
  s.prune(306n);
  assert(s.empty);
});

// ---------------------------------------------------------------------------------------------
// The manager against an L1 with the challenge contract

interface Block {
  ref: L1BlockRef;
  receipts: L1Receipt[];
  txs: { input: Uint8Array }[];
}

function chainL1(blocks: Block[]) {
  const reads = { receipts: 0 };
  return {
    reads,
    blockRef: (n: bigint) => {
      const b = blocks[Number(n)];
      if (b === undefined) return Promise.reject(new BaseError("L1_NOT_FOUND", `no L1 block ${n}`));
      return Promise.resolve(b.ref);
    },
    blockWithTxs: (hash: Uint8Array) =>
      Promise.resolve({ txs: blocks.find((b) => bytesToHex(b.ref.hash) === bytesToHex(hash))!.txs }),
    receipts: (hash: Uint8Array) => {
      reads.receipts++;
      return Promise.resolve(blocks.find((b) => bytesToHex(b.ref.hash) === bytesToHex(hash))!.receipts);
    },
  };
}

/** An L1 of `n` empty blocks; `event` adds a challenge-status event (with its transaction) to a block. */
function l1Blocks(n: number) {
  const blocks: Block[] = Array.from(
    { length: n },
    (_, i) => ({ ref: ref(BigInt(i)), receipts: [], txs: [] }),
  );
  const event = (at: number, c: Commitment, inclusion: bigint, status: number, input?: Uint8Array) => {
    const comm = bytesToHex(encodeCommitment(c)) as Hex;
    const topics = encodeEventTopics({
      abi,
      eventName: "ChallengeStatusChanged",
      args: { challengedBlockNumber: inclusion },
    }) as Hex[];
    const data = encodeAbiParameters([{ type: "bytes" }, { type: "uint8" }], [comm, status]);
    const calldata = status === ChallengeStatus.Resolved
      ? encodeFunctionData({ abi, functionName: "resolve", args: [inclusion, comm, bytesToHex(input!)] })
      : encodeFunctionData({ abi, functionName: "challenge", args: [inclusion, comm] });
    blocks[at].txs.push({ input: hexToBytes(calldata) });
    blocks[at].receipts.push({
      status: 1,
      logs: [{ address: CONTRACT, topics: topics.map((t) => hexToBytes(t)), data: hexToBytes(data) }],
    });
  };
  return { blocks, event };
}

function storage(inputs: Map<string, Uint8Array>): DaStorage {
  return {
    getInput: (c) => {
      const input = inputs.get(commitmentKey(c));
      return input === undefined
        ? Promise.reject(new BaseError("ALTDA_NOT_FOUND", "not found"))
        : Promise.resolve(input);
    },
    setInput: () => Promise.reject(new Error("unused")),
  };
}

const KECCAK: AltDaParams = {
  commitmentType: KECCAK256_COMMITMENT,
  challengeAddress: CONTRACT,
  challengeWindow: 6n,
  resolveWindow: 6n,
};

async function walk(m: AltDaManager, from: number, to: number) {
  for (let n = from; n <= to; n++) await m.advanceL1Origin(ref(BigInt(n)));
}

Deno.test("altda manager: inputs from the DA server; other commitment types skipped", async () => {
  const input = new Uint8Array([0, 9, 9]);
  const c = keccakCommitment(input);
  const { blocks } = l1Blocks(20);
  const m = new AltDaManager(KECCAK, storage(new Map([[commitmentKey(c), input]])), chainL1(blocks));
  await m.advanceL1Origin(ref(1n));
  assertEquals(await m.getInput(c, ref(1n)), input);
  assertEquals(await m.getInput({ type: GENERIC_COMMITMENT, bytes: new Uint8Array([1]) }, ref(1n)), "skip");
  // Unchallenged, it expires at 7; finality at 7 lets L2 be final up to its block.
  await walk(m, 2, 7);
  assertEquals(m.finalize(ref(6n)), undefined);
  assertEquals(m.finalize(ref(7n))?.number, 1n);
});

Deno.test("altda manager: a missing input resolved on L1 comes from the resolving transaction", async () => {
  const input = new Uint8Array([0, 1, 2, 3]);
  const c = keccakCommitment(input);
  const { blocks, event } = l1Blocks(12);
  event(3, c, 1n, ChallengeStatus.Active);
  event(5, c, 1n, ChallengeStatus.Resolved, input);
  const m = new AltDaManager(KECCAK, storage(new Map()), chainL1(blocks));
  await m.advanceL1Origin(ref(1n));
  // The manager reads ahead to block 5 (the resolution) on its own.
  assertEquals(await m.getInput(c, ref(1n)), input);
  assertEquals(m.challengeOrigin, 5n);
  // The pipeline catching up does not read those blocks' events again.
  await walk(m, 2, 11);
  assertEquals(m.state.status(c, 1n), ChallengeStatus.Resolved);
});

Deno.test("altda manager: an input missing past its window stops derivation; waiting at the L1 head is temporary", async () => {
  const c = commitment();
  const { blocks } = l1Blocks(5);
  const m = new AltDaManager(KECCAK, storage(new Map()), chainL1(blocks));
  await m.advanceL1Origin(ref(1n));
  const pending = await assertRejects(() => m.getInput(c, ref(1n)));
  assert(isErrorCode(pending, "ALTDA_PENDING_CHALLENGE"), String(pending));
  assertEquals((pending as BaseError & { severity?: string }).severity, "temporary");
  assertEquals(m.challengeOrigin, 4n);
  // Later L1 blocks come without a challenge: past block 1 + 6, derivation cannot go on.
  blocks.push(...Array.from({ length: 5 }, (_, i) => ({ ref: ref(BigInt(5 + i)), receipts: [], txs: [] })));
  const missing = await assertRejects(() => m.getInput(c, ref(1n)));
  assert(isErrorCode(missing, "ALTDA_MISSING_PAST_WINDOW"), String(missing));
  assertEquals((missing as BaseError & { severity?: string }).severity, undefined);
});

Deno.test("altda manager: an expired challenge skips the input, or asks for a re-derivation when it was used", async () => {
  const used = new Uint8Array([0, 7]);
  const cUsed = keccakCommitment(used);
  const cLost = commitment();
  const { blocks, event } = l1Blocks(30);
  event(4, cUsed, 1n, ChallengeStatus.Active); // never resolved: expires at 10
  event(3, cLost, 2n, ChallengeStatus.Active); // never resolved: expires at 9
  const m = new AltDaManager(KECCAK, storage(new Map([[commitmentKey(cUsed), used]])), chainL1(blocks));
  await m.advanceL1Origin(ref(1n));
  assertEquals(await m.getInput(cUsed, ref(1n)), used);
  await m.advanceL1Origin(ref(2n));
  // The lost input: the manager reads ahead until its challenge expires, and it is skipped.
  assertEquals(await m.getInput(cLost, ref(2n)), "skip");
  // The pipeline passing block 9 (the skipped commitment's end: nothing to undo) and reaching 10, where
  // the used commitment's challenge expired unresolved.
  await walk(m, 3, 9);
  const e = await assertRejects(() => walk(m, 10, 10));
  assert(isErrorCode(e, "ALTDA_REORG_REQUIRED"), String(e));
  assertEquals((e as BaseError & { severity?: string }).severity, "reset");
  // The reset keeps the challenges: derived again, the input is skipped.
  m.reset(ref(0n));
  await walk(m, 1, 1);
  assertEquals(await m.getInput(cUsed, ref(1n)), "skip");
  await walk(m, 2, 12);
  // A reset for anything else (an L1 reorg) forgets them.
  m.reset(ref(0n));
  assertEquals(m.state.status(cUsed, 1n), ChallengeStatus.Uninitialized);
});

Deno.test("altda manager: generic commitments read no challenge events; a missing input waits, then stops", async () => {
  const c: Commitment = { type: GENERIC_COMMITMENT, bytes: new Uint8Array([0x0c, 1, 2]) };
  const { blocks } = l1Blocks(4);
  const l1 = chainL1(blocks);
  const m = new AltDaManager(
    { commitmentType: GENERIC_COMMITMENT, challengeWindow: 2n, resolveWindow: 2n },
    storage(new Map()),
    l1,
  );
  await walk(m, 1, 1);
  assert(isErrorCode(await assertRejects(() => m.getInput(c, ref(1n))), "ALTDA_PENDING_CHALLENGE"));
  assertEquals(l1.reads.receipts, 0);
  blocks.push({ ref: ref(4n), receipts: [], txs: [] });
  assert(isErrorCode(await assertRejects(() => m.getInput(c, ref(1n))), "ALTDA_MISSING_PAST_WINDOW"));
});
