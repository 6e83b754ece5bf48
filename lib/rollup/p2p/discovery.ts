/**
 * Peer discovery (specs/protocol/rollup-node-p2p.md "Discv5"): a discv5 node on UDP with the same
 * secp256k1 key as the libp2p host, whose record carries the node's IP, TCP and UDP ports and the
 * "opstack" entry of its L2 chain (protocol/opstack_enr.ts). It starts from the bootnodes and the
 * records it kept from earlier runs, looks up random nodes while the host has fewer peers than it
 * wants (--p2p.peers.lo), and hands the host the TCP address of every record of the same chain;
 * records of other chains stay in the table but are never dialled.
 *
 * The records found are kept in `<--p2p.discovery.path>/records.json` (a directory, as op-node's
 * database; `memory` keeps nothing) and read back at the next start.
 */
import { Discv5, UDPTransportService } from "@chainsafe/discv5";
import dgram from "node:dgram";
import { ENR, SignableENR } from "@chainsafe/enr";
import type { PrivateKey } from "@libp2p/interface";
import { multiaddr } from "multiaddr12";
import { BaseError } from "../../common/errors.ts";
import { getLogger } from "../../common/logger.ts";
import { encodeOpStackEnr, isOpStackPeer, OPSTACK_ENR_KEY } from "../../protocol/opstack_enr.ts";
import { listenFailure } from "./listen_failure.ts";

export interface DiscoveryOptions {
  chainId: bigint;
  /** Bind address of the UDP socket. */
  listenIp: string;
  /** UDP port (0: the TCP port). */
  listenUdp: number;
  /** The TCP port the host listens on (after binding: never 0). */
  tcpPort: number;
  /** Advertised in the record instead of the listen IP (--p2p.advertise.ip). */
  advertiseIp?: string;
  /** Advertised TCP and UDP ports (0: the listening ones). */
  advertiseTcp: number;
  advertiseUdp: number;
  /** Records to start from (`enr:...`). */
  bootnodes: string[];
  /** Directory of the kept records; undefined keeps nothing. */
  dbPath?: string;
  /** Milliseconds between lookups while more peers are wanted. */
  intervalMs: number;
}

export interface DiscoveryDeps {
  /** How many more peers the host wants (0: none, no lookup). */
  wanted: () => number;
  /** Whether the node may talk to `ip` (--p2p.netrestrict); every IP when omitted. */
  allowedIp?: (ip: string) => boolean;
  /** Dials a discovered peer: its TCP multiaddr with /p2p/<peer id>. */
  dial: (addr: string, peerId: string) => Promise<void>;
}

const RECORDS_FILE = "records.json";
/** Records kept at most (the table holds 16 per distance; a few hundred is plenty to restart from). */
const MAX_KEPT = 512;

function isUnspecified(ip: string): boolean {
  return ip === "0.0.0.0" || ip === "::";
}

export class Discovery {
  readonly options: DiscoveryOptions;
  readonly #deps: DiscoveryDeps;
  readonly #log = getLogger(["rollup", "p2p", "discovery"]);
  #discv5: Discv5 | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #looking = false;
  #stopped = false;
  /** Records of this chain seen (by node id): what is kept on disk. */
  readonly #seen = new Map<string, string>();
  /** Peers dialled recently (peer id -> time), not to be redialled at every round. */
  readonly #dialled = new Map<string, number>();

  constructor(options: DiscoveryOptions, deps: DiscoveryDeps) {
    this.options = options;
    this.#deps = deps;
  }

