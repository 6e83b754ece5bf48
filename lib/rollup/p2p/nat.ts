/**
 * NAT traversal for --p2p.nat (op-node: "NAT traversal (PMP/UPNP) to learn external IP"; it passes
 * go-libp2p's NATPortMap, whose gateway search is go-nat's, kept in go-libp2p as
 * p2p/net/nat/internal/nat): the two protocols a home router speaks to map a port of this host on
 * its public address, and a mapper keeping the node's ports mapped.
 *
 * - NAT-PMP (RFC 6886): UDP requests to the default route's gateway, port 5351.
 * - UPnP IGD v1/v2: an SSDP search (UPnP Device Architecture 1.1, §1.3), the device description it
 *   points at (§2.3), and SOAP actions of its WANIPConnection or WANPPPConnection service (§3.2).
 *
 * The protocols are IPv4 only, as go-nat's are. Nothing here touches the p2p host: host_nat.ts
 * announces what the mapper reports.
 */
import dgram from "node:dgram";
import { isIPv4 } from "node:net";
import { BaseError, isErrorCode } from "../../common/errors.ts";
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

const DEFAULT_TIMEOUT_MS = 5_000;
const NAT_PMP_PORT = 5351;
const SSDP_ADDRESS = "239.255.255.250:1900";
const log = getLogger(["rollup", "p2p", "nat"]);

/** Parses "ip" or "ip:port" (IPv4: both protocols are). */
function ipv4AndPort(address: string, defaultPort: number, what: string): { ip: string; port: number } {
  const m = /^([^:\s]+)(?::(\d{1,5}))?$/.exec(address.trim());
  const port = m?.[2] === undefined ? defaultPort : Number(m[2]);
  if (m === null || !isIPv4(m[1]) || port < 1 || port > 65_535) {
    throw new BaseError("NAT_BAD_ADDRESS", `Cannot use ${what} "${address}": not an IPv4 "ip" or "ip:port"`);
  }
  return { ip: m[1], port };
}

function ipv4ToInt(ip: string): number {
  return ip.split(".").reduce((n, b) => (n << 8) | Number(b), 0);
}

// ---------------------------------------------------------------------------------------------
// The default gateway

/** Flags of a route (linux/route.h): usable, and through a gateway. */
const RTF_UP = 0x1;
const RTF_GATEWAY = 0x2;

/**
 * The default IPv4 gateway from /proc/net/route (Linux), undefined when none or unreadable.
 * Where NAT-PMP requests go (RFC 6886 §3: the client sends them to its default gateway); go-nat asks
 * the routing table the same (go-netroute). The table is hexadecimal in host byte order
 * (little-endian); of several default routes the one of lowest metric wins, as the kernel's.
 */
export async function defaultGateway(routeFile = "/proc/net/route"): Promise<string | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(routeFile);
  } catch {
    return undefined;
  }
  const [header, ...rows] = text.trim().split("\n").map((line) => line.trim().split(/\s+/));
  const col = (name: string) => header?.findIndex((h) => h.toLowerCase() === name) ?? -1;
  const [dst, gw, flags, metric] = [col("destination"), col("gateway"), col("flags"), col("metric")];
  if (dst < 0 || gw < 0 || flags < 0) return undefined;
  let best: { ip: string; metric: number } | undefined;
  for (const row of rows) {
    const f = parseInt(row[flags], 16);
    if (row[dst] !== "00000000" || (f & (RTF_UP | RTF_GATEWAY)) !== (RTF_UP | RTF_GATEWAY)) continue;
    const hex = row[gw];
    if (!/^[0-9a-fA-F]{8}$/.test(hex)) continue;
    const ip = [6, 4, 2, 0].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(".");
    const m = metric < 0 ? 0 : Number(row[metric]);
    if (best === undefined || m < best.metric) best = { ip, metric: m };
  }
  return best?.ip;
}

/**
 * This host's address on the interface whose IPv4 network holds `ip` (go-nat's GetInternalAddress).
 * Used for NAT-PMP, whose gateway is on the link: Deno's node:dgram does not bind a connected
 * socket's local address, so the kernel's choice cannot be read from one.
 */
