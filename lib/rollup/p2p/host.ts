/**
 * The rollup node's p2p host (specs/protocol/rollup-node-p2p.md "LibP2P", "GossipSub"): a libp2p node
 * (TCP, noise, yamux, identify) running GossipSub 1.1 with the spec's parameters, content-addressed
 * message ids and no message signing (StrictNoSign: blocks carry the sequencer's own signature). It
 * joins the blocks topics of every version; each message is validated (protocol/gossip_block.ts: the
 * encoding, the time window, the fields of its topic version, the unsafe block signer, at most 5
 * blocks per height, duplicates ignored) before it is relayed or handed to `onBlock`. A sequencer
 * publishes its blocks signed with its key.
 *
 * Peer controls (interfaces.md 3.2): blocked peers, IP addresses and subnets are refused by the
 * connection gater; protected peers are tagged to stay connected. Static peers are dialled at start
 * and again when they drop; discv5 (discovery.ts) finds the others.
 */
import { noise } from "@chainsafe/libp2p-noise";
import { yamux } from "@chainsafe/libp2p-yamux";
import { gossipsub, StrictNoSign, TopicValidatorResult } from "@libp2p/gossipsub";
import { identify } from "@libp2p/identify";
import type { PeerId, Stream } from "@libp2p/interface";
import { peerIdFromString } from "@libp2p/peer-id";
import { tcp } from "@libp2p/tcp";
import { type Multiaddr, multiaddr } from "@multiformats/multiaddr";
import { createLibp2p, type Libp2p } from "libp2p";
import { bytesToHex, equalBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import { keccak256 } from "../../common/hash.ts";
import { getLogger } from "../../common/logger.ts";
import type { ExecutionPayload } from "../../protocol/engine.ts";
import {
  blocksTopic,
  type BlocksTopicVersion,
  blocksTopicVersion,
  decodeGossipBlock,
  encodeSignedGossipBlock,
  type GossipBlock,
  gossipMessageId,
  gossipSignedBytes,
  MAX_GOSSIP_SIZE,
} from "../../protocol/gossip_block.ts";
import { isRollupForkActive, type RollupConfig } from "../../protocol/rollup_config.ts";
import {
  payloadByNumberProtocol,
  type PayloadWithRoot,
  requestPayloadByNumber,
  servePayloadByNumber,
} from "./payload_by_number.ts";
import type { BlockSigner } from "./block_signer.ts";
import { Discovery, type DiscoveryOptions } from "./discovery.ts";
import { isListenFailure, listenFailure } from "./listen_failure.ts";
import { type PublicAddressMapper, startHostNat } from "./host_nat.ts";
import type { NatDiscoveryOptions, NatMappingResult } from "./nat.ts";
import { loadOrCreateKey } from "./identity.ts";
import { SqliteDatastore } from "./peerstore.ts";
import { LIGHT_THRESHOLDS, lightScoreParams, type ReqRespScores } from "./scoring.ts";
import { PeerPolicy } from "./peer_policy.ts";
import { emptyScores, ipInSubnet, ipOf, nodeId, type PeerInfo, type PeerStats } from "./peers.ts";

/** "Block validation": more than 5 different blocks at one height are rejected. */
const MAX_BLOCKS_PER_HEIGHT = 5;
/** Heights remembered for the per-height limit (a few minutes of 2-second blocks). */
const SEEN_HEIGHTS = 1_000;
const PROTECT_TAG = "keel-protected";
const USER_AGENT = "keel";

export interface P2pHostOptions {
  listenIp: string;
  listenTcp: number;
  /** Multiaddrs with /p2p/<id> dialled at start and redialled (--p2p.static). */
  staticPeers: string[];
  /** The node's secp256k1 key, hex (--p2p.priv.path); made and written there when missing. */
  privKeyPath?: string;
  /** Signs the sequencer's blocks (--p2p.sequencer.key or --signer.endpoint): the node publishes them. */
  signer?: BlockSigner;
  /** Milliseconds between redials of static peers that are not connected. */
  redialMs: number;
  /** Peers wanted (--p2p.peers.lo): discovery looks for more while fewer are connected. */
  peersLo?: number;
  /** Discv5 (discovery.ts); undefined with --p2p.no-discovery. */
  discovery?: Omit<DiscoveryOptions, "chainId" | "listenIp" | "tcpPort">;
  /** Peer scoring (--p2p.scoring, scoring.ts; default none). */
  scoring?: "none" | "light";
  /** Automatic banning by score (--p2p.ban.*): below `threshold`, a peer is dropped for `durationMs`. */
  ban?: { threshold: number; durationMs: number };
  /** The peerstore's directory (--p2p.peerstore.path, peerstore.ts); undefined keeps it in memory. */
  peerstorePath?: string;
  /** Gossiped blocks older than this many seconds are rejected (--p2p.gossip.timestamp.threshold; 60). */
  gossipMaxAgeSeconds?: number;
  /** Serve payload_by_number (--p2p.sync.req-resp; default true). */
  reqResp?: boolean;
  /** Only these IPv4 networks (CIDR) are dialled or accepted (--p2p.netrestrict); empty or undefined: all. */
  netRestrict?: string[];
  /**
   * Above this many peers the host prunes (--p2p.peers.hi): every `pruneMs`, the lowest-scored peers that
   * are neither protected nor static and have been connected longer than `peersGraceMs` (--p2p.peers.grace)
   * are dropped down to it.
   */
  peersHi?: number;
  peersGraceMs?: number;
  pruneMs?: number;
  /**
   * --p2p.nat: the TCP port (and discovery's UDP port) mapped on a UPnP or NAT-PMP gateway and the
   * external address announced (host_nat.ts); the options name the gateway in tests.
   */
  nat?: NatDiscoveryOptions;
}

export interface P2pHostDeps {
  cfg: RollupConfig;
  /** The address whose signature blocks must carry (the SystemConfig's unsafe block signer). */
  unsafeBlockSigner: () => Uint8Array | undefined;
  /** A validated block from a peer. */
  onBlock: (block: GossipBlock, from: string) => void;
  /** Seconds since the epoch (tests pass a clock). */
  now?: () => number;
  /** Blocks this node serves over payload_by_number (its canonical chain). */
  payloadByNumber?: (number: bigint) => Promise<PayloadWithRoot | undefined>;
  /** Each gossip event of a kind op-node's pubsub tracer counts (GossipEvent). */
  onGossipEvent?: (type: GossipEvent) => void;
}

/**
 * The gossip events the host sees, under the names of libp2p's pubsub trace (op-node's
 * p2p_gossip_events_total{type}): a block published, a message accepted by the validator and delivered,
 * one rejected or ignored by it (go-libp2p-pubsub traces both as REJECT_MESSAGE), a topic joined, a peer
 * grafted to or pruned from a topic mesh. js-libp2p gossipsub has no tracer for the RPC-level events
 * (RECV_RPC, SEND_RPC, DROP_RPC), duplicates, or ADD_PEER / REMOVE_PEER.
 */
export type GossipEvent =
  | "PUBLISH_MESSAGE"
  | "DELIVER_MESSAGE"
  | "REJECT_MESSAGE"
  | "JOIN"
  | "GRAFT"
  | "PRUNE";

export class P2pHost {
  readonly options: P2pHostOptions;
  readonly #deps: P2pHostDeps;
  readonly #log = getLogger(["rollup", "p2p"]);
  #node: Libp2p | undefined;
  readonly blockedPeers = new Set<string>();
  readonly blockedAddrs = new Set<string>();
  readonly blockedSubnets = new Set<string>();
  readonly #protected = new Set<string>();
  /** Block hashes seen per height (hex), for the per-height limit and duplicates. */
  readonly #seen = new Map<bigint, Set<string>>();
  #redial: ReturnType<typeof setInterval> | undefined;
  #discovery: Discovery | undefined;
  #datastore: SqliteDatastore | undefined;
  /** The NAT port mapping in the making or kept (--p2p.nat); undefined inside when no gateway served. */
  #nat: Promise<Awaited<ReturnType<typeof startHostNat>>> | undefined;
  readonly policy: PeerPolicy;
  /** Blocks published and received (accepted), for logs and tests. */
  readonly stats = { published: 0, accepted: 0, rejected: 0, ignored: 0 };

  constructor(options: P2pHostOptions, deps: P2pHostDeps) {
    this.options = options;
    this.#deps = deps;
    this.policy = new PeerPolicy({
      scored: options.scoring === "light",
      ban: options.ban,
      peersHi: options.peersHi,
      peersGraceMs: options.peersGraceMs,
      pruneMs: options.pruneMs,
      slotMs: this.#slotMs,
    }, {
      node: () => this.#node,
      pubsub: () => this.#pubsub,
      spared: (peer) => this.#protected.has(peer) || this.isStatic(peer),
      blocked: (peer) => this.blockedPeers.has(peer),
    });
  }

  /** The req-resp scores of peers (payload_by_number answers). */
  get reqResp(): ReqRespScores {
    return this.policy.reqResp;
  }

  get #slotMs(): number {
    return Number(this.#deps.cfg.blockTime ?? 2n) * 1000;
  }

  /** Whether `peer` is blocked (nodep2p_blockPeer) or banned by score and the ban has not run out. */
  #refused(peer: string): boolean {
    return this.blockedPeers.has(peer) || this.policy.isBanned(peer);
  }

  get node(): Libp2p {
    if (this.#node === undefined) {
      throw new BaseError("P2P_NOT_STARTED", "Cannot use p2p: the host is not started");
    }
    return this.#node;
  }

  // deno-lint-ignore no-explicit-any
  get #pubsub(): any {
    return this.node.services.pubsub;
  }

  #denied(addr: Multiaddr | undefined): boolean {
    const ip = addr === undefined ? undefined : ipOf(addr);
    if (ip === undefined) return false;
    if (this.blockedAddrs.has(ip)) return true;
    for (const s of this.blockedSubnets) if (ipInSubnet(ip, s)) return true;
    return !this.allowedIp(ip);
  }

  /** Whether --p2p.netrestrict lets the node talk to `ip` (every IP when it names no network). */
  allowedIp(ip: string): boolean {
    const nets = this.options.netRestrict ?? [];
    return nets.length === 0 || nets.some((n) => ipInSubnet(ip, n));
  }

  /** Whether `peer` is one of the --p2p.static peers. */
  isStatic(peer: string): boolean {
    return this.options.staticPeers.some((s) => s.endsWith(`/p2p/${peer}`));
  }

  async start(): Promise<void> {
    const privateKey = await loadOrCreateKey(this.options.privKeyPath);
    const ip = this.options.listenIp.includes(":") ? "ip6" : "ip4";
    if (this.options.peerstorePath !== undefined) {
      this.#datastore = await SqliteDatastore.open(this.options.peerstorePath);
      this.#datastore.keepSelfKey(privateKey);
    }
    const listen = `/${ip}/${this.options.listenIp}/tcp/${this.options.listenTcp}`;
    this.#node = await createLibp2p({
      privateKey,
      ...(this.#datastore !== undefined ? { datastore: this.#datastore } : {}),
      nodeInfo: { userAgent: USER_AGENT },
      addresses: { listen: [listen] },
      transports: [tcp()],
      connectionEncrypters: [noise()],
      streamMuxers: [yamux()],
      connectionGater: {
        denyDialPeer: (peer: PeerId) => this.#refused(peer.toString()),
        denyDialMultiaddr: (addr: Multiaddr) => this.#denied(addr),
        denyInboundConnection: (conn: { remoteAddr: Multiaddr }) => this.#denied(conn.remoteAddr),
        denyInboundEncryptedConnection: (peer: PeerId) => this.#refused(peer.toString()),
        denyOutboundEncryptedConnection: (peer: PeerId) => this.#refused(peer.toString()),
      },
      services: {
        identify: identify(),
        // The address manager, for the NAT mapping's external address (host_nat.ts).
        addresses: (components: { addressManager: PublicAddressMapper }) => ({
          manager: components.addressManager,
        }),
        // rollup-node-p2p.md "Heartbeat and parameters", "Content-based message identification".
        pubsub: gossipsub({
          D: 8,
          Dlo: 6,
          Dhi: 12,
          Dlazy: 6,
          heartbeatInterval: 500,
          fanoutTTL: 24_000,
          mcacheLength: 12,
          mcacheGossip: 3,
          seenTTL: 65_000,
          globalSignaturePolicy: StrictNoSign,
          msgIdFn: (msg) => gossipMessageId(msg.data),
          maxInboundDataLength: MAX_GOSSIP_SIZE + 1024,
          allowPublishToZeroTopicPeers: true,
          emitSelf: false,
          ...(this.options.scoring === "light"
            ? {
              scoreParams: lightScoreParams(
                this.#slotMs,
                ([0, 1, 2, 3] as BlocksTopicVersion[]).map((v) => blocksTopic(this.#deps.cfg.l2ChainId, v)),
                (peer) => this.reqResp.score(peer),
              ),
              scoreThresholds: LIGHT_THRESHOLDS,
            }
            : {}),
        }),
      },
    }).catch((e) => {
      this.#datastore?.close();
      this.#datastore = undefined;
      if (!isListenFailure(e)) throw e;
      throw new BaseError(
        "P2P_LISTEN",
        `Cannot listen for p2p on TCP ${this.options.listenIp}:${this.options.listenTcp} (--p2p.listen.ip, --p2p.listen.tcp): ${
          listenFailure(e)
        }`,
        { cause: e, meta: { listen } },
      );
    });
    const pubsub = this.#pubsub;
    const onGossip = this.#deps.onGossipEvent;
    if (onGossip !== undefined) {
      pubsub.addEventListener("gossipsub:graft", () => onGossip("GRAFT"));
      pubsub.addEventListener("gossipsub:prune", () => onGossip("PRUNE"));
    }
    for (const version of [0, 1, 2, 3] as BlocksTopicVersion[]) {
      const topic = blocksTopic(this.#deps.cfg.l2ChainId, version);
      pubsub.topicValidators.set(
        topic,
        (peer: PeerId, msg: { data: Uint8Array }) => this.#validate(version, msg.data, peer.toString()),
      );
      pubsub.subscribe(topic);
      onGossip?.("JOIN");
    }
    if (this.options.reqResp !== false) {
      await this.node.handle(
        payloadByNumberProtocol(this.#deps.cfg.l2ChainId),
        (stream) => this.#serve(stream),
      );
    }
    await this.#dialStatic();
    this.#redial = setInterval(() => void this.#dialStatic(), this.options.redialMs);
    if (this.#datastore !== undefined) void this.#dialKnown();
    if (this.options.discovery !== undefined) await this.#startDiscovery(privateKey);
    if (this.options.nat !== undefined) this.#nat = this.#startNat(this.options.nat);
    this.policy.start();
    this.#log.info("P2P host started", {
      peerId: this.node.peerId.toString(),
      addresses: this.node.getMultiaddrs().map(String).join(","),
      publishing: this.options.signer?.name ?? "no",
      discovery: this.#discovery !== undefined,
    });
  }

  /** In the background (a gateway may take seconds to answer, or never): the node starts without it. */
  async #startNat(options: NatDiscoveryOptions): Promise<Awaited<ReturnType<typeof startHostNat>>> {
    const discovery = this.#discovery;
    try {
      return await startHostNat({
        tcpPort: this.#tcpPort(),
        udpPort: discovery?.udpPort,
        addresses: (this.node.services as { addresses: { manager: PublicAddressMapper } }).addresses.manager,
        setRecordAddress: discovery === undefined
          ? undefined
          : (ip, tcp, udp) => discovery.setExternal(ip, tcp, udp),
      }, options);
    } catch (e) {
      this.#log.warn("--p2p.nat: port mapping failed", { error: (e as Error).message });
      return undefined;
    }
  }

  /** The NAT mapping the host announces (--p2p.nat), once the gateway answered; undefined without one. */
  async natMapping(): Promise<NatMappingResult | undefined> {
    return (await this.#nat)?.result;
  }

  /** The TCP port the host listens on (the one bound, for --p2p.listen.tcp 0). */
  #tcpPort(): number {
    return Number(
      this.node.getMultiaddrs().flatMap((a) => a.getComponents()).find((c) => c.name === "tcp")?.value ??
        this.options.listenTcp,
    );
  }

  async #startDiscovery(privateKey: Awaited<ReturnType<typeof loadOrCreateKey>>): Promise<void> {
    const node = this.node;
    const tcpPort = this.#tcpPort();
    const discovery = new Discovery({
      ...this.options.discovery!,
      chainId: this.#deps.cfg.l2ChainId,
      listenIp: this.options.listenIp,
      tcpPort,
    }, {
      wanted: () => Math.max(0, (this.options.peersLo ?? 20) - this.#connectedPeers()),
      allowedIp: (ip) => this.allowedIp(ip),
      dial: async (addr, peerId) => {
        if (this.blockedPeers.has(peerId) || node.getConnections(peerIdFromString(peerId)).length > 0) return;
        await node.dial(multiaddr(addr));
      },
    });
    await discovery.start(privateKey);
    this.#discovery = discovery;
  }

  #connectedPeers(): number {
    return new Set(this.node.getConnections().map((c) => c.remotePeer.toString())).size;
  }

  /** The peers connected and the streams open over their connections (zero when not started). */
  connectionCounts(): { peers: number; streams: number } {
    const node = this.#node;
    if (node === undefined) return { peers: 0, streams: 0 };
    const connections = node.getConnections();
    return {
      peers: new Set(connections.map((c) => c.remotePeer.toString())).size,
      streams: connections.reduce((n, c) => n + c.streams.length, 0),
    };
  }

  /** Peers banned by score whose ban runs. */
  bannedPeers(): string[] {
    return this.policy.bannedPeers();
  }

  /** Counts a payload_by_number answer of `peer` whose block the node then refused (req-resp score). */
  rejectedPayload(peer: string): void {
    this.reqResp.record(peer, "rejectedPayloads");
  }

  async stop(): Promise<void> {
    if (this.#redial !== undefined) clearInterval(this.#redial);
    this.#redial = undefined;
    const nat = await this.#nat;
    this.#nat = undefined;
    await nat?.stop();
    this.policy.stop();
    await this.#discovery?.stop();
    this.#discovery = undefined;
    await this.#node?.stop();
    this.#node = undefined;
    this.#datastore?.close();
    this.#datastore = undefined;
  }

  /** The discv5 table's records (nodep2p_discoveryTable); throws when discovery is off. */
  discoveryTable(): string[] {
    if (this.#discovery === undefined) {
      throw new BaseError("DISCOVERY_DISABLED", "discovery disabled");
    }
    return this.#discovery.table();
  }

  /** After a restart: dials the peers the peerstore remembers, up to --p2p.peers.lo, in the background. */
  async #dialKnown(): Promise<void> {
    const node = this.#node;
    if (node === undefined) return;
    const want = this.options.peersLo ?? 20;
    for (const peer of await node.peerStore.all()) {
      if (this.#node !== node || this.#connectedPeers() >= want) return;
      const id = peer.id.toString();
      if (peer.addresses.length === 0 || this.#refused(id) || id === node.peerId.toString()) continue;
      if (node.getConnections(peer.id).length > 0) continue;
      await node.dial(peer.id).catch((e) =>
        this.#log.debug("Cannot dial a known peer", { peer: id, error: (e as Error).message })
      );
    }
  }

  async #dialStatic(): Promise<void> {
    const node = this.#node;
    if (node === undefined) return;
    for (const s of this.options.staticPeers) {
      try {
        const addr = multiaddr(s);
        const id = addr.getComponents().find((c) => c.name === "p2p")?.value;
        if (id !== undefined && node.getConnections(peerIdFromString(id)).length > 0) continue;
        await node.dial(addr);
      } catch (e) {
        this.#log.debug("Cannot dial static peer", { peer: s, error: (e as Error).message });
      }
    }
  }

  /** "Block validation", in the spec's order; accepted blocks go to onBlock. */
  #validate(version: BlocksTopicVersion, data: Uint8Array, from: string): TopicValidatorResult {
    const now = BigInt(Math.floor(this.#deps.now?.() ?? Date.now() / 1000));
    let decoded;
    try {
      // Jovian is known from the block's own timestamp, which only decoding tells: check after.
      decoded = decodeGossipBlock(data, version, this.#deps.cfg.l2ChainId, {
        now,
        jovian: true,
        maxAge: BigInt(this.options.gossipMaxAgeSeconds ?? 60),
      });
    } catch (e) {
      return this.#reject(from, (e as Error).message);
    }
    const { block, signer } = decoded;
    const p = block.payload;
    if (blocksTopicVersion(this.#deps.cfg, p.timestamp) !== version) {
      return this.#reject(from, `block ${p.blockNumber} does not belong on topic version ${version}`);
    }
    if (
      version >= 2 && p.blobGasUsed !== 0n && !isRollupForkActive(this.#deps.cfg, "jovian", p.timestamp)
    ) {
      return this.#reject(from, "blobGasUsed must be 0 before Jovian");
    }
    let seen = this.#seen.get(p.blockNumber);
    const hash = bytesToHex(p.blockHash);
    if (seen?.has(hash)) {
      this.stats.ignored++;
      this.#deps.onGossipEvent?.("REJECT_MESSAGE");
      return TopicValidatorResult.Ignore;
    }
    if (seen !== undefined && seen.size >= MAX_BLOCKS_PER_HEIGHT) {
      return this.#reject(from, `more than ${MAX_BLOCKS_PER_HEIGHT} blocks at height ${p.blockNumber}`);
    }
    const expected = this.#deps.unsafeBlockSigner();
    if (expected === undefined) {
      // The signer is not read from L1 yet: not the peer's fault, so no penalty (the block comes again
      // over L1 or a later message).
      this.stats.ignored++;
      this.#deps.onGossipEvent?.("REJECT_MESSAGE");
      return TopicValidatorResult.Ignore;
    }
    if (!equalBytes(signer, expected)) {
      return this.#reject(from, `block ${p.blockNumber} signed by ${bytesToHex(signer)}, not the sequencer`);
    }
    if (seen === undefined) {
      this.#seen.set(p.blockNumber, seen = new Set());
      if (this.#seen.size > SEEN_HEIGHTS) this.#seen.delete(this.#seen.keys().next().value!);
    }
    seen.add(hash);
    this.stats.accepted++;
    this.#deps.onGossipEvent?.("DELIVER_MESSAGE");
    this.#deps.onBlock(block, from);
    return TopicValidatorResult.Accept;
  }

  #reject(from: string, why: string): TopicValidatorResult {
    this.stats.rejected++;
    this.#deps.onGossipEvent?.("REJECT_MESSAGE");
    this.#log.warn("Rejected gossiped block", { peer: from, reason: why });
    return TopicValidatorResult.Reject;
  }

  /** Publishes a block this node sequenced, signed by its block signer. */
  async publish(payload: ExecutionPayload, parentBeaconBlockRoot?: Uint8Array): Promise<void> {
    const signer = this.options.signer;
    if (signer === undefined || this.#node === undefined) return;
    const version = blocksTopicVersion(this.#deps.cfg, payload.timestamp);
    const signed = gossipSignedBytes(payload, parentBeaconBlockRoot, version);
    const signature = await signer.sign(this.#deps.cfg.l2ChainId, keccak256(signed));
    await this.#publish(version, payload, encodeSignedGossipBlock(signed, signature));
  }

  /** Publishes a block with a signature made elsewhere (opstack_publishBlockV1): sent as given. */
  async publishSigned(
    payload: ExecutionPayload,
    parentBeaconBlockRoot: Uint8Array | undefined,
    signature: Uint8Array,
  ): Promise<void> {
    if (this.#node === undefined) {
      throw new BaseError("P2P_NOT_STARTED", "Cannot publish: the p2p host is not started");
    }
    const version = blocksTopicVersion(this.#deps.cfg, payload.timestamp);
    const signed = gossipSignedBytes(payload, parentBeaconBlockRoot, version);
    await this.#publish(version, payload, encodeSignedGossipBlock(signed, signature));
  }

  async #publish(version: BlocksTopicVersion, payload: ExecutionPayload, data: Uint8Array): Promise<void> {
    let seen = this.#seen.get(payload.blockNumber);
    if (seen === undefined) this.#seen.set(payload.blockNumber, seen = new Set());
    seen.add(bytesToHex(payload.blockHash));
    await this.#pubsub.publish(blocksTopic(this.#deps.cfg.l2ChainId, version), data);
    this.stats.published++;
    this.#deps.onGossipEvent?.("PUBLISH_MESSAGE");
  }

  /** payload_by_number, served: one request, one response, then the stream closes. */
  async #serve(stream: Stream): Promise<void> {
    const failure = await servePayloadByNumber(stream, this.#deps.cfg, this.#deps.payloadByNumber);
    if (failure !== undefined) this.#log.debug("payload_by_number request failed", { error: failure });
  }

  /** Asks `peer` for block `number` (payload_by_number); throws when it cannot or will not answer. */
  async requestPayload(peer: string, number: bigint, timeoutMs = 10_000): Promise<PayloadWithRoot> {
    const stream = await this.node.dialProtocol(
      peerIdFromString(peer),
      payloadByNumberProtocol(this.#deps.cfg.l2ChainId),
      { signal: AbortSignal.timeout(timeoutMs) },
    );
    try {
      const block = await requestPayloadByNumber(stream, this.#deps.cfg, number);
      this.reqResp.record(peer, "validResponses");
      return block;
    } catch (e) {
      this.reqResp.record(peer, "errorResponses");
      throw e;
    } finally {
      await stream.close().catch(() => stream.abort(new Error("closed")));
    }
  }

  // interfaces.md 3.2, the peer controls of the nodep2p namespace.

  async blockPeer(id: string): Promise<void> {
    const peer = peerIdFromString(id);
    this.blockedPeers.add(peer.toString());
    await this.node.hangUp(peer).catch(() => {});
  }

  unblockPeer(id: string): void {
    this.blockedPeers.delete(peerIdFromString(id).toString());
  }

  async blockAddr(ip: string): Promise<void> {
    this.blockedAddrs.add(ip);
    await this.#dropDenied();
  }

  unblockAddr(ip: string): void {
    this.blockedAddrs.delete(ip);
  }

  async blockSubnet(cidr: string): Promise<void> {
    this.blockedSubnets.add(cidr);
    await this.#dropDenied();
  }

  unblockSubnet(cidr: string): void {
    this.blockedSubnets.delete(cidr);
  }

  async #dropDenied(): Promise<void> {
    for (const c of this.node.getConnections()) {
      if (this.#denied(c.remoteAddr)) await c.close().catch(() => {});
    }
  }

  async protectPeer(id: string): Promise<void> {
    const peer = peerIdFromString(id);
    this.#protected.add(peer.toString());
    await this.node.peerStore.merge(peer, { tags: { [PROTECT_TAG]: { value: 100 } } });
  }

  async unprotectPeer(id: string): Promise<void> {
    const peer = peerIdFromString(id);
    this.#protected.delete(peer.toString());
    await this.node.peerStore.merge(peer, { tags: { [PROTECT_TAG]: undefined } });
  }

  isProtected(id: string): boolean {
    return this.#protected.has(id);
  }

  async connectPeer(addr: string): Promise<void> {
    await this.node.dial(multiaddr(addr));
  }

  async disconnectPeer(id: string): Promise<void> {
    await this.node.hangUp(peerIdFromString(id));
  }

  /** interfaces.md 2.10; `table` is the size of the discovery table (0 with discovery off). */
  async peerStats(): Promise<PeerStats> {
    const pubsub = this.#pubsub;
    const subscribers = (v: BlocksTopicVersion) =>
      pubsub.getSubscribers(blocksTopic(this.#deps.cfg.l2ChainId, v)).length;
    return {
      connected: this.#connectedPeers(),
      table: this.#discovery?.tableSize ?? 0,
      blocksTopic: subscribers(0),
      blocksTopicV2: subscribers(1),
      banned: this.blockedPeers.size + this.bannedPeers().length,
      known: (await this.node.peerStore.all()).length,
    };
  }

  /** interfaces.md 2.8 for this node. */
  selfInfo(): PeerInfo {
    const node = this.node;
    return {
      peerID: node.peerId.toString(),
      nodeID: nodeId(node.peerId),
      userAgent: USER_AGENT,
      protocolVersion: "",
      ENR: this.#discovery?.enr ?? "",
      addresses: node.getMultiaddrs().map(String),
      protocols: node.getProtocols(),
      connectedness: 0,
      direction: 0,
      protected: false,
      chainID: Number(this.#deps.cfg.l2ChainId),
      latency: 0,
      gossipBlocks: true,
      scores: emptyScores(),
    };
  }

  /** interfaces.md 2.8 for each connected peer, by peer id. */
  async peersInfo(): Promise<Record<string, PeerInfo>> {
    const node = this.node;
    const out: Record<string, PeerInfo> = {};
    const dec = new TextDecoder();
    for (const conn of node.getConnections()) {
      const id = conn.remotePeer.toString();
      if (out[id] !== undefined) continue;
      const stored = await node.peerStore.get(conn.remotePeer).catch(() => undefined);
      const meta = (k: string) => {
        const v = stored?.metadata.get(k);
        return v === undefined ? "" : dec.decode(v);
      };
      const topics = this.#pubsub.getTopics() as string[];
      const gossipBlocks = topics.some((t) =>
        (this.#pubsub.getSubscribers(t) as PeerId[]).some((p) => p.toString() === id)
      );
      const scores = this.policy.scores(id);
      out[id] = {
        peerID: id,
        nodeID: nodeId(conn.remotePeer),
        userAgent: meta("AgentVersion"),
        protocolVersion: meta("ProtocolVersion"),
        ENR: this.#discovery?.enrOf(id) ?? "",
        addresses: (stored?.addresses ?? []).map((a) => `${a.multiaddr.toString()}/p2p/${id}`),
        protocols: stored?.protocols ?? null,
        connectedness: 1, // go-libp2p network.Connected
        direction: conn.direction === "inbound" ? 1 : 2, // network.DirInbound, DirOutbound
        protected: this.#protected.has(id),
        chainID: Number(this.#deps.cfg.l2ChainId),
        latency: 0,
        gossipBlocks,
        scores,
      };
    }
    return out;
  }
}
