/**
 * The node's p2p service: the host (lib/rollup/p2p) with the node's options, the unsafe block signer
 * read from the SystemConfig on L1 (again every --l1.runtime-config-reload-interval: a SystemConfig update
 * may change it), and the validated blocks inserted into the engine one at a time.
 */
import { isIP } from "node:net";
import { bytesToHex, hexToBytes } from "../common/bytes.ts";
import { BaseError } from "../common/errors.ts";
import { getLogger } from "../common/logger.ts";
import type { Metrics } from "../common/metrics.ts";
import type { NodeOptions } from "../config/mod.ts";
import type { JsonRpcClient } from "../common/json_rpc_client.ts";
import { l1Rpc } from "./l1_rpc.ts";
import type { L2BlockRef } from "../protocol/block_ref.ts";
import type { EngineApi } from "../protocol/engine.ts";
import type { RollupConfig } from "../protocol/rollup_config.ts";
import type { L2Chain } from "../rollup/driver/mod.ts";
import type { GossipBlock } from "../protocol/gossip_block.ts";
import {
  type ElSync,
  type ElSyncDeps,
  insertUnsafeBlock,
  MAX_UNSAFE_PAYLOADS_BYTES,
  P2pHost,
  payloadMemSize,
  type PayloadWithRoot,
  readUnsafeBlockSigner,
  type UnsafePayloadQueue,
} from "../rollup/p2p/mod.ts";
import { type BlockSigner, LocalBlockSigner, RemoteBlockSigner } from "../rollup/p2p/block_signer.ts";

/** Blocks from req-resp carry no signature (they are checked by their hash chain instead). */
const NO_SIGNATURE = new Uint8Array(65);

/** Between discovery rounds (lookups while fewer than --p2p.peers.lo peers are connected). */
const DISCOVERY_INTERVAL_MS = 5_000;
/** Most blocks fetched from a peer to close a gap before a gossiped block (more: derivation from L1 catches up). */
const MAX_GAP = 512n;

/** How far a gap fill may go: blocks, and the memory the blocks held until inserted take (payloadMemSize). */
interface GapLimit {
  blocks?: bigint;
  bytes?: number;
}

/** --p2p.advertise.ip as an IP: a host name is resolved (A, else AAAA), as op-node does. */
async function advertisedIp(host: string | undefined): Promise<string | undefined> {
  if (host === undefined || isIP(host) !== 0) return host;
  for (const type of ["A", "AAAA"] as const) {
    const found = await Deno.resolveDns(host, type).catch(() => [] as string[]);
    if (found.length > 0) return found[0];
  }
  throw new BaseError("P2P_ADVERTISE_IP", `Cannot resolve --p2p.advertise.ip ${host} to an IP address`);
}

/**
 * The signer of the blocks a sequencer gossips: its key (--p2p.sequencer.key), else a remote signer
 * (--signer.endpoint with --signer.address, the TLS files unless --signer.tls.enabled=false), as op-node
 * chooses; none for a verifier. --signer.endpoint and --signer.address go together (op-service's check).
 */
export async function blockSignerFor(options: NodeOptions): Promise<BlockSigner | undefined> {
  if ((options.signerEndpoint === undefined) !== (options.signerAddress === undefined)) {
    throw new BaseError(
      "SIGNER_CONFIG",
      "--signer.endpoint and --signer.address must both be set or neither",
    );
  }
  if (!options.sequencerEnabled) return undefined;
  const key = options.p2pSequencerKey;
  if (key !== undefined) return new LocalBlockSigner(hexToBytes(key.startsWith("0x") ? key : `0x${key}`));
  if (options.signerEndpoint === undefined) return undefined;
  return await RemoteBlockSigner.open({
    endpoint: options.signerEndpoint,
    address: hexToBytes(options.signerAddress!),
    headers: options.signerHeader,
    tls: options.signerTlsEnabled
      ? { ca: options.signerTlsCa, cert: options.signerTlsCert, key: options.signerTlsKey }
      : undefined,
  });
}