function interfaceAddressFor(ip: string): string | undefined {
  const target = ipv4ToInt(ip);
  try {
    for (const i of Deno.networkInterfaces()) {
      if (i.family !== "IPv4") continue;
      if (((ipv4ToInt(i.address) ^ target) & ipv4ToInt(i.netmask)) === 0) return i.address;
    }
  } catch {
    // No --allow-sys: no interface to tell.
  }
  return undefined;
}

function openUdpSocket(): Promise<dgram.Socket> {
  const socket = dgram.createSocket("udp4");
  return new Promise((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(0, () => {
      socket.off("error", reject);
      resolve(socket);
    });
  });
}

// ---------------------------------------------------------------------------------------------
// NAT-PMP (RFC 6886)

/** RFC 6886 §3.1: the first retransmission after 250 ms, the interval doubling after each. */
const NAT_PMP_FIRST_RETRY_MS = 250;
/** RFC 6886 §3.5, by result code. */
const NAT_PMP_RESULTS = [
  "Success",
  "Unsupported Version",
  "Not Authorized/Refused",
  "Network Failure",
  "Out of resources",
  "Unsupported opcode",
];
/** RFC 6886 §3.2, §3.3: opcodes of requests; a response carries 128 + the request's. */
const OP_EXTERNAL_ADDRESS = 0;
const OP_MAP = { udp: 1, tcp: 2 } as const;

class NatPmpGateway implements NatGateway {
  readonly kind = "nat-pmp";
  readonly internalIp: string;
  readonly #socket: dgram.Socket;
  readonly #ip: string;
  readonly #port: number;
  readonly #timeoutMs: number;
  /**
   * One request at a time: a response names no request (only its opcode and internal port), so a
   * TCP and a UDP mapping of one port, or a late answer to a retransmission, could be mistaken.
   */
  #queue: Promise<unknown> = Promise.resolve();
  #pending: { receive(response: Uint8Array): void; fail(error: Error): void } | undefined;
  #closed = false;

  constructor(socket: dgram.Socket, ip: string, port: number, internalIp: string, timeoutMs: number) {
    this.#socket = socket;
    this.#ip = ip;
    this.#port = port;
    this.internalIp = internalIp;
    this.#timeoutMs = timeoutMs;
    socket.on("message", (msg, from) => {
      // RFC 6886 §3.2: a response not from the gateway asked is silently discarded (nor from
      // another port of it: the server answers from the port it listens on).
      if (from.address === ip && from.port === port) this.#pending?.receive(msg);
    });
    socket.on("error", (err) => this.#pending?.fail(err));
  }

  get #address(): string {
    return `${this.#ip}:${this.#port}`;
  }

  async externalIp(): Promise<string> {
    const what = "learn the external IP";
    // RFC 6886 §3.2: version 0, opcode 0; the answer holds the address at bytes 8 to 11.
    const res = await this.#request(what, new Uint8Array([0, OP_EXTERNAL_ADDRESS]), 12, () => true);
    const ip = [8, 9, 10, 11].map((i) => res.getUint8(i)).join(".");
    if (ip === "0.0.0.0") {
      throw new BaseError(
        "NAT_NO_EXTERNAL_IP",
        `Cannot ${what}: the NAT-PMP gateway ${this.#address} has none`,
      );
    }
    return ip;
  }

