/**
 * What the NAT traversal of --p2p.nat (nat.ts) shares between its two protocols (nat_pmp.ts,
 * nat_upnp.ts): the gateway they find, the discovery options, and the IPv4 and UDP helpers.
 */
import dgram from "node:dgram";
import { isIPv4 } from "node:net";
import { BaseError } from "../../common/errors.ts";
import { getLogger } from "../../common/logger.ts";

export type NatProtocol = "tcp" | "udp";

/** A gateway found by discovery: it learns the public address and maps ports to this host. */
export interface NatGateway {
  readonly kind: "upnp" | "nat-pmp";
  /** The local IP this host reaches the gateway from (the internal address of its mappings). */
  readonly internalIp: string;
  externalIp(): Promise<string>;
  /** Maps external `externalPort` (a wish: the gateway may pick another) to internalIp:internalPort; resolves the port and lifetime granted. */
  map(
    protocol: NatProtocol,
    internalPort: number,
    externalPort: number,
    lifetimeSeconds: number,
  ): Promise<{ externalPort: number; lifetimeSeconds: number }>;
  unmap(protocol: NatProtocol, internalPort: number, externalPort: number): Promise<void>;
  close(): void;
}

export interface NatDiscoveryOptions {
  /** NAT-PMP gateway "ip" or "ip:port" (default: the default route's gateway from /proc/net/route, port 5351). */
  pmpGateway?: string;
  /** Where SSDP M-SEARCH goes, "ip:port" (default 239.255.255.250:1900). Tests point it at a unicast responder. */
  ssdpAddress?: string;
  /**
   * How long discovery may take in all (default 5000 ms); also the limit of each later request to
   * the gateway found.
   */
  timeoutMs?: number;
}

/** How long discovery may take in all, and each later request to the gateway found. */
export const DEFAULT_TIMEOUT_MS = 5_000;
export const natLog = getLogger(["rollup", "p2p", "nat"]);

/** Parses "ip" or "ip:port" (IPv4: both protocols are). */
export function ipv4AndPort(
  address: string,
  defaultPort: number,
  what: string,
): { ip: string; port: number } {
  const m = /^([^:\s]+)(?::(\d{1,5}))?$/.exec(address.trim());
  const port = m?.[2] === undefined ? defaultPort : Number(m[2]);
  if (m === null || !isIPv4(m[1]) || port < 1 || port > 65_535) {
    throw new BaseError("NAT_BAD_ADDRESS", `Cannot use ${what} "${address}": not an IPv4 "ip" or "ip:port"`);
  }
  return { ip: m[1], port };
}

export function ipv4ToInt(ip: string): number {
  return ip.split(".").reduce((n, b) => (n << 8) | Number(b), 0);
}

export function openUdpSocket(): Promise<dgram.Socket> {
  const socket = dgram.createSocket("udp4");
  return new Promise((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(0, () => {
      socket.off("error", reject);
      resolve(socket);
    });
  });
}