export async function startP2p(
  cfg: RollupConfig,
  options: NodeOptions,
  engine: EngineApi,
  l2: L2Chain,
  heads: () => { safe: L2BlockRef; finalized: L2BlockRef },
  unsafe: UnsafePayloadQueue,
  payloadByNumber?: (number: bigint) => Promise<PayloadWithRoot | undefined>,
  metrics?: Metrics,
  /** The node's L1 client (its one connection and limiter); a client of its own when omitted. */
  l1Client?: JsonRpcClient,
  /**
   * --syncmode=execution-layer: gossiped blocks go to EL sync while it runs (el_sync.ts), made here
   * with the gap fill as its backfill (used when the engine cannot sync itself: keel's own).
   */
  elSync?: (backfill: ElSyncDeps["backfill"]) => ElSync,
): Promise<{ host: P2pHost; elSync?: ElSync; stop(): Promise<void> }> {
  const log = getLogger(["rollup", "p2p"]);
  const own = l1Client === undefined ? l1Rpc(options, metrics) : undefined;
  const l1 = l1Client ?? own!;
  let signer: Uint8Array | undefined;
  const refresh = async () => {
    try {
      const next = await readUnsafeBlockSigner(l1, cfg.l1SystemConfigAddress);
      if (next !== undefined && (signer === undefined || bytesToHex(next) !== bytesToHex(signer))) {
        log.info("Unsafe block signer", { address: bytesToHex(next) });
      }
      signer = next;
    } catch (e) {
      log.warn("Cannot read the unsafe block signer from the SystemConfig", { error: (e as Error).message });
    }
  };
  // Not awaited: an unreachable L1 must not hold up the node; blocks are refused until the signer is known.
  void refresh();
  let queue: Promise<unknown> = Promise.resolve();
  /**
   * A gossiped block past the head's successor: the blocks between are asked of the peer that sent it,
   * newest first, each the parent (by hash) of the one after, down to the head's successor, whose
   * parent must be the head; then inserted oldest first (rollup-node-p2p.md "payload_by_number": build
   * towards a trusted block; the engine checks each block's hash as it inserts it).
   */
  const fillGap = async (
    block: GossipBlock,
    sender: string,
    limit: GapLimit = { blocks: MAX_GAP },
  ): Promise<number> => {
    if (!options.p2pSyncReqResp) return 0;
    const head = await l2.headNumber();
    const n = block.payload.blockNumber;
    if (n <= head + 1n || (limit.blocks !== undefined && n - head - 1n > limit.blocks)) return 0;
    // The sender when it may be asked (--p2p.sync.onlyreqtostatic: a static peer), else a connected
    // static peer, else (a block posted by admin_postUnsafePayload has no sender) any connected one.
    const connected = Object.keys(await host.peersInfo());
    const from = connected.includes(sender) && (!options.p2pSyncOnlyReqToStatic || host.isStatic(sender))
      ? sender
      : connected.find((id) => host.isStatic(id)) ??
        (options.p2pSyncOnlyReqToStatic ? undefined : connected[0]);
    if (from === undefined) return 0;
    const fetched: PayloadWithRoot[] = [];
    let child = block.payload;
    let bytes = 0;
    for (let k = n - 1n; k > head; k--) {
      const got = await host.requestPayload(from, k);
      if (bytesToHex(got.payload.blockHash) !== bytesToHex(child.parentHash)) {
        host.rejectedPayload(from);
        throw new Error(`block ${k} from ${from} is not the parent of block ${k + 1n}`);
      }
      bytes += payloadMemSize({ ...got, signature: NO_SIGNATURE });
      if (limit.bytes !== undefined && bytes > limit.bytes) {
        throw new BaseError(
          "P2P_GAP_TOO_LARGE",
          `Cannot fill the ${n - head - 1n} blocks below block ${n}: over ${limit.bytes} bytes held`,
        );
      }
      fetched.push(got);
      child = got.payload;
    }
    for (const b of fetched.reverse()) {
      const r = await insertUnsafeBlock(cfg, engine, l2, heads, { ...b, signature: NO_SIGNATURE });
      if (r !== "inserted") {
        host.rejectedPayload(from);
        throw new Error(`block ${b.payload.blockNumber} from ${from}: ${r}`);
      }
    }
    return fetched.length;
  };
  // EL sync without an execution client that syncs itself: the blocks below come from peers, as many
  // as op-node's unsafe payload queue may hold.
  const el = elSync?.((block, from) => fillGap(block, from, { bytes: MAX_UNSAFE_PAYLOADS_BYTES }));
  const blockSigner = await blockSignerFor(options);
  const host = new P2pHost({
    listenIp: options.p2pListenIp,
    listenTcp: options.p2pListenTcp,
    staticPeers: options.p2pStatic,
    privKeyPath: options.p2pPrivPath,
    signer: blockSigner,
    redialMs: 5_000,
    peersLo: options.p2pPeersLo,
    peerstorePath: options.p2pPeerstorePath === "memory" ? undefined : options.p2pPeerstorePath,
    gossipMaxAgeSeconds: Math.floor(options.p2pGossipTimestampThresholdMs / 1000),
    reqResp: options.p2pSyncReqResp,
    netRestrict: options.p2pNetRestrict,
    peersHi: options.p2pPeersHi,
    peersGraceMs: options.p2pPeersGraceMs,
    // --p2p.nat: UPnP or NAT-PMP on the gateway (host_nat.ts), in the background.
    nat: options.p2pNat ? {} : undefined,
    scoring: options.p2pScoring,
    ban: options.p2pBanPeers
      ? { threshold: options.p2pBanThreshold, durationMs: options.p2pBanDurationMs }
      : undefined,
    discovery: options.p2pNoDiscovery ? undefined : {
      listenUdp: options.p2pListenUdp,
      advertiseIp: await advertisedIp(options.p2pAdvertiseIp),
      advertiseTcp: options.p2pAdvertiseTcp,
      advertiseUdp: options.p2pAdvertiseUdp,
      bootnodes: options.p2pBootnodes,
      dbPath: options.p2pDiscoveryPath === "memory" ? undefined : options.p2pDiscoveryPath,
      intervalMs: DISCOVERY_INTERVAL_MS,
    },
  }, {
    cfg,
    payloadByNumber,
    // op-node's op_node_default_p2p_gossip_events_total{type}.
    onGossipEvent: metrics === undefined ? undefined : (type) => metrics.recordGossipEvent(type),
    unsafeBlockSigner: () => signer,
    onBlock: (block, from) => {
      queue = queue.then(async () => {
        if (el?.syncing) {
          const outcome = await el.offer(block, from).catch((e) => {
            // The chain cannot be had this way (too far behind, peers without it): derive it from L1.
            el.abandon((e as Error).message);
            return "skipped" as const;
          });
          if (outcome !== "skipped") {
            log.info("Received unsafe block", {
              number: Number(block.payload.blockNumber),
              hash: bytesToHex(block.payload.blockHash),
              peer: from,
              result: `EL sync: ${outcome}`,
            });
            return;
          }
        }
        // Into the unsafe payload queue: inserted once its parent is the head (op-node's queue).
        unsafe.push(block);
        let drained = await unsafe.drain();
        if (unsafe.has(block.payload.blockHash)) {
          // Still waiting for the blocks between: asked of the peer (req-resp), then inserted.
          const filled = await fillGap(block, from);
          if (filled > 0) {
            log.info("Synced unsafe blocks from a peer", { count: filled, peer: from });
            drained = await unsafe.drain();
          }
        }
        const hash = bytesToHex(block.payload.blockHash);
        const dropped = drained.dropped.find((d) => bytesToHex(d.block.payload.blockHash) === hash);
        log.info("Received unsafe block", {
          number: Number(block.payload.blockNumber),
          hash,
          peer: from,
          result: drained.inserted.includes(block)
            ? "inserted"
            : dropped !== undefined
            ? `dropped: ${dropped.why}`
            : unsafe.has(block.payload.blockHash)
            ? `queued (${unsafe.size} waiting)`
            : "ignored",
        });
      }).catch((e) => log.warn("Cannot insert a gossiped block", { error: (e as Error).message }));
    },
  });
  try {
    await host.start();
  } catch (e) {
    blockSigner?.close();
    await own?.close();
    throw e;
  }
  // --l1.runtime-config-reload-interval: the signer is part of the runtime config (0: read once).
  const reload = options.l1RuntimeConfigReloadIntervalMs;
  const timer = reload > 0 ? setInterval(() => void refresh(), reload) : undefined;
  return {
    host,
    elSync: el,
    async stop() {
      if (timer !== undefined) clearInterval(timer);
      await host.stop();
      await queue;
      blockSigner?.close();
      await own?.close();
    },
  };
}