  async map(
    protocol: NatProtocol,
    internalPort: number,
    externalPort: number,
    lifetimeSeconds: number,
  ): Promise<{ externalPort: number; lifetimeSeconds: number }> {
    const what = `map ${protocol.toUpperCase()} port ${internalPort}`;
    const res = await this.#request(
      what,
      mapRequest(protocol, internalPort, externalPort, lifetimeSeconds),
      16,
      (r) => r.getUint16(8) === internalPort,
    );
    return { externalPort: res.getUint16(10), lifetimeSeconds: res.getUint32(12) };
  }

  /** RFC 6886 §3.4: a mapping request of lifetime 0 and suggested port 0 (the external port is not sent). */
  async unmap(protocol: NatProtocol, internalPort: number, _externalPort: number): Promise<void> {
    const what = `delete the mapping of ${protocol.toUpperCase()} port ${internalPort}`;
    await this.#request(
      what,
      mapRequest(protocol, internalPort, 0, 0),
      16,
      (r) => r.getUint16(8) === internalPort,
    );
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pending?.fail(new Error("the gateway was closed"));
    this.#socket.close();
  }

  /**
   * Sends `request` until the gateway answers it, at 250 ms then doubling (RFC 6886 §3.1), for at
   * most the timeout: go-nat bounds its NAT-PMP client by the discovery deadline
   * (NewClientWithTimeout), not the RFC's 64 s of retries. A response of another opcode, or a
   * whole one for another port, is not the answer; a non-zero result code is an error.
   */
  #request(
    what: string,
    request: Uint8Array,
    responseSize: number,
    answers: (response: DataView) => boolean,
  ): Promise<DataView> {
    const attempt = () =>
      new Promise<DataView>((resolve, reject) => {
        if (this.#closed) {
          return reject(new BaseError("NAT_PMP_CLOSED", `Cannot ${what}: the gateway was closed`));
        }
        let done = false;
        let retry: ReturnType<typeof setTimeout> | undefined;
        const finish = (error: Error | undefined, response?: DataView) => {
          if (done) return;
          done = true;
          clearTimeout(deadline);
          clearTimeout(retry);
          this.#pending = undefined;
          if (error !== undefined) reject(error);
          else resolve(response!);
        };
        const fail = (error: Error) =>
          finish(new BaseError("NAT_PMP_UNREACHABLE", `Cannot ${what}: ${error.message}`, { cause: error }));
        const deadline = setTimeout(
          () =>
            finish(
              new BaseError(
                "NAT_PMP_TIMEOUT",
                `Cannot ${what}: the NAT-PMP gateway ${this.#address} did not answer within ${this.#timeoutMs} ms`,
              ),
            ),
          this.#timeoutMs,
        );
        const opcode = 128 + request[1];
        this.#pending = {
          receive: (msg) => {
            if (msg.length < 8 || msg[0] !== 0 || msg[1] !== opcode) return;
            const res = new DataView(msg.buffer, msg.byteOffset, msg.byteLength);
            const result = res.getUint16(2);
            // §3.5: an error may come short (version, opcode, result code, epoch); a success is whole.
            if (msg.length >= responseSize ? !answers(res) : result === 0) return;
            if (result === 0) return finish(undefined, res);
            finish(
              new BaseError(
                "NAT_PMP_REFUSED",
                `Cannot ${what}: the NAT-PMP gateway ${this.#address} answered result code ${result} (${
                  NAT_PMP_RESULTS[result] ?? "unknown"
                })`,
                { meta: { resultCode: result } },
              ),
            );
          },
          fail,
        };
        let interval = NAT_PMP_FIRST_RETRY_MS;
        const send = () => {
          this.#socket.send(request, this.#port, this.#ip, (err) => err && fail(err));
          retry = setTimeout(send, interval);
          interval *= 2;
        };
        send();
      });
    const run = this.#queue.then(attempt);
    this.#queue = run.catch(() => {});
    return run;
  }
}

/** RFC 6886 §3.3: version 0, opcode, reserved 0, internal port, suggested external port, lifetime. */
function mapRequest(
  protocol: NatProtocol,
  internalPort: number,
  externalPort: number,
  lifetime: number,
): Uint8Array {
  const req = new DataView(new ArrayBuffer(12));
  req.setUint8(1, OP_MAP[protocol]);
  req.setUint16(4, internalPort);
  req.setUint16(6, externalPort);
  req.setUint32(8, lifetime);
  return new Uint8Array(req.buffer);
}

/**
 * A NAT-PMP gateway: the one named, or the default route's; found when it tells its external
 * address (as go-nat's discovery asks it) within the timeout. Undefined when there is no gateway
 * to ask, or it did not answer or refused.
 */
