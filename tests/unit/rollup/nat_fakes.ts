/**
 * Fake NAT gateways on 127.0.0.1 for the --p2p.nat tests: a NAT-PMP server answering per RFC 6886, and
 * a UPnP IGD (an SSDP responder, its description and SOAP control over HTTP).
 */
import dgram from "node:dgram";
import { assert } from "../../assert.ts";
import { discoverNatPmp, discoverUpnp, type NatGateway } from "../../../lib/rollup/p2p/nat.ts";

export const quiet = { warn() {}, info() {} };

export function bindUdp(): Promise<dgram.Socket> {
  const socket = dgram.createSocket("udp4");
  return new Promise((resolve) => socket.bind(0, "127.0.0.1", () => resolve(socket)));
}

export function closeUdp(socket: dgram.Socket): Promise<void> {
  return new Promise((resolve) => socket.close(() => resolve()));
}

export function portOf(socket: dgram.Socket): number {
  return socket.address().port;
}

export interface PmpRequest {
  op: number;
  internalPort?: number;
  externalPort?: number;
  lifetime?: number;
}

/** A NAT-PMP gateway (RFC 6886 §3.2 to §3.5) recording the requests it got. */
export class FakeNatPmp {
  readonly requests: PmpRequest[] = [];
  externalIp = "203.0.113.7";
  /** Result code of mapping answers (0: success). */
  resultCode = 0;
  /** Requests left unanswered before answering again. */
  drop = 0;
  /** Answers nothing at all. */
  silent = false;
  /** Mappings ("tcp:30303") of which the external port is taken: granted ALTERNATIVE_PORT instead. */
  readonly taken = new Set<string>();
  maxLifetime = 3_600;
  /** When set, a forged answer comes first from this other socket, the real one 100 ms later. */
  rogue: dgram.Socket | undefined;
  readonly #started = Date.now();
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  static readonly ALTERNATIVE_PORT = 40_001;

