/**
 * The Alt-DA manager of derivation (specs/experimental/alt-da.md "Derivation", "Safety and Finality";
 * op-alt-da damgr.go): resolves the inputs of commitments through the DA server, follows the
 * DataAvailabilityChallenge contract's events L1 block by L1 block, and tells derivation when to skip
 * an input, wait, re-derive or stop:
 * - an input the server has is used (a keccak256 commitment over MAX_INPUT_SIZE is skipped by the
 *   pipeline);
 * - a commitment whose challenge expired unresolved is skipped; if its input was already used, the
 *   commitment's expiry asks for a re-derivation (BaseError ALTDA_REORG_REQUIRED, severity "reset");
 * - an input the server does not have: the manager reads the L1 blocks ahead for a challenge, and
 *   waits (ALTDA_PENDING_CHALLENGE, "temporary") while one could still come or be resolved; a resolved
 *   challenge gives the input from the resolving transaction (keccak256); with none past the
 *   challenge window, or a generic commitment that L1 cannot resolve, derivation cannot go on
 *   (ALTDA_MISSING_PAST_WINDOW);
 * - L2 finality follows L1 finality only once commitments can no longer be invalidated: the L1 block
 *   L2 may be finalized up to is the inclusion block of the last commitment whose windows ended under
 *   the L1 finalized block (`finalize`).
 * Generic commitments have no challenges: the contract's events are not read for them.
 */
import { bytesToHex } from "../../common/bytes.ts";
import { BaseError, isErrorCode } from "../../common/errors.ts";
import { getLogger } from "../../common/logger.ts";
import {
  ChallengeStatus,
  type Commitment,
  commitmentMatches,
  type CommitmentType,
  decodeChallengeLog,
  decodeResolveInput,
  encodeCommitment,
  GENERIC_COMMITMENT,
  isChallengeLog,
  KECCAK256_COMMITMENT,
} from "../../protocol/altda.ts";
import type { L1BlockRef } from "../../protocol/block_ref.ts";
import type { L1Receipt } from "../../protocol/deposit_event.ts";
import { type AltDaWindows, DaState } from "./da_state.ts";
import type { DaStorage } from "./da_client.ts";

export interface AltDaParams extends AltDaWindows {
  commitmentType: CommitmentType;
  /** The DataAvailabilityChallenge contract (keccak256 commitments). */
  challengeAddress?: Uint8Array;
}

/** What the manager reads of L1. */
export interface AltDaL1 {
  blockRef(number: bigint): Promise<L1BlockRef>;
  blockWithTxs(hash: Uint8Array): Promise<{ txs: { input: Uint8Array }[] }>;
  receipts(hash: Uint8Array): Promise<L1Receipt[]>;
}

export class AltDaManager {
  readonly params: AltDaParams;
  readonly state: DaState;
  readonly #storage: DaStorage;
  readonly #l1: AltDaL1;
  readonly #log = getLogger(["rollup", "altda"]);
  /** The last L1 block whose challenge events were read (-1: none). */
  #challengeOrigin = -1n;
  /** The last L1 block whose commitments were expired (-1: none). */
  #commitmentOrigin = -1n;
  /** A reset follows an expired challenge: keep the challenges. */
  #resetting = false;
  /** The L1 block L2 may be finalized up to (undefined: none yet). */
  finalizedHead: L1BlockRef | undefined;

  constructor(params: AltDaParams, storage: DaStorage, l1: AltDaL1) {
    this.params = params;
    this.state = new DaState(params);
    this.#storage = storage;
    this.#l1 = l1;
  }

  get challengeOrigin(): bigint {
    return this.#challengeOrigin;
  }