export async function discoverNatPmp(options: NatDiscoveryOptions = {}): Promise<NatGateway | undefined> {
  const address = options.pmpGateway ?? await defaultGateway();
  if (address === undefined) return undefined;
  const { ip, port } = ipv4AndPort(address, NAT_PMP_PORT, "the NAT-PMP gateway");
  const internalIp = interfaceAddressFor(ip);
  if (internalIp === undefined) {
    log.debug("NAT-PMP: no interface on the gateway's network", { gateway: ip });
    return undefined;
  }
  const gateway = new NatPmpGateway(
    await openUdpSocket(),
    ip,
    port,
    internalIp,
    options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  );
  try {
    await gateway.externalIp();
    return gateway;
  } catch (e) {
    log.debug("NAT-PMP: no gateway", { gateway: `${ip}:${port}`, error: (e as Error).message });
    gateway.close();
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// UPnP IGD

/** UDA 1.1 §1.3.2: what is searched, the IGD of versions 1 and 2 and the connection service itself. */
const SSDP_SEARCH_TARGETS = [
  "urn:schemas-upnp-org:device:InternetGatewayDevice:1",
  "urn:schemas-upnp-org:device:InternetGatewayDevice:2",
  "urn:schemas-upnp-org:service:WANIPConnection:1",
];
/** Searches sent in all, a second apart (UDA 1.1 §1.3.2: UDP is unreliable, send more than one). */
const SSDP_SENDS = 3;
/** The services that map ports, best first (go-nat's serviceVisitor takes these three). */
const WAN_SERVICES = [
  "urn:schemas-upnp-org:service:WANIPConnection:2",
  "urn:schemas-upnp-org:service:WANIPConnection:1",
  "urn:schemas-upnp-org:service:WANPPPConnection:1",
];
/** WANIPConnection:1, AddPortMapping errors: the gateway takes leases of duration 0 only. */
const UPNP_ONLY_PERMANENT_LEASES = 725;

function escapeXml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

function unescapeXml(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|lt|gt|quot|apos|amp);/g, (_, e: string) => {
    if (e.startsWith("#x")) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith("#")) return String.fromCodePoint(Number(e.slice(1)));
    return { lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" }[e]!;
  });
}

/** The contents of every element `name` (under any namespace prefix). Enough for UPnP's flat XML. */
function xmlElements(xml: string, name: string): string[] {
  const re = new RegExp(`<(?:[\\w.-]+:)?${name}(?:\\s[^>]*)?>([\\s\\S]*?)</(?:[\\w.-]+:)?${name}\\s*>`, "g");
  return [...xml.matchAll(re)].map((m) => m[1]);
}

/** The text of the first element `name`, entities decoded; undefined when absent or empty. */
function xmlText(xml: string, name: string): string | undefined {
  const text = xmlElements(xml, name)[0]?.trim();
  return text ? unescapeXml(text) : undefined;
}

/** The LOCATION of an SSDP search response (UDA 1.1 §1.3.3: "HTTP/1.1 200 OK" and headers). */
function ssdpLocation(msg: Uint8Array): string | undefined {
  const [status, ...headers] = new TextDecoder().decode(msg).split("\r\n");
  if (!/^HTTP\/1\.1 200\b/i.test(status)) return undefined;
  for (const line of headers) {
    const m = /^location\s*:\s*(\S+)/i.exec(line);
    if (m !== null) return m[1];
  }
  return undefined;
}

/**
 * The port-mapping service of a device description (UDA 1.1 §2.3), in whichever embedded device it
 * is, and its control URL, resolved against URLBase when the description has one, else the
 * description's own URL.
 */
function wanService(xml: string, location: string): { serviceType: string; controlUrl: string } | undefined {
  const services = xmlElements(xml, "service").map((s) => ({
    serviceType: xmlText(s, "serviceType"),
    controlURL: xmlText(s, "controlURL"),
  }));
  for (const type of WAN_SERVICES) {
    const s = services.find((s) => s.serviceType === type && s.controlURL !== undefined);
    if (s !== undefined) {
      return {
        serviceType: type,
        controlUrl: new URL(s.controlURL!, xmlText(xml, "URLBase") ?? location).href,
      };
    }
  }
  return undefined;
}

class UpnpGateway implements NatGateway {
  readonly kind = "upnp";
  readonly internalIp: string;
  readonly #controlUrl: string;
  readonly #serviceType: string;
  readonly #timeoutMs: number;

