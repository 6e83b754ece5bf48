/**
 * NAT traversal for --p2p.nat (op-node: "NAT traversal (PMP/UPNP) to learn external IP"; it passes
 * go-libp2p's NATPortMap, whose gateway search is go-nat's, kept in go-libp2p as
 * p2p/net/nat/internal/nat): the two protocols a home router speaks to map a port of this host on
 * its public address, and a mapper keeping the node's ports mapped.
 *
 * - NAT-PMP (RFC 6886, nat_pmp.ts): UDP requests to the default route's gateway, port 5351.
 * - UPnP IGD v1/v2 (nat_upnp.ts): an SSDP search (UPnP Device Architecture 1.1, §1.3), the device
 *   description it points at (§2.3), and SOAP actions of its WANIPConnection or WANPPPConnection
 *   service (§3.2).
 *
 * Here: the search for either (discoverGateway) and the mapper.
 *
 * The protocols are IPv4 only, as go-nat's are. Nothing here touches the p2p host: host_nat.ts
 * announces what the mapper reports.
 */
import { BaseError, isErrorCode } from "../../common/errors.ts";
import { type NatDiscoveryOptions, type NatGateway, natLog as log, type NatProtocol } from "./nat_gateway.ts";
import { discoverNatPmp } from "./nat_pmp.ts";
import { discoverUpnp } from "./nat_upnp.ts";

export type { NatDiscoveryOptions, NatGateway, NatProtocol } from "./nat_gateway.ts";
export { defaultGateway, discoverNatPmp } from "./nat_pmp.ts";
export { discoverUpnp } from "./nat_upnp.ts";

/** The ports a mapper holds on its gateway, and the gateway's public address. */
export interface NatMappingResult {
  gateway: "upnp" | "nat-pmp";
  internalIp: string;
  externalIp: string;
  ports: { protocol: NatProtocol; internalPort: number; externalPort: number }[];
}

/** Where the mapper reports (a keel logger fits). */
export interface NatLog {
  warn(message: string, properties?: Record<string, unknown>): void;
  info(message: string, properties?: Record<string, unknown>): void;
}

export interface NatPortMapperOptions {
  /** Lifetime asked for each mapping, in seconds (default NAT_MAPPING_LIFETIME_SECONDS). */
  lifetimeSeconds?: number;
  /** Called after a renewal that changed the external IP or a granted port (not for start's result). */
  onChange?: (result: NatMappingResult) => void;
  log?: NatLog;
}

/**
 * Lifetime asked for a mapping: go-libp2p's MappingDuration (one minute, p2p/net/nat/nat.go), so
 * that a mapping left behind by a crash goes away soon. RFC 6886 §3.3 recommends 7200 s for
 * NAT-PMP, but a short lease renewed often is what op-node's go-libp2p runs with.
 */
export const NAT_MAPPING_LIFETIME_SECONDS = 60;

export async function discoverGateway(options: NatDiscoveryOptions = {}): Promise<NatGateway | undefined> {
  const [upnp, pmp] = await Promise.allSettled([discoverUpnp(options), discoverNatPmp(options)]);
  const found = [upnp, pmp].flatMap((r) =>
    r.status === "fulfilled" && r.value !== undefined ? [r.value] : []
  );
  for (const r of [upnp, pmp]) {
    if (r.status === "rejected") {
      for (const gateway of found) gateway.close();
      throw r.reason;
    }
  }
  for (const gateway of found.slice(1)) gateway.close();
  return found[0];
}

// ---------------------------------------------------------------------------------------------
// The port mapper

/** go-nat's randomPort (p2p/net/nat/internal/nat/nat.go): a port in [10000, 65535). */
function randomPort(): number {
  return 10_000 + Math.floor(Math.random() * (65_535 - 10_000));
}

/** Random ports tried when the port wished for is taken, as go-nat's AddPortMapping. */
const RANDOM_PORT_TRIES = 3;
/** Renewals no closer than this, whatever lifetime a gateway grants. */
const MIN_RENEW_MS = 1_000;

type Grant = { externalPort: number; lifetimeSeconds: number };

/**
 * Keeps ports mapped on a gateway: maps each wanted port (the same external port asked first, so
 * that the announced port is the listening one where the gateway allows; then, as go-nat's
 * AddPortMapping, the port granted before and random ports), renews each mapping at half its
 * lifetime (RFC 6886 §3.3; go-libp2p renews at a third of its minute), calls
 * onChange when the external IP or a granted port changes on renewal, and deletes the mappings on
 * stop(). The lifetime asked defaults to go-libp2p's minute (NAT_MAPPING_LIFETIME_SECONDS).
 *
 * The gateway stays the caller's to close. A port refused at start or on a renewal is asked again
 * at the next renewal (go-libp2p's "it may work again next time").
 */
export class NatPortMapper {
  readonly #gateway: NatGateway;
  readonly #wanted: { protocol: NatProtocol; internalPort: number }[];
  readonly #lifetime: number;
  readonly #onChange?: (result: NatMappingResult) => void;
  readonly #log: NatLog;
  /** What the gateway granted for each wanted port (by index), undefined where it refused. */
  #grants: (Grant | undefined)[] = [];
  #externalIp = "";
  #timer: ReturnType<typeof setTimeout> | undefined;
  #renewal: Promise<void> | undefined;
  #stopped = false;

