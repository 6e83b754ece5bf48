/**
 * The rollup node's `nodep2p` namespace (interfaces.md 4.3; the peer controls of 3.2): the p2p host's
 * own info, its peers and their counts, and the block, protect, connect and disconnect controls.
 * Without a p2p host (--p2p.disable) every method answers -32000; nodep2p_discoveryTable answers
 * -32000 "discovery disabled" with --p2p.no-discovery, as op-node does.
 */
import { BaseError } from "../../common/errors.ts";
import { defineMethod, type Namespace, RpcError, s } from "../../rpc/mod.ts";
import type { P2pHost } from "../p2p/mod.ts";

async function guard<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof RpcError) throw e;
    if (e instanceof BaseError || e instanceof Error) throw RpcError.server(e.message);
    throw e;
  }
}

/** IPv4 or IPv6 text, as op-node's net.ParseIP accepts. */
function checkIp(ip: string): string {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (v4 !== null && v4.slice(1).every((p) => Number(p) <= 255)) return ip;
  if (ip.includes(":") && /^[0-9a-fA-F:.]+$/.test(ip)) return ip.toLowerCase();
  throw RpcError.invalidParams(`invalid IP address: ${ip}`);
}

function checkSubnet(cidr: string): string {
  const [ip, bits, extra] = cidr.split("/");
  const n = Number(bits);
  if (
    extra !== undefined || bits === undefined || !Number.isInteger(n) || n < 0 ||
    n > (ip.includes(":") ? 128 : 32)
  ) {
    throw RpcError.invalidParams(`invalid subnet: ${cidr}`);
  }
  checkIp(ip);
  return cidr;
}

export function nodep2pNamespace(host: () => P2pHost | undefined): Namespace {
  const h = () => {
    const x = host();
    if (x === undefined) throw RpcError.server("p2p is disabled (--p2p.disable)");
    return x;
  };
  const control = (
    name: string,
    param: "peer" | "addr" | "subnet",
    fn: (host: P2pHost, v: string) => unknown,
  ) =>
    defineMethod({
      name,
      params: [s.string()],
      handler: async ([v]: [string]) => {
        const value = param === "addr" ? checkIp(v) : param === "subnet" ? checkSubnet(v) : v;
        await guard(() => fn(h(), value));
        return null;
      },
    });
  return {
    self: defineMethod({ name: "nodep2p_self", params: [], handler: () => guard(() => h().selfInfo()) }),
    peers: defineMethod({
      name: "nodep2p_peers",
      params: [s.optional(s.bool())],
      handler: () =>
        guard(async () => {
          const host = h();
          const peers = await host.peersInfo();
          return {
            totalConnected: Object.keys(peers).length,
            peers,
            bannedPeers: [...host.blockedPeers, ...host.bannedPeers()],
            bannedIPS: [...host.blockedAddrs],
            bannedSubnets: [...host.blockedSubnets],
          };
        }),
    }),
    peerStats: defineMethod({
      name: "nodep2p_peerStats",
      params: [],
      handler: () => guard(() => h().peerStats()),
    }),
    discoveryTable: defineMethod({
      name: "nodep2p_discoveryTable",
      params: [],
      handler: () => guard(() => h().discoveryTable()),
    }),
    blockPeer: control("nodep2p_blockPeer", "peer", (x, v) => x.blockPeer(v)),
    unblockPeer: control("nodep2p_unblockPeer", "peer", (x, v) => x.unblockPeer(v)),
    listBlockedPeers: defineMethod({
      name: "nodep2p_listBlockedPeers",
      params: [],
      handler: () => guard(() => [...h().blockedPeers]),
    }),
    blockAddr: control("nodep2p_blockAddr", "addr", (x, v) => x.blockAddr(v)),
    unblockAddr: control("nodep2p_unblockAddr", "addr", (x, v) => x.unblockAddr(v)),
    listBlockedAddrs: defineMethod({
      name: "nodep2p_listBlockedAddrs",
      params: [],
      handler: () => guard(() => [...h().blockedAddrs]),
    }),
    blockSubnet: control("nodep2p_blockSubnet", "subnet", (x, v) => x.blockSubnet(v)),
    unblockSubnet: control("nodep2p_unblockSubnet", "subnet", (x, v) => x.unblockSubnet(v)),
    listBlockedSubnets: defineMethod({
      name: "nodep2p_listBlockedSubnets",
      params: [],
      handler: () => guard(() => [...h().blockedSubnets]),
    }),
    protectPeer: control("nodep2p_protectPeer", "peer", (x, v) => x.protectPeer(v)),
    unprotectPeer: control("nodep2p_unprotectPeer", "peer", (x, v) => x.unprotectPeer(v)),
    connectPeer: control("nodep2p_connectPeer", "peer", (x, v) => x.connectPeer(v)),
    disconnectPeer: control("nodep2p_disconnectPeer", "peer", (x, v) => x.disconnectPeer(v)),
  };
}