  constructor(internalIp: string, controlUrl: string, serviceType: string, timeoutMs: number) {
    this.internalIp = internalIp;
    this.#controlUrl = controlUrl;
    this.#serviceType = serviceType;
    this.#timeoutMs = timeoutMs;
  }

  async externalIp(): Promise<string> {
    const what = "learn the external IP";
    const ip = xmlText(await this.#call(what, "GetExternalIPAddress", []), "NewExternalIPAddress");
    if (ip === undefined) {
      throw new BaseError(
        "NAT_NO_EXTERNAL_IP",
        `Cannot ${what}: the UPnP gateway ${this.#controlUrl} has none`,
      );
    }
    return ip;
  }

  /**
   * AddPortMapping of the external port asked (UPnP does not pick another: a taken port is fault
   * 718 ConflictInMappingEntry). A gateway taking permanent leases only (725) is asked again with
   * lease 0, as go-libp2p does (establishMapping, p2p/net/nat/nat.go).
   */
  async map(
    protocol: NatProtocol,
    internalPort: number,
    externalPort: number,
    lifetimeSeconds: number,
  ): Promise<{ externalPort: number; lifetimeSeconds: number }> {
    const what = `map ${protocol.toUpperCase()} port ${internalPort} to external port ${externalPort}`;
    const add = (lease: number) =>
      this.#call(what, "AddPortMapping", [
        ["NewRemoteHost", ""],
        ["NewExternalPort", externalPort],
        ["NewProtocol", protocol.toUpperCase()],
        ["NewInternalPort", internalPort],
        ["NewInternalClient", this.internalIp],
        ["NewEnabled", 1],
        ["NewPortMappingDescription", "keel"],
        ["NewLeaseDuration", lease],
      ]);
    try {
      await add(lifetimeSeconds);
      return { externalPort, lifetimeSeconds };
    } catch (e) {
      if (
        lifetimeSeconds === 0 || !isErrorCode(e, "UPNP_FAULT") ||
        e.meta.errorCode !== UPNP_ONLY_PERMANENT_LEASES
      ) {
        throw e;
      }
      await add(0);
      return { externalPort, lifetimeSeconds: 0 };
    }
  }

  async unmap(protocol: NatProtocol, internalPort: number, externalPort: number): Promise<void> {
    await this.#call(
      `delete the mapping of ${protocol.toUpperCase()} port ${internalPort} (external ${externalPort})`,
      "DeletePortMapping",
      [["NewRemoteHost", ""], ["NewExternalPort", externalPort], ["NewProtocol", protocol.toUpperCase()]],
    );
  }

  close(): void {
    // Every request is its own HTTP exchange: nothing is held open.
  }

  /**
   * A SOAP action (UDA 1.1 §3.2, Control): POST of the envelope to the control URL, SOAPAction
   * naming the service and action. An error answer (HTTP 500, a SOAP fault holding a UPnPError) is
   * thrown with its errorCode and errorDescription.
   */
  async #call(what: string, action: string, args: [string, string | number][]): Promise<string> {
    const body = `<?xml version="1.0"?>\r\n<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" ` +
      `s:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><s:Body><u:${action} xmlns:u="${
        escapeXml(this.#serviceType)
      }">${
        args.map(([k, v]) => `<${k}>${escapeXml(String(v))}</${k}>`).join("")
      }</u:${action}></s:Body></s:Envelope>`;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), this.#timeoutMs);
    let status: number;
    let text: string;
    try {
      const res = await fetch(this.#controlUrl, {
        method: "POST",
        headers: {
          "Content-Type": 'text/xml; charset="utf-8"',
          SOAPAction: `"${this.#serviceType}#${action}"`,
        },
        body,
        signal: abort.signal,
      });
      status = res.status;
      text = await res.text();
    } catch (e) {
      const why = abort.signal.aborted ? `no answer within ${this.#timeoutMs} ms` : (e as Error).message;
      throw new BaseError(
        "UPNP_UNREACHABLE",
        `Cannot ${what}: ${action} to ${this.#controlUrl} failed: ${why}`,
        { cause: e },
      );
    } finally {
      clearTimeout(timer);
    }
    if (status >= 200 && status < 300) return text;
    const code = xmlText(text, "errorCode");
    const description = xmlText(text, "errorDescription") ?? "no description";
    if (code === undefined) {
      throw new BaseError(
        "UPNP_FAULT",
        `Cannot ${what}: the UPnP gateway answered ${action} with HTTP ${status}`,
        { meta: { status } },
      );
    }
    throw new BaseError(
      "UPNP_FAULT",
      `Cannot ${what}: the UPnP gateway answered ${action} with error ${code} (${description})`,
      { meta: { status, errorCode: Number(code), errorDescription: description } },
    );
  }
}

