/**
 * What the host does with its peers' scores (interfaces.md 3.2 "Automatic banning", 4.5 --p2p.ban.*,
 * --p2p.peers.hi/grace; scoring.ts for the scores): bans peers that fall below the threshold, prunes
 * the lowest-scored peers above the high tide, decays the req-resp counters, and reports the scores of
 * interfaces.md 2.8.
 */
import type { Libp2p, PeerId } from "@libp2p/interface";
import { getLogger } from "../../common/logger.ts";
import { emptyScores, type PeerInfo } from "./peers.ts";
import { type ReqRespCounters, ReqRespScores } from "./scoring.ts";

export interface PeerPolicyOptions {
  /** GossipSub scoring is on (--p2p.scoring light); without it every peer scores 0. */
  scored: boolean;
  /** --p2p.ban.*: below `threshold`, a peer is dropped and refused for `durationMs`. */
  ban?: { threshold: number; durationMs: number };
  /** --p2p.peers.hi and --p2p.peers.grace, checked every `pruneMs`. */
  peersHi?: number;
  peersGraceMs?: number;
  pruneMs?: number;
  /** The block time in ms: the req-resp counters decay every slot. */
  slotMs: number;
}

export interface PeerPolicyHost {
  node(): Libp2p | undefined;
  /** GossipSub's pubsub service (its getScore and dumpPeerScoreStats). */
  // deno-lint-ignore no-explicit-any
  pubsub(): any;
  /** Protected (nodep2p_protectPeer) or static peers: never pruned. */
  spared(peer: string): boolean;
  /** Blocked by nodep2p_blockPeer. */
  blocked(peer: string): boolean;
}

export class PeerPolicy {
  readonly options: PeerPolicyOptions;
  readonly reqResp: ReqRespScores;
  readonly #host: PeerPolicyHost;
  readonly #log = getLogger(["rollup", "p2p"]);
  /** Peers banned by score, until (ms since the epoch). */
  readonly #banned = new Map<string, number>();
  readonly #timers: ReturnType<typeof setInterval>[] = [];

  constructor(options: PeerPolicyOptions, host: PeerPolicyHost) {
    this.options = options;
    this.#host = host;
    this.reqResp = new ReqRespScores(options.slotMs);
  }

  start(): void {
    const o = this.options;
    if (o.peersHi !== undefined) {
      this.#timers.push(setInterval(() => void this.#prune(), o.pruneMs ?? 30_000));
    }
    if (!o.scored) return;
    this.#timers.push(setInterval(() => this.reqResp.decay(), o.slotMs));
    if (o.ban !== undefined) this.#timers.push(setInterval(() => void this.#banLowScores(), 1_000));
  }

  stop(): void {
    for (const t of this.#timers.splice(0)) clearInterval(t);
  }

  score(peer: string): number {
    return this.options.scored ? Number(this.#host.pubsub().getScore(peer)) : 0;
  }

  /** Whether `peer` is banned by score and the ban has not run out. */
  isBanned(peer: string): boolean {
    const until = this.#banned.get(peer);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.#banned.delete(peer);
    return false;
  }

  /** Peers banned by score whose ban runs (blocked ones are listed as such). */
  bannedPeers(): string[] {
    return [...this.#banned.keys()].filter((p) => this.isBanned(p) && !this.#host.blocked(p));
  }

  /** A connected peer scoring below the threshold is dropped and banned. */
  async #banLowScores(): Promise<void> {
    const ban = this.options.ban;
    const node = this.#host.node();
    if (ban === undefined || node === undefined) return;
    for (const conn of node.getConnections()) {
      const id = conn.remotePeer.toString();
      const score = this.score(id);
      if (score >= ban.threshold || this.isBanned(id) || this.#host.blocked(id)) continue;
      this.#banned.set(id, Date.now() + ban.durationMs);
      this.#log.warn("Banned peer for its score", { peer: id, score, untilMs: ban.durationMs });
      await node.hangUp(conn.remotePeer).catch(() => {});
    }
  }

  /** Drops peers above the high tide: the lowest-scored first, sparing protected, static and new peers. */
  async #prune(): Promise<void> {
    const node = this.#host.node();
    const hi = this.options.peersHi;
    if (node === undefined || hi === undefined) return;
    const grace = this.options.peersGraceMs ?? 30_000;
    const now = Date.now();
    const peers = new Map<string, { peer: PeerId; since: number }>();
    for (const c of node.getConnections()) {
      const id = c.remotePeer.toString();
      peers.set(id, {
        peer: c.remotePeer,
        since: Math.min(c.timeline.open, peers.get(id)?.since ?? Infinity),
      });
    }
    let excess = peers.size - hi;
    if (excess <= 0) return;
    const candidates = [...peers.entries()]
      .filter(([id, p]) => !this.#host.spared(id) && now - p.since >= grace)
      .sort(([a], [b]) => this.score(a) - this.score(b));
    for (const [id, p] of candidates) {
      if (excess-- <= 0) break;
      this.#log.debug("Pruning peer above the high tide", { peer: id, peers: peers.size, hi });
      await node.hangUp(p.peer).catch(() => {});
    }
  }

  /** interfaces.md 2.8 `scores` of a peer: GossipSub's (the blocks topics summed) and the req-resp counters. */
  scores(peer: string): PeerInfo["scores"] {
    const scores = emptyScores();
    scores.reqResp = this.reqResp.counters(peer) satisfies ReqRespCounters;
    if (!this.options.scored) return scores;
    const pubsub = this.#host.pubsub();
    scores.gossip.total = Number(pubsub.getScore(peer));
    const stats = pubsub.dumpPeerScoreStats()[peer];
    if (stats === undefined) return scores;
    const b = scores.gossip.blocks;
    for (
      const t of Object.values(stats.topics) as {
        meshTime: number;
        firstMessageDeliveries: number;
        meshMessageDeliveries: number;
        invalidMessageDeliveries: number;
      }[]
    ) {
      b.timeInMesh += t.meshTime / 1000;
      b.firstMessageDeliveries += t.firstMessageDeliveries;
      b.meshMessageDeliveries += t.meshMessageDeliveries;
      b.invalidMessageDeliveries += t.invalidMessageDeliveries;
    }
    scores.gossip.behavioralPenalty = stats.behaviourPenalty;
    return scores;
  }
}
