/**
 * Peer scoring (rollup-node-p2p.md "Peer scoring"; interfaces.md --p2p.scoring, 3.2 "Automatic
 * banning"): GossipSub's v1.1 score with the "light" parameters of the OP Stack rollup nodes, and an
 * application score from the req-resp sync (payload_by_number): valid responses count for a peer,
 * error responses and rejected payloads against it.
 *
 * The parameters scale with the block time ("slot"): an epoch is 6 blocks; counters decay every slot
 * to 1% of their value over their decay span. Time values are milliseconds (the JS GossipSub's unit).
 */
import type { PeerScoreParams, PeerScoreThresholds, TopicScoreParams } from "@libp2p/gossipsub/score";

/** A counter below this fraction of its value is dropped to 0. */
const DECAY_TO_ZERO = 0.01;
/** Mesh delivery and mesh failure weight. */
const MESH_WEIGHT = -0.7;
/** The most a peer earns for its time in the mesh. */
const MAX_IN_MESH_SCORE = 10;
/** Epochs over which mesh counters decay. */
const DECAY_EPOCHS = 5;
const BLOCKS_PER_EPOCH = 6;

/** The decay factor per slot that brings a counter to DECAY_TO_ZERO over `spanMs`. */
export function scoreDecay(spanMs: number, slotMs: number): number {
  const ticks = Math.max(1, Math.floor(spanMs / slotMs));
  return Math.pow(DECAY_TO_ZERO, 1 / ticks);
}

/** Score thresholds of light scoring. */
export const LIGHT_THRESHOLDS: PeerScoreThresholds = {
  gossipThreshold: -10,
  publishThreshold: -40,
  graylistThreshold: -40,
  acceptPXThreshold: 20,
  opportunisticGraftThreshold: 0.05,
};

/** Per-topic parameters of a blocks topic: an invalid block costs -140.4 x 0.8 (below the -100 ban line). */
export function blocksTopicScoreParams(slotMs: number): TopicScoreParams {
  const epoch = slotMs * BLOCKS_PER_EPOCH;
  const inMeshCap = 3_600_000 / slotMs;
  const meshDecay = scoreDecay(DECAY_EPOCHS * epoch, slotMs);
  return {
    topicWeight: 0.8,
    timeInMeshWeight: MAX_IN_MESH_SCORE / inMeshCap,
    timeInMeshQuantum: slotMs,
    timeInMeshCap: inMeshCap,
    firstMessageDeliveriesWeight: 1,
    firstMessageDeliveriesDecay: scoreDecay(20 * epoch, slotMs),
    firstMessageDeliveriesCap: 23,
    meshMessageDeliveriesWeight: MESH_WEIGHT,
    meshMessageDeliveriesDecay: meshDecay,
    meshMessageDeliveriesCap: BLOCKS_PER_EPOCH * DECAY_EPOCHS,
    meshMessageDeliveriesThreshold: (BLOCKS_PER_EPOCH * DECAY_EPOCHS) / 10,
    meshMessageDeliveriesWindow: 2_000,
    meshMessageDeliveriesActivation: 4 * epoch,
    meshFailurePenaltyWeight: MESH_WEIGHT,
    meshFailurePenaltyDecay: meshDecay,
    invalidMessageDeliveriesWeight: -140.4475,
    invalidMessageDeliveriesDecay: scoreDecay(50 * epoch, slotMs),
  };
}

/** The peer score parameters of light scoring for `topics`, with `appScore` as P5. */
export function lightScoreParams(
  slotMs: number,
  topics: string[],
  appScore: (peer: string) => number,
): PeerScoreParams {
  const epoch = slotMs * BLOCKS_PER_EPOCH;
  return {
    topics: Object.fromEntries(topics.map((t) => [t, blocksTopicScoreParams(slotMs)])),
    topicScoreCap: 34,
    appSpecificScore: appScore,
    appSpecificWeight: 1,
    IPColocationFactorWeight: -35,
    IPColocationFactorThreshold: 10,
    IPColocationFactorWhitelist: new Set(),
    behaviourPenaltyWeight: -16,
    behaviourPenaltyThreshold: 6,
    behaviourPenaltyDecay: scoreDecay(10 * epoch, slotMs),
    decayInterval: slotMs,
    decayToZero: DECAY_TO_ZERO,
    retainScore: 100 * epoch,
  };
}

/** interfaces.md 2.8 `scores.reqResp`. */
export interface ReqRespCounters {
  validResponses: number;
  errorResponses: number;
  rejectedPayloads: number;
}

/** Caps and weights of the req-resp application score. */
const REQ_RESP = {
  validResponses: { cap: 10, weight: 0.5 },
  errorResponses: { cap: 10, weight: -10 },
  rejectedPayloads: { cap: 20, weight: -50 },
} as const;

/** The req-resp counters of each peer, decayed every slot; their weighted sum is the application score. */
export class ReqRespScores {
  readonly #peers = new Map<string, ReqRespCounters>();
  readonly #decay: number;

  constructor(slotMs: number) {
    this.#decay = scoreDecay(10 * BLOCKS_PER_EPOCH * slotMs, slotMs);
  }

  record(peer: string, what: keyof ReqRespCounters): void {
    let c = this.#peers.get(peer);
    if (c === undefined) {
      this.#peers.set(peer, c = { validResponses: 0, errorResponses: 0, rejectedPayloads: 0 });
    }
    c[what] = Math.min(c[what] + 1, REQ_RESP[what].cap);
  }

  counters(peer: string): ReqRespCounters {
    return { ...(this.#peers.get(peer) ?? { validResponses: 0, errorResponses: 0, rejectedPayloads: 0 }) };
  }

  /** The application score (GossipSub P5). */
  score(peer: string): number {
    const c = this.#peers.get(peer);
    if (c === undefined) return 0;
    let s = 0;
    for (const k of Object.keys(REQ_RESP) as (keyof ReqRespCounters)[]) s += c[k] * REQ_RESP[k].weight;
    return s;
  }

  /** One slot's decay: counters shrink, and drop to 0 below DECAY_TO_ZERO. */
  decay(): void {
    for (const [peer, c] of this.#peers) {
      let live = false;
      for (const k of Object.keys(REQ_RESP) as (keyof ReqRespCounters)[]) {
        c[k] *= this.#decay;
        if (c[k] < DECAY_TO_ZERO) c[k] = 0;
        else live = true;
      }
      if (!live) this.#peers.delete(peer);
    }
  }
}