/**
 * Reads the description at `location`; a gateway when it has a port-mapping service. The internal
 * IP is the local address of a TCP connection to the description's host (closed at once).
 */
async function probeIgd(
  location: string,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<UpnpGateway | undefined> {
  const url = new URL(location);
  if (url.protocol !== "http:") return undefined;
  const res = await fetch(url, { signal });
  const xml = await res.text();
  if (!res.ok) throw new Error(`HTTP ${res.status} for ${location}`);
  const service = wanService(xml, location);
  if (service === undefined) return undefined;
  const conn = await Deno.connect({
    hostname: url.hostname.replace(/^\[|\]$/g, ""),
    port: Number(url.port || 80),
    signal,
  });
  const internalIp = conn.localAddr.hostname;
  conn.close();
  return new UpnpGateway(internalIp, service.controlUrl, service.serviceType, timeoutMs);
}

/**
 * A UPnP Internet Gateway Device: M-SEARCH over UDP for the IGD (UDA 1.1 §1.3.2), then the
 * description each answer's LOCATION names, until one has a WANIPConnection or WANPPPConnection
 * service. Undefined when none does within the timeout.
 */
export async function discoverUpnp(options: NatDiscoveryOptions = {}): Promise<NatGateway | undefined> {
  const { ip, port } = ipv4AndPort(options.ssdpAddress ?? SSDP_ADDRESS, 1900, "the SSDP address");
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const socket = await openUdpSocket();
  const probing = new AbortController();
  const probes: Promise<UpnpGateway | undefined>[] = [];
  let deadline: ReturnType<typeof setTimeout> | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let found: UpnpGateway | undefined;
  try {
    // UDA 1.1, Discovery: multicast TTL SHOULD default to 2 (no effect on a unicast target).
    socket.setMulticastTTL(2);
    found = await new Promise<UpnpGateway | undefined>((resolve) => {
      deadline = setTimeout(() => resolve(undefined), timeoutMs);
      const seen = new Set<string>();
      socket.on("message", (msg) => {
        const location = ssdpLocation(msg);
        if (location === undefined || seen.has(location)) return;
        seen.add(location);
        const probe = probeIgd(location, probing.signal, timeoutMs).catch((e) => {
          log.debug("UPnP: not a gateway", { location, error: (e as Error).message });
          return undefined;
        });
        probes.push(probe);
        probe.then((gateway) => gateway !== undefined && resolve(gateway));
      });
      socket.on("error", (e) => log.debug("UPnP: SSDP socket error", { error: e.message }));
      let sends = 0;
      const search = () => {
        for (const st of SSDP_SEARCH_TARGETS) {
          const msg =
            `M-SEARCH * HTTP/1.1\r\nHOST: ${ip}:${port}\r\nMAN: "ssdp:discover"\r\nMX: 2\r\nST: ${st}\r\n\r\n`;
          socket.send(msg, port, ip);
        }
        if (++sends < SSDP_SENDS) retry = setTimeout(search, 1_000);
      };
      search();
    });
    return found;
  } finally {
    clearTimeout(deadline);
    clearTimeout(retry);
    probing.abort();
    await new Promise<void>((resolve) => socket.close(() => resolve()));
    for (const gateway of await Promise.all(probes)) {
      if (gateway !== found) gateway?.close();
    }
  }
}

/** Both at once (as go-nat's DiscoverGateway); UPnP wins when both answer; undefined when neither does within the timeout. */
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
