/**
 * The state of Alt-DA commitments and challenges as derivation sees them (op-alt-da dastate.go;
 * specs/experimental/alt-da.md "Derivation", "Safety and Finality"), in L1 inclusion order:
 * - a commitment read from a batcher transaction can be challenged for `challengeWindow` L1 blocks
 *   after its inclusion; a challenge must be resolved within `resolveWindow` blocks after the
 *   challenge's own block;
 * - a commitment expires when its challenge window ends unchallenged, or its challenge's resolve
 *   window ends; one expiring with an unresolved challenge means the chain derived from its input
 *   must be derived again without it (`expireCommitments` answers "reorg");
 * - expired commitments and challenges are pruned once L1 finality passes their end; the inclusion
 *   block of the last commitment pruned is how far L2 may be finalized.
 */
import { ChallengeStatus, type Commitment, commitmentKey } from "../../protocol/altda.ts";
import type { L1BlockRef } from "../../protocol/block_ref.ts";

export interface AltDaWindows {
  challengeWindow: bigint;
  resolveWindow: bigint;
}

interface TrackedCommitment {
  commitment: Commitment;
  inclusion: L1BlockRef;
  challengeWindowEnd: bigint;
}

export interface Challenge {
  commitment: Commitment;
  /** The L1 block that included the challenged commitment. */
  inclusionNumber: bigint;
  resolveWindowEnd: bigint;
  /** The input, when resolved on L1 (keccak256 commitments). */
  input?: Uint8Array;
  status: ChallengeStatus;
}

function keyOf(c: Commitment, inclusionNumber: bigint): string {
  return `${inclusionNumber}:${commitmentKey(c)}`;
}

export class DaState {
  readonly windows: AltDaWindows;
  #commitments: TrackedCommitment[] = [];
  /** Keys of `#commitments` (a commitment read again, after a stall, is tracked once). */
  readonly #tracked = new Set<string>();
  #expiredCommitments: TrackedCommitment[] = [];
  #challenges: Challenge[] = [];
  #expiredChallenges: Challenge[] = [];
  readonly #byKey = new Map<string, Challenge>();
  /** The inclusion block of the last commitment pruned (undefined before the first). */
  lastPrunedCommitment: L1BlockRef | undefined;

  constructor(windows: AltDaWindows) {
    this.windows = windows;
  }

  /** Forgets commitments, keeps challenges (a re-derivation after an expired challenge). */
  clearCommitments(): void {
    this.#commitments = [];
    this.#tracked.clear();
    this.#expiredCommitments = [];
  }

  /** Forgets everything (an L1 reorg). */
  reset(): void {
    this.clearCommitments();
    this.#challenges = [];
    this.#expiredChallenges = [];
    this.#byKey.clear();
  }

  /** A challenge seen in L1 block `block` (replacing an earlier one of the same commitment). */
  createChallenge(c: Commitment, block: bigint, inclusionNumber: bigint): void {
    const ch: Challenge = {
      commitment: c,
      inclusionNumber,
      resolveWindowEnd: block + this.windows.resolveWindow,
      status: ChallengeStatus.Active,
    };
    this.#challenges.push(ch);
    this.#byKey.set(keyOf(c, inclusionNumber), ch);
  }

  /** A resolution; false when the challenge was not tracked. */
  resolveChallenge(c: Commitment, inclusionNumber: bigint, input: Uint8Array | undefined): boolean {
    const ch = this.#byKey.get(keyOf(c, inclusionNumber));
    if (ch === undefined) return false;
    ch.input = input;
    ch.status = ChallengeStatus.Resolved;
    return true;
  }

  /** Tracks a commitment read from L1 block `inclusion` (once per commitment and block). */
  trackCommitment(c: Commitment, inclusion: L1BlockRef): void {
    const key = keyOf(c, inclusion.number);
    if (this.#tracked.has(key)) return;
    this.#tracked.add(key);
    this.#commitments.push({
      commitment: c,
      inclusion,
      challengeWindowEnd: inclusion.number + this.windows.challengeWindow,
    });
  }

  /** Stops tracking a commitment whose input derivation skipped (its expiry then needs no reorg). */
  untrackCommitment(c: Commitment, inclusionNumber: bigint): void {
    const key = keyOf(c, inclusionNumber);
    if (!this.#tracked.delete(key)) return;
    this.#commitments = this.#commitments.filter((t) => keyOf(t.commitment, t.inclusion.number) !== key);
  }

  challenge(c: Commitment, inclusionNumber: bigint): Challenge | undefined {
    return this.#byKey.get(keyOf(c, inclusionNumber));
  }

  status(c: Commitment, inclusionNumber: bigint): ChallengeStatus {
    return this.challenge(c, inclusionNumber)?.status ?? ChallengeStatus.Uninitialized;
  }

  /** Nothing tracked at all. */
  get empty(): boolean {
    return this.#commitments.length === 0 && this.#expiredCommitments.length === 0 &&
      this.#challenges.length === 0 && this.#expiredChallenges.length === 0;
  }

  #end(t: TrackedCommitment): bigint {
    return this.challenge(t.commitment, t.inclusion.number)?.resolveWindowEnd ?? t.challengeWindowEnd;
  }

  /**
   * Moves the commitments whose window ended by L1 block `origin` to the expired ones, in order;
   * "reorg" when one of them had a challenge that was not resolved.
   */
  expireCommitments(origin: bigint): "reorg" | undefined {
    let out: "reorg" | undefined;
    while (this.#commitments.length > 0) {
      const t = this.#commitments[0];
      if (this.#end(t) > origin) break;
      this.#expiredCommitments.push(t);
      this.#commitments.shift();
      this.#tracked.delete(keyOf(t.commitment, t.inclusion.number));
      const ch = this.challenge(t.commitment, t.inclusion.number);
      if (ch !== undefined && ch.status !== ChallengeStatus.Resolved) out = "reorg";
    }
    return out;
  }

  /** Marks the challenges whose resolve window ended by L1 block `origin` expired (unless resolved). */
  expireChallenges(origin: bigint): void {
    while (this.#challenges.length > 0) {
      const ch = this.#challenges[0];
      if (ch.resolveWindowEnd > origin) return;
      this.#expiredChallenges.push(ch);
      this.#challenges.shift();
      if (ch.status === ChallengeStatus.Active) ch.status = ChallengeStatus.Expired;
    }
  }

  /** Drops expired commitments and challenges whose windows ended by `origin` (an L1 finalized block). */
  prune(origin: bigint): void {
    while (this.#expiredCommitments.length > 0) {
      const t = this.#expiredCommitments[0];
      if (this.#end(t) > origin) break;
      this.#expiredCommitments.shift();
      this.lastPrunedCommitment = t.inclusion;
    }
    while (this.#expiredChallenges.length > 0) {
      const ch = this.#expiredChallenges[0];
      if (ch.resolveWindowEnd > origin) break;
      this.#expiredChallenges.shift();
      this.#byKey.delete(keyOf(ch.commitment, ch.inclusionNumber));
    }
  }
}