  /**
   * The pipeline reached L1 block `block`: its challenge events are read and commitments whose windows
   * ended expire. Throws ALTDA_REORG_REQUIRED (severity "reset") when a commitment expired with an
   * unresolved challenge.
   */
  async advanceL1Origin(block: L1BlockRef): Promise<void> {
    await this.#advanceChallengeOrigin(block);
    if (block.number <= this.#commitmentOrigin) return;
    if (this.state.expireCommitments(block.number) === "reorg") {
      this.#resetting = true;
      throw new BaseError(
        "ALTDA_REORG_REQUIRED",
        `Alt-DA: a challenge expired unresolved at L1 block ${block.number}: re-deriving without its input`,
        { severity: "reset" },
      );
    }
    this.#commitmentOrigin = block.number;
  }

  async #advanceChallengeOrigin(block: L1BlockRef): Promise<void> {
    if (block.number <= this.#challengeOrigin) return;
    if (this.params.commitmentType === KECCAK256_COMMITMENT && this.params.challengeAddress !== undefined) {
      await this.#loadChallenges(block);
    }
    this.state.expireChallenges(block.number);
    this.#challengeOrigin = block.number;
  }

  /** The challenge events of `block` (successful transactions only), in block order. */
  async #loadChallenges(block: L1BlockRef): Promise<void> {
    const address = this.params.challengeAddress!;
    const receipts = await this.#l1.receipts(block.hash);
    let txs: { input: Uint8Array }[] | undefined;
    for (let i = 0; i < receipts.length; i++) {
      const r = receipts[i];
      if (r.status !== 1) continue;
      for (const log of r.logs) {
        if (!isChallengeLog(log, address)) continue;
        let event;
        try {
          event = decodeChallengeLog(log);
        } catch (e) {
          this.#log.error("Cannot decode a challenge event in L1 block {block}: {message}", {
            block: Number(block.number),
            message: (e as Error).message,
          });
          continue;
        }
        const { commitment, blockNumber, status } = event;
        if (status === ChallengeStatus.Active) {
          this.#log.info("Alt-DA challenge", { block: Number(block.number), commitment: key(commitment) });
          this.state.createChallenge(commitment, block.number, blockNumber);
        } else if (status === ChallengeStatus.Resolved) {
          let input: Uint8Array | undefined;
          if (this.params.commitmentType === KECCAK256_COMMITMENT) {
            txs ??= (await this.#l1.blockWithTxs(block.hash)).txs;
            try {
              input = decodeResolveInput(txs[i].input);
            } catch (e) {
              this.#log.error("Cannot read the resolved input in L1 block {block}: {message}", {
                block: Number(block.number),
                message: (e as Error).message,
              });
              continue;
            }
            if (!commitmentMatches(commitment, input)) {
              this.#log.error("A resolved input does not match its commitment in L1 block {block}", {
                block: Number(block.number),
              });
              continue;
            }
          }
          if (!this.state.resolveChallenge(commitment, blockNumber, input)) {
            this.#log.error("A resolution of an untracked challenge in L1 block {block}", {
              block: Number(block.number),
            });
          } else {
            this.#log.info("Alt-DA challenge resolved", {
              block: Number(block.number),
              commitment: key(commitment),
            });
          }
        } else {
          this.#log.warn("Alt-DA challenge event with status {status} skipped", { status });
        }
      }
    }
  }

  /**
   * The input of commitment `c` read from L1 block `block`, or "skip" when derivation must go on
   * without it (a commitment of another type, an expired challenge).
   */
  async getInput(c: Commitment, block: L1BlockRef): Promise<Uint8Array | "skip"> {
    if (c.type !== this.params.commitmentType) return "skip";
    if (this.state.status(c, block.number) === ChallengeStatus.Expired) return "skip";
    this.state.trackCommitment(c, block);
    try {
      return await this.#storage.getInput(c);
    } catch (e) {
      if (!isErrorCode(e, "ALTDA_NOT_FOUND")) {
        throw new BaseError("ALTDA_UNAVAILABLE", (e as Error).message, { severity: "temporary", cause: e });
      }
    }
    this.#log.warn("Alt-DA input not found: reading L1 ahead for a challenge", {
      commitment: key(c),
      block: Number(block.number),
    });
    // Follow the challenge contract ahead of the pipeline until the commitment's fate is known or L1
    // has no more blocks (then wait for them).
    for (;;) {
      const status = this.state.status(c, block.number);
      if (status === ChallengeStatus.Expired) {
        // Never used: its expiry needs no re-derivation (op-node tracks it and re-derives anyway).
        this.state.untrackCommitment(c, block.number);
        return "skip";
      }
      if (status === ChallengeStatus.Resolved) {
        const input = this.state.challenge(c, block.number)?.input;
        if (c.type === GENERIC_COMMITMENT || input === undefined) throw this.#missing(c, block);
        return input;
      }
      if (
        status === ChallengeStatus.Uninitialized &&
        this.#challengeOrigin > block.number + this.params.challengeWindow
      ) {
        throw this.#missing(c, block);
      }
      let next: L1BlockRef;
      try {
        next = await this.#l1.blockRef(this.#challengeOrigin + 1n);
      } catch (e) {
        if (!isErrorCode(e, "L1_NOT_FOUND")) throw e;
        throw new BaseError(
          "ALTDA_PENDING_CHALLENGE",
          `Alt-DA input of commitment ${
            key(c)
          } not found; waiting for L1 (a challenge may still come or resolve)`,
          { severity: "temporary" },
        );
      }
      await this.#advanceChallengeOrigin(next);
    }
  }

  #missing(c: Commitment, block: L1BlockRef): BaseError {
    return new BaseError(
      "ALTDA_MISSING_PAST_WINDOW",
      `Alt-DA input of commitment ${
        key(c)
      } (L1 block ${block.number}) is not available and can no longer be challenged`,
    );
  }

  /**
   * L1 finality reached `l1Finalized`: commitments whose windows ended by then are pruned. Returns the
   * L1 block L2 may be finalized up to (undefined: none yet).
   */
  finalize(l1Finalized: L1BlockRef): L1BlockRef | undefined {
    this.state.prune(l1Finalized.number);
    this.finalizedHead = this.state.lastPrunedCommitment;
    return this.finalizedHead;
  }

  /**
   * The pipeline restarts at L1 block `base`: after an expired challenge the challenges are kept and
   * the commitments read again; after anything else (an L1 reorg) everything is read again.
   */
  reset(base: L1BlockRef): void {
    if (this.#resetting) {
      this.#resetting = false;
      this.#commitmentOrigin = base.number;
      this.state.clearCommitments();
    } else {
      this.#challengeOrigin = base.number;
      this.#commitmentOrigin = base.number;
      this.state.reset();
    }
  }
}

function key(c: Commitment): string {
  return bytesToHex(encodeCommitment(c));
}