  get #node(): Discv5 {
    if (this.#discv5 === undefined) {
      throw new BaseError("DISCOVERY_NOT_STARTED", "Cannot use discovery: it is not started");
    }
    return this.#discv5;
  }

  async start(privateKey: PrivateKey): Promise<void> {
    const o = this.options;
    const udp = o.listenUdp === 0 ? o.tcpPort : o.listenUdp;
    const six = o.listenIp.includes(":");
    // @chainsafe/discv5 11 and @chainsafe/enr 5 are typed against libp2p's interface 2; the key is the same.
    // deno-lint-ignore no-explicit-any
    const key = privateKey as any;
    const enr = SignableENR.createFromPrivateKey(key);
    const ip = o.advertiseIp ?? (isUnspecified(o.listenIp) ? undefined : o.listenIp);
    if (ip !== undefined) {
      if (ip.includes(":")) enr.ip6 = ip;
      else enr.ip = ip;
    }
    if (six) {
      enr.tcp6 = o.advertiseTcp || o.tcpPort;
      enr.udp6 = o.advertiseUdp || udp;
    } else {
      enr.tcp = o.advertiseTcp || o.tcpPort;
      enr.udp = o.advertiseUdp || udp;
    }
    enr.set(OPSTACK_ENR_KEY, encodeOpStackEnr(o.chainId));
    const bind = multiaddr(`/${six ? "ip6" : "ip4"}/${o.listenIp}/udp/${udp}`);
    const bindAddrs = six ? { ip6: bind } : { ip4: bind };
    const discv5 = Discv5.create({
      enr,
      privateKey: key,
      bindAddrs,
      transport: new BindCheckedUdpTransport({ bindAddrs, nodeId: enr.nodeId }),
      // With no IP to advertise, the record takes the address its peers see (discv5 PONG votes).
      config: { enrUpdate: ip === undefined },
    });
    // (The typed event emitter of discv5 11 does not type-check under Deno: its own `on`, untyped.)
    const events = discv5 as unknown as { on(event: string, fn: (e: ENR) => void): void };
    events.on("discovered", (found) => void this.#consider(found));
    events.on("enrAdded", (found) => void this.#consider(found));
    try {
      await discv5.start();
    } catch (e) {
      throw new BaseError(
        "DISCOVERY_START",
        `Cannot start discovery on UDP ${o.listenIp}:${udp} (--p2p.listen.ip, --p2p.listen.udp): ${
          listenFailure(e)
        }`,
        { cause: e, meta: { bind: bind.toString() } },
      );
    }
    this.#discv5 = discv5;
    for (const text of [...o.bootnodes, ...await this.#load()]) {
      if (!text.startsWith("enr:")) {
        this.#log.warn("Discovery takes bootnodes as ENRs only; skipped", { bootnode: text.slice(0, 24) });
        continue;
      }
      try {
        discv5.addEnr(text);
      } catch (e) {
        this.#log.warn("Cannot add bootnode", { bootnode: text.slice(0, 24), error: (e as Error).message });
      }
    }
    this.#log.info("Discovery started", { enr: enr.encodeTxt(), udp });
    this.#schedule(0);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#save();
    await this.#discv5?.stop();
    this.#discv5 = undefined;
  }

  /** The UDP port discovery listens on. */
  get udpPort(): number {
    return this.options.listenUdp === 0 ? this.options.tcpPort : this.options.listenUdp;
  }

  /**
   * The address a NAT gateway maps to this node (--p2p.nat): into the record, except the parts
   * --p2p.advertise.ip, --p2p.advertise.tcp and --p2p.advertise.udp set (the record's sequence number
   * goes up, and it is signed again).
   */
  setExternal(ip: string, tcp: number, udp?: number): void {
    const enr = this.#node.enr;
    const o = this.options;
    const six = ip.includes(":");
    if (o.advertiseIp === undefined) {
      if (six) enr.ip6 = ip;
      else enr.ip = ip;
    }
    if (!o.advertiseTcp) {
      if (six) enr.tcp6 = tcp;
      else enr.tcp = tcp;
    }
    if (udp !== undefined && !o.advertiseUdp) {
      if (six) enr.udp6 = udp;
      else enr.udp = udp;
    }
  }

  /** This node's record, `enr:...`. */
  get enr(): string {
    return this.#node.enr.encodeTxt();
  }

  /** The records in the discovery table (nodep2p_discoveryTable). */
  table(): string[] {
    return this.#node.kadValues().map((e) => e.encodeTxt());
  }

  get tableSize(): number {
    return this.#discv5?.kadValues().length ?? 0;
  }

  /** The record of a peer, by peer id, when the table holds it. */
  enrOf(peerId: string): string | undefined {
    return this.#discv5?.kadValues().find((e) => e.peerId.toString() === peerId)?.encodeTxt();
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#round(), ms);
  }

  /** One round: dial what the table holds, and look up random nodes while peers are wanted. */
  async #round(): Promise<void> {
    this.#timer = undefined;
    const node = this.#discv5;
    if (node === undefined || this.#stopped) return;
    try {
      for (const e of node.kadValues()) await this.#consider(e);
      if (this.#deps.wanted() > 0 && !this.#looking) {
        this.#looking = true;
        try {
          for (const e of await node.findRandomNode()) await this.#consider(e);
        } finally {
          this.#looking = false;
        }
      }
      await this.#save();
    } catch (e) {
      this.#log.debug("Discovery round failed", { error: (e as Error).message });
    }
    this.#schedule(this.options.intervalMs);
  }

  /** Dials a record of this chain that names a TCP address, unless enough peers or tried lately. */
  async #consider(e: ENR): Promise<void> {
    if (this.#stopped || !isOpStackPeer(e.kvs.get(OPSTACK_ENR_KEY), this.options.chainId)) return;
    if (e.nodeId === this.#discv5?.enr.nodeId) return;
    this.#seen.set(e.nodeId, e.encodeTxt());
    const addr = e.getLocationMultiaddr("tcp") ?? e.getLocationMultiaddr("tcp6");
    if (addr === undefined || this.#deps.wanted() <= 0) return;
    const ip = e.ip ?? e.ip6;
    if (ip !== undefined && this.#deps.allowedIp?.(ip) === false) return;
    const peerId = e.peerId.toString();
    const now = Date.now();
    const last = this.#dialled.get(peerId);
    if (last !== undefined && now - last < this.options.intervalMs * 4) return;
    this.#dialled.set(peerId, now);
    try {
      await this.#deps.dial(`${addr.toString()}/p2p/${peerId}`, peerId);
    } catch (err) {
      this.#log.debug("Cannot dial discovered peer", { peer: peerId, error: (err as Error).message });
    }
  }

  async #load(): Promise<string[]> {
    const dir = this.options.dbPath;
    if (dir === undefined) return [];
    try {
      const records = JSON.parse(await Deno.readTextFile(`${dir}/${RECORDS_FILE}`));
      if (!Array.isArray(records)) throw new Error("not a list of records");
      const ok: string[] = [];
      for (const r of records) {
        if (typeof r !== "string") continue;
        try {
          if (isOpStackPeer(ENR.decodeTxt(r).kvs.get(OPSTACK_ENR_KEY), this.options.chainId)) ok.push(r);
        } catch {
          // A damaged record is dropped.
        }
      }
      return ok;
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) {
        this.#log.warn("Cannot read the kept discovery records; starting without them", {
          path: dir,
          error: (e as Error).message,
        });
      }
      return [];
    }
  }

  async #save(): Promise<void> {
    const dir = this.options.dbPath;
    if (dir === undefined || this.#seen.size === 0) return;
    const records = [...this.#seen.values()].slice(-MAX_KEPT);
    try {
      await Deno.mkdir(dir, { recursive: true });
      // Written aside and renamed: a crash never leaves half a file.
      const tmp = `${dir}/${RECORDS_FILE}.tmp`;
      await Deno.writeTextFile(tmp, JSON.stringify(records));
      await Deno.rename(tmp, `${dir}/${RECORDS_FILE}`);
    } catch (e) {
      this.#log.warn("Cannot keep the discovery records", { path: dir, error: (e as Error).message });
    }
  }
}

/** What BindCheckedUdpTransport reaches of discv5 11's UDPTransportService (private in its typings). */
interface UdpSide {
  socket?: dgram.Socket;
  opts: { family: number; port: number; host: string };
}
interface UdpInternals {
  ip4?: UdpSide;
  ip6?: UdpSide;
  handleIncoming: (data: Uint8Array, rinfo: dgram.RemoteInfo) => void;
}

/**
 * discv5 11's UDP transport with a bind that can fail: its own start awaits the socket's bind callback,
 * which never comes when the bind fails (node:dgram emits an error instead), so a taken port hung the
 * node's start for good. Here the error rejects the start (and a socket already bound is closed).
 */
class BindCheckedUdpTransport extends UDPTransportService {
  override async start(): Promise<void> {
    const self = this as unknown as UdpInternals;
    const opened: dgram.Socket[] = [];
    try {
      for (const side of [self.ip4, self.ip6]) {
        if (side === undefined) continue;
        const socket = dgram.createSocket({
          // As discv5's own: 16 packets of 1,280 bytes (its MAX_PACKET_SIZE) to receive, one to send.
          recvBufferSize: 16 * 1280,
          sendBufferSize: 1280,
          type: side.opts.family === 4 ? "udp4" : "udp6",
        });
        opened.push(socket);
        await new Promise<void>((resolve, reject) => {
          socket.once("error", reject);
          socket.bind(side.opts.port, side.opts.host, () => {
            socket.off("error", reject);
            resolve();
          });
        });
        socket.on("message", self.handleIncoming);
        side.socket = socket;
      }
    } catch (e) {
      for (const socket of opened) {
        try {
          socket.close();
        } catch {
          // never bound
        }
      }
      throw e;
    }
  }
}
