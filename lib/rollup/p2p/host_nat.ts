/**
 * --p2p.nat for the p2p host (op-node passes go-libp2p's NATPortMap: UPnP or NAT-PMP on the gateway,
 * the mapped address announced): the host's TCP port, and discovery's UDP port, are mapped on the
 * gateway found (nat.ts), and the external address is announced where no --p2p.advertise.* option
 * names one: in libp2p's addresses (identify, the peerstore of others) and in the discv5 record.
 */
import { multiaddr } from "@multiformats/multiaddr";
import { getLogger } from "../../common/logger.ts";
import {
  defaultGateway,
  discoverGateway,
  type NatDiscoveryOptions,
  type NatMappingResult,
  NatPortMapper,
} from "./nat.ts";

/** libp2p's address manager, the part used here (libp2p/address-manager). */
export interface PublicAddressMapper {
  addPublicAddressMapping(
    internalIp: string,
    internalPort: number,
    externalIp: string,
    externalPort?: number,
    protocol?: "tcp" | "udp",
  ): void;
  removePublicAddressMapping(
    internalIp: string,
    internalPort: number,
    externalIp: string,
    externalPort?: number,
    protocol?: "tcp" | "udp",
  ): void;
  confirmObservedAddr(addr: ReturnType<typeof multiaddr>, options?: { type?: "ip-mapping" }): void;
}

export interface HostNatTarget {
  /** The port the host listens on (TCP). */
  tcpPort: number;
  /** Discovery's UDP port, when discovery runs. */
  udpPort?: number;
  addresses: PublicAddressMapper;
  /** Puts the external address into the discovery record (only the parts no --p2p.advertise.* set). */
  setRecordAddress?: (ip: string, tcp: number, udp?: number) => void;
}

/**
 * The router a NAT-PMP request goes to when the routing table cannot be read (Deno lets only
 * --allow-all read /proc/net/route): the first address of each private IPv4 network this host is on,
 * the address home and office routers take.
 */
export function likelyGateways(
  interfaces: Pick<Deno.NetworkInterfaceInfo, "family" | "address" | "netmask">[] = Deno.networkInterfaces(),
): string[] {
  const out: string[] = [];
  for (const i of interfaces) {
    if (i.family !== "IPv4" || i.address.startsWith("127.")) continue;
    const [a, b] = i.address.split(".").map(Number);
    const isPrivate = a === 10 || (a === 172 && b >= 16 && b < 32) || (a === 192 && b === 168);
    if (!isPrivate) continue;
    const ip = i.address.split(".").map(Number);
    const mask = i.netmask.split(".").map(Number);
    const net = ip.map((x, k) => x & mask[k]);
    net[3] += 1;
    const gw = net.join(".");
    if (gw !== i.address && !out.includes(gw)) out.push(gw);
  }
  return out;
}

/**
 * Finds the gateway and keeps the ports mapped (renewed until `stop`); undefined when no gateway
 * answered or it refused the mappings (logged: the node runs on without them, as op-node's does).
 */
export async function startHostNat(
  target: HostNatTarget,
  discovery: NatDiscoveryOptions = {},
): Promise<{ result: NatMappingResult; stop(): Promise<void> } | undefined> {
  const log = getLogger(["rollup", "p2p", "nat"]);
  const options = { ...discovery };
  if (options.pmpGateway === undefined) {
    options.pmpGateway = await defaultGateway().catch(() => undefined) ?? likelyGateways()[0];
  }
  const gateway = await discoverGateway(options);
  if (gateway === undefined) {
    log.warn("--p2p.nat: no UPnP or NAT-PMP gateway answered; the node announces its local addresses", {
      pmpGateway: options.pmpGateway ?? "none",
    });
    return undefined;
  }
  const wanted: { protocol: "tcp" | "udp"; internalPort: number }[] = [{
    protocol: "tcp",
    internalPort: target.tcpPort,
  }];
  if (target.udpPort !== undefined) wanted.push({ protocol: "udp", internalPort: target.udpPort });
  let current: NatMappingResult | undefined;
  const announce = (r: NatMappingResult) => {
    if (current !== undefined) withdraw(current);
    current = r;
    const tcp = r.ports.find((p) => p.protocol === "tcp");
    const udp = r.ports.find((p) => p.protocol === "udp");
    if (tcp !== undefined) {
      target.addresses.addPublicAddressMapping(
        r.internalIp,
        tcp.internalPort,
        r.externalIp,
        tcp.externalPort,
        "tcp",
      );
      // A mapping the gateway granted is known to work: announced at once (libp2p would wait for AutoNAT).
      const family = r.externalIp.includes(":") ? "ip6" : "ip4";
      target.addresses.confirmObservedAddr(multiaddr(`/${family}/${r.externalIp}/tcp/${tcp.externalPort}`), {
        type: "ip-mapping",
      });
      target.setRecordAddress?.(r.externalIp, tcp.externalPort, udp?.externalPort);
    }
    log.info("NAT port mapping", {
      gateway: r.gateway,
      externalIp: r.externalIp,
      ports: r.ports.map((p) => `${p.protocol} ${p.internalPort}->${p.externalPort}`).join(","),
    });
  };
  const withdraw = (r: NatMappingResult) => {
    for (const p of r.ports) {
      if (p.protocol !== "tcp") continue;
      target.addresses.removePublicAddressMapping(
        r.internalIp,
        p.internalPort,
        r.externalIp,
        p.externalPort,
        "tcp",
      );
    }
  };
  const mapper = new NatPortMapper(gateway, wanted, { onChange: announce, log });
  let result: NatMappingResult;
  try {
    result = await mapper.start();
  } catch (e) {
    log.warn("--p2p.nat: the gateway refused the port mappings", {
      gateway: gateway.kind,
      error: (e as Error).message,
    });
    await mapper.stop().catch(() => {});
    gateway.close();
    return undefined;
  }
  announce(result);
  return {
    result,
    async stop() {
      await mapper.stop().catch((e) =>
        log.warn("--p2p.nat: cannot delete the port mappings", { error: (e as Error).message })
      );
      gateway.close();
    },
  };
}
