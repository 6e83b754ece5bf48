/**
 * NAT-PMP (RFC 6886) for --p2p.nat (nat.ts): UDP requests to the default route's gateway, port 5351,
 * for the public address and port mappings.
 */
import type dgram from "node:dgram";
import { BaseError } from "../../common/errors.ts";
import {
  DEFAULT_TIMEOUT_MS,
  ipv4AndPort,
  ipv4ToInt,
  type NatDiscoveryOptions,
  type NatGateway,
  natLog as log,
  type NatProtocol,
  openUdpSocket,
} from "./nat_gateway.ts";

const NAT_PMP_PORT = 5351;

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