  private constructor(readonly socket: dgram.Socket) {
    socket.on("message", (msg, from) => this.#answer(msg, from));
  }

  static async start(): Promise<FakeNatPmp> {
    return new FakeNatPmp(await bindUdp());
  }

  get address(): string {
    return `127.0.0.1:${portOf(this.socket)}`;
  }

  async close(): Promise<void> {
    for (const t of this.#timers) clearTimeout(t);
    if (this.rogue !== undefined) await closeUdp(this.rogue);
    await closeUdp(this.socket);
  }

  #answer(msg: Uint8Array, from: dgram.RemoteInfo): void {
    const req = new DataView(msg.buffer, msg.byteOffset, msg.byteLength);
    const op = msg[1];
    this.requests.push(
      op === 0
        ? { op }
        : { op, internalPort: req.getUint16(4), externalPort: req.getUint16(6), lifetime: req.getUint32(8) },
    );
    if (this.silent) return;
    if (this.drop > 0) {
      this.drop--;
      return;
    }
    const epoch = Math.floor((Date.now() - this.#started) / 1000);
    const answer = (externalIp: string, externalPort?: number) => {
      if (op === 0) {
        const res = new DataView(new ArrayBuffer(12));
        res.setUint8(1, 128);
        res.setUint32(4, epoch);
        externalIp.split(".").forEach((b, i) => res.setUint8(8 + i, Number(b)));
        return new Uint8Array(res.buffer);
      }
      const res = new DataView(new ArrayBuffer(16));
      const lifetime = Math.min(req.getUint32(8), this.maxLifetime);
      const wish = req.getUint16(6);
      const key = `${op === 2 ? "tcp" : "udp"}:${wish}`;
      res.setUint8(1, 128 + op);
      res.setUint16(2, this.resultCode);
      res.setUint32(4, epoch);
      res.setUint16(8, req.getUint16(4));
      res.setUint16(
        10,
        externalPort ?? (lifetime === 0 ? 0 : this.taken.has(key) ? FakeNatPmp.ALTERNATIVE_PORT : wish),
      );
      res.setUint32(12, lifetime);
      return new Uint8Array(res.buffer);
    };
    if (this.rogue === undefined) {
      this.socket.send(answer(this.externalIp), from.port, from.address);
      return;
    }
    this.rogue.send(answer("6.6.6.6", 1), from.port, from.address);
    const t = setTimeout(() => {
      this.#timers.delete(t);
      this.socket.send(answer(this.externalIp), from.port, from.address);
    }, 100);
    this.#timers.add(t);
  }
}

export interface SoapCall {
  path: string;
  action: string;
  soapAction: string;
  contentType: string;
  args: Record<string, string>;
}

export const IGD_SERVICE = "urn:schemas-upnp-org:service:WANIPConnection:1";

/**
 * A UPnP Internet Gateway Device as a home router serves it (miniupnpd's layout): the WANIPConnection
 * service two devices deep, a relative controlURL, other services around it.
 */
export class FakeIgd {
  /** The M-SEARCH requests received. */
  readonly searches: string[] = [];
  readonly calls: SoapCall[] = [];
  externalIp = "198.51.100.9";
  /** Puts a URLBase into the description (the control URL then resolves against it). */
  urlBase = false;
  /** Answers AddPortMapping with a lease other than 0 by fault 725 OnlyPermanentLeasesSupported. */
  permanentOnly = false;
  /** External ports taken: AddPortMapping answers fault 718 ConflictInMappingEntry. */
  readonly conflicts = new Set<number>();
  /** A fault answered to this action. */
  fault: { action: string; code: number; description: string } | undefined;

  private constructor(readonly ssdp: dgram.Socket, readonly server: Deno.HttpServer<Deno.NetAddr>) {
    ssdp.on("message", (msg, from) => {
      const text = new TextDecoder().decode(msg);
      this.searches.push(text);
      const st = /^ST:\s*(.+)$/im.exec(text)?.[1].trim() ?? "";
      const reply = "HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=120\r\nEXT:\r\n" +
        `LOCATION: http://127.0.0.1:${this.port}/rootDesc.xml\r\n` +
        "SERVER: Linux/6.1 UPnP/1.1 MiniUPnPd/2.3.3\r\n" +
        `ST: ${st}\r\nUSN: uuid:0f5a7bde-1dd2-11b2-8ae1-0c8112c3a4b1::${st}\r\n\r\n`;
      ssdp.send(reply, from.port, from.address);
    });
  }

  static async start(): Promise<FakeIgd> {
    let igd: FakeIgd | undefined = undefined;
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      (req) => igd!.handle(req),
    );
    igd = new FakeIgd(await bindUdp(), server);
    return igd;
  }

  get port(): number {
    return this.server.addr.port;
  }

  get ssdpAddress(): string {
    return `127.0.0.1:${portOf(this.ssdp)}`;
  }

  async close(): Promise<void> {
    await closeUdp(this.ssdp);
    await this.server.shutdown();
  }

  async handle(req: Request): Promise<Response> {
    const path = new URL(req.url).pathname;
    const body = await req.text();
    if (req.method === "GET" && path === "/rootDesc.xml") {
      return new Response(this.#description(), { headers: { "Content-Type": 'text/xml; charset="utf-8"' } });
    }
    if (req.method !== "POST" || !path.endsWith("/ctl/IPConn")) {
      return new Response("not found", { status: 404 });
    }
    const soapAction = req.headers.get("SOAPAction") ?? "";
    const action = /#(\w+)"$/.exec(soapAction)?.[1] ?? "";
    const args: Record<string, string> = {};
    for (const m of body.matchAll(/<(New\w+)>([^<]*)<\/\1>/g)) args[m[1]] = m[2];
    this.calls.push({ path, action, soapAction, contentType: req.headers.get("Content-Type") ?? "", args });
    const fault = this.#faultFor(action, args);
    const envelope = (inner: string) =>
      '<?xml version="1.0"?>\r\n<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" ' +
      `s:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><s:Body>${inner}</s:Body></s:Envelope>`;
    if (fault !== undefined) {
      return new Response(
        envelope(
          "<s:Fault><faultcode>s:Client</faultcode><faultstring>UPnPError</faultstring><detail>" +
            `<UPnPError xmlns="urn:schemas-upnp-org:control-1-0"><errorCode>${fault.code}</errorCode>` +
            `<errorDescription>${fault.description}</errorDescription></UPnPError></detail></s:Fault>`,
        ),
        { status: 500, headers: { "Content-Type": 'text/xml; charset="utf-8"' } },
      );
    }
    const out = action === "GetExternalIPAddress"
      ? `<NewExternalIPAddress>${this.externalIp}</NewExternalIPAddress>`
      : "";
    return new Response(
      envelope(`<u:${action}Response xmlns:u="${IGD_SERVICE}">${out}</u:${action}Response>`),
      { headers: { "Content-Type": 'text/xml; charset="utf-8"' } },
    );
  }

  #faultFor(action: string, args: Record<string, string>): { code: number; description: string } | undefined {
    if (this.fault?.action === action) return this.fault;
    if (action !== "AddPortMapping") return undefined;
    if (this.permanentOnly && args.NewLeaseDuration !== "0") {
      return { code: 725, description: "OnlyPermanentLeasesSupported" };
    }
    if (this.conflicts.has(Number(args.NewExternalPort))) {
      return { code: 718, description: "ConflictInMappingEntry" };
    }
    return undefined;
  }

  #description(): string {
    const service = (type: string, id: string, name: string, control: string) =>
      `<service><serviceType>${type}</serviceType><serviceId>urn:upnp-org:serviceId:${id}</serviceId>` +
      `<SCPDURL>/${name}.xml</SCPDURL><controlURL>${control}</controlURL><eventSubURL>/evt/${name}</eventSubURL></service>`;
    return `<?xml version="1.0"?>
<root xmlns="urn:schemas-upnp-org:device-1-0">
  <specVersion><major>1</major><minor>0</minor></specVersion>
  ${this.urlBase ? `<URLBase>http://127.0.0.1:${this.port}/igd/</URLBase>` : ""}
  <device>
    <deviceType>urn:schemas-upnp-org:device:InternetGatewayDevice:1</deviceType>
    <friendlyName>Fake router</friendlyName>
    <manufacturer>keel tests</manufacturer>
    <UDN>uuid:0f5a7bde-1dd2-11b2-8ae1-0c8112c3a4b1</UDN>
    <serviceList>
      ${service("urn:schemas-upnp-org:service:Layer3Forwarding:1", "L3Forwarding1", "L3F", "/ctl/L3F")}
    </serviceList>
    <deviceList>
      <device>
        <deviceType>urn:schemas-upnp-org:device:WANDevice:1</deviceType>
        <friendlyName>WANDevice</friendlyName>
        <serviceList>
          ${
      service(
        "urn:schemas-upnp-org:service:WANCommonInterfaceConfig:1",
        "WANCommonIFC1",
        "WANCfg",
        "/ctl/CmnIfCfg",
      )
    }
        </serviceList>
        <deviceList>
          <device>
            <deviceType>urn:schemas-upnp-org:device:WANConnectionDevice:1</deviceType>
            <friendlyName>WANConnectionDevice</friendlyName>
            <serviceList>
              ${service(IGD_SERVICE, "WANIPConn1", "WANIPCn", "ctl/IPConn")}
            </serviceList>
          </device>
        </deviceList>
      </device>
    </deviceList>
    <presentationURL>http://127.0.0.1/</presentationURL>
  </device>
</root>`;
  }
}

/** Runs `fn` with a NAT-PMP gateway found at the fake, closing both. */
export async function withPmp(
  fn: (fake: FakeNatPmp, gateway: NatGateway) => Promise<void>,
  setup?: (fake: FakeNatPmp) => void | Promise<void>,
) {
  const fake = await FakeNatPmp.start();
  await setup?.(fake);
  const gateway = await discoverNatPmp({ pmpGateway: fake.address, timeoutMs: 2_000 });
  try {
    assert(gateway !== undefined, "the NAT-PMP gateway was not found");
    await fn(fake, gateway);
  } finally {
    gateway?.close();
    await fake.close();
  }
}

/** Runs `fn` with the UPnP gateway found through the fake's SSDP responder, closing both. */
export async function withIgd(
  fn: (fake: FakeIgd, gateway: NatGateway) => Promise<void>,
  setup?: (fake: FakeIgd) => void,
) {
  const fake = await FakeIgd.start();
  setup?.(fake);
  const gateway = await discoverUpnp({ ssdpAddress: fake.ssdpAddress, timeoutMs: 2_000 });
  try {
    assert(gateway !== undefined, "the UPnP gateway was not found");
    await fn(fake, gateway);
  } finally {
    gateway?.close();
    await fake.close();
  }
}
