/**
 * UPnP IGD v1/v2 for --p2p.nat (nat.ts): an SSDP search (UPnP Device Architecture 1.1, §1.3), the device
 * description it points at (§2.3), and SOAP actions of its WANIPConnection or WANPPPConnection service
 * (§3.2).
 */
import { BaseError, isErrorCode } from "../../common/errors.ts";
import {
  DEFAULT_TIMEOUT_MS,
  ipv4AndPort,
  type NatDiscoveryOptions,
  type NatGateway,
  natLog as log,
  type NatProtocol,
  openUdpSocket,
} from "./nat_gateway.ts";

const SSDP_ADDRESS = "239.255.255.250:1900";

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