  constructor(
    gateway: NatGateway,
    wanted: { protocol: NatProtocol; internalPort: number }[],
    options: NatPortMapperOptions = {},
  ) {
    this.#gateway = gateway;
    this.#wanted = wanted;
    this.#lifetime = options.lifetimeSeconds ?? NAT_MAPPING_LIFETIME_SECONDS;
    this.#onChange = options.onChange;
    this.#log = options.log ?? log;
  }

  /** Learns the external IP and maps every wanted port; throws when the gateway granted none. */
  async start(): Promise<NatMappingResult> {
    try {
      this.#externalIp = await this.#gateway.externalIp();
    } catch (e) {
      throw new BaseError(
        "NAT_EXTERNAL_IP",
        `Cannot use the ${this.#gateway.kind} gateway: ${(e as Error).message}`,
        {
          cause: e,
        },
      );
    }
    const refusals: string[] = [];
    for (const [i, want] of this.#wanted.entries()) {
      try {
        this.#grants[i] = await this.#map(want, undefined);
      } catch (e) {
        refusals.push((e as Error).message);
        this.#log.warn("NAT port mapping refused", { ...want, error: (e as Error).message });
      }
    }
    if (this.#wanted.length > 0 && this.#grants.every((g) => g === undefined)) {
      throw new BaseError(
        "NAT_MAPPING_REFUSED",
        `Cannot map any port on the ${this.#gateway.kind} gateway: ${refusals.join("; ")}`,
        { meta: { gateway: this.#gateway.kind } },
      );
    }
    this.#schedule();
    return this.#result();
  }

  /** Stops renewing and deletes every mapping held; throws naming those the gateway did not delete. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#renewal;
    const failures: string[] = [];
    for (const [i, grant] of this.#grants.entries()) {
      if (grant === undefined) continue;
      const { protocol, internalPort } = this.#wanted[i];
      try {
        await this.#gateway.unmap(protocol, internalPort, grant.externalPort);
      } catch (e) {
        failures.push((e as Error).message);
      }
    }
    this.#grants = [];
    if (failures.length > 0) {
      throw new BaseError("NAT_UNMAP_FAILED", `Cannot delete the NAT port mappings: ${failures.join("; ")}`);
    }
  }

  #result(): NatMappingResult {
    const ports = this.#wanted.flatMap(({ protocol, internalPort }, i) => {
      const grant = this.#grants[i];
      return grant === undefined ? [] : [{ protocol, internalPort, externalPort: grant.externalPort }];
    });
    return {
      gateway: this.#gateway.kind,
      internalIp: this.#gateway.internalIp,
      externalIp: this.#externalIp,
      ports,
    };
  }

  /**
   * Maps one port: the port granted before, the internal port, then random ones. Another port is
   * tried only when the gateway refused that one (a UPnP fault); NAT-PMP picks a free port itself.
   */
  async #map(
    want: { protocol: NatProtocol; internalPort: number },
    previous: number | undefined,
  ): Promise<Grant> {
    const ports = [previous, want.internalPort, ...Array.from({ length: RANDOM_PORT_TRIES }, randomPort)];
    const tried = new Set<number>();
    let error: unknown;
    for (const port of ports) {
      if (port === undefined || tried.has(port)) continue;
      tried.add(port);
      try {
        return await this.#gateway.map(want.protocol, want.internalPort, port, this.#lifetime);
      } catch (e) {
        error = e;
        if (!isErrorCode(e, "UPNP_FAULT")) break;
      }
    }
    throw error;
  }

  /** The next renewal at half the shortest lifetime granted (a permanent lease: half the one asked). */
  #schedule(): void {
    if (this.#stopped) return;
    const lifetimes = this.#grants.flatMap((g) =>
      g !== undefined && g.lifetimeSeconds > 0 ? [g.lifetimeSeconds] : []
    );
    const delay = Math.max(MIN_RENEW_MS, Math.min(this.#lifetime, ...lifetimes) * 500);
    this.#timer = setTimeout(() => {
      this.#renewal = this.#renew().finally(() => {
        this.#renewal = undefined;
      });
    }, delay);
  }

  /** Asks every mapping again (and the external IP); reports what changed. Never throws. */
  async #renew(): Promise<void> {
    const before = JSON.stringify(this.#result());
    try {
      this.#externalIp = await this.#gateway.externalIp();
    } catch (e) {
      this.#log.warn("Cannot learn the NAT's external IP; keeping the last one", {
        externalIp: this.#externalIp,
        error: (e as Error).message,
      });
    }
    for (const [i, want] of this.#wanted.entries()) {
      if (this.#stopped) break;
      try {
        this.#grants[i] = await this.#map(want, this.#grants[i]?.externalPort);
      } catch (e) {
        this.#grants[i] = undefined;
        this.#log.warn("NAT port mapping not renewed", { ...want, error: (e as Error).message });
      }
    }
    if (this.#stopped) return;
    const result = this.#result();
    if (JSON.stringify(result) !== before) {
      this.#log.info("NAT port mapping changed", {
        externalIp: result.externalIp,
        ports: result.ports.map((p) => `${p.protocol} ${p.internalPort}->${p.externalPort}`).join(","),
      });
      try {
        this.#onChange?.(result);
      } catch (e) {
        this.#log.warn("NAT change handler failed", { error: (e as Error).message });
      }
    }
    this.#schedule();
  }
}
