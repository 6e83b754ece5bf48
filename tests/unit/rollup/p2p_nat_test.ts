/**
 * --p2p.nat (lib/rollup/p2p/nat.ts) against fake gateways on 127.0.0.1: a NAT-PMP server answering
 * per RFC 6886, and a UPnP IGD (an SSDP responder, its description and SOAP control over HTTP).
 */
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../../assert.ts";
import { BaseError } from "../../../lib/common/errors.ts";
import {
  defaultGateway,
  discoverGateway,
  discoverNatPmp,
  type NatMappingResult,
  NatPortMapper,
} from "../../../lib/rollup/p2p/nat.ts";
import {
  bindUdp,
  closeUdp,
  FakeIgd,
  FakeNatPmp,
  IGD_SERVICE,
  portOf,
  quiet,
  withIgd,
  withPmp,
} from "./nat_fakes.ts";

Deno.test("nat-pmp: external IP, TCP and UDP mappings with the port and lifetime granted, unmap with lifetime 0", async () => {
  await withPmp(async (fake, gateway) => {
    assertEquals(gateway.kind, "nat-pmp");
    assertEquals(gateway.internalIp, "127.0.0.1");
    assertEquals(await gateway.externalIp(), "203.0.113.7");
    fake.taken.add("udp:30303");
    assertEquals(await gateway.map("tcp", 30303, 30303, 7200), {
      externalPort: 30303,
      lifetimeSeconds: 3600,
    });
    assertEquals(await gateway.map("udp", 30303, 30303, 60), {
      externalPort: FakeNatPmp.ALTERNATIVE_PORT,
      lifetimeSeconds: 60,
    });
    await gateway.unmap("udp", 30303, FakeNatPmp.ALTERNATIVE_PORT);
    assertEquals(fake.requests, [
      { op: 0 }, // discovery
      { op: 0 },
      { op: 2, internalPort: 30303, externalPort: 30303, lifetime: 7200 },
      { op: 1, internalPort: 30303, externalPort: 30303, lifetime: 60 },
      { op: 1, internalPort: 30303, externalPort: 0, lifetime: 0 }, // RFC 6886 §3.4
    ]);
  });
});

Deno.test("nat-pmp: a request left unanswered is sent again after 250 ms", async () => {
  await withPmp(async (fake, gateway) => {
    fake.drop = 1;
    const t0 = Date.now();
    assertEquals(await gateway.map("tcp", 9222, 9222, 60), { externalPort: 9222, lifetimeSeconds: 60 });
    const elapsed = Date.now() - t0;
    assert(elapsed >= 200 && elapsed < 1_000, `answered after ${elapsed} ms`);
    assertEquals(fake.requests.slice(1), [
      { op: 2, internalPort: 9222, externalPort: 9222, lifetime: 60 },
      { op: 2, internalPort: 9222, externalPort: 9222, lifetime: 60 },
    ]);
  });
});

Deno.test("nat-pmp: result code 2 is an error naming Not Authorized/Refused", async () => {
  await withPmp(async (fake, gateway) => {
    fake.resultCode = 2;
    const err = await assertRejects(
      () => gateway.map("tcp", 9222, 9222, 60),
      BaseError,
      "Not Authorized/Refused",
    );
    assertEquals((err as BaseError).code, "NAT_PMP_REFUSED");
    assertStringIncludes(err.message, "Cannot map TCP port 9222");
    assertStringIncludes(err.message, "result code 2");
  });
});

Deno.test("nat-pmp: answers from another address than the gateway's are ignored", async () => {
  await withPmp(async (_fake, gateway) => {
    assertEquals(await gateway.externalIp(), "203.0.113.7");
    assertEquals(await gateway.map("tcp", 9222, 9222, 60), { externalPort: 9222, lifetimeSeconds: 60 });
  }, async (fake) => {
    fake.rogue = await bindUdp();
  });
});

Deno.test("nat-pmp: a gateway that is closed fails at once; unknown addresses are refused", async () => {
  await withPmp(async (_fake, gateway) => {
    gateway.close();
    await assertRejects(() => gateway.externalIp(), BaseError, "the gateway was closed");
  });
  await assertRejects(() => discoverNatPmp({ pmpGateway: "router.lan:5351" }), BaseError, "not an IPv4");
});

Deno.test("discovery: nothing answering gives undefined within the timeout", async () => {
  const pmp = await FakeNatPmp.start();
  pmp.silent = true;
  const ssdp = await bindUdp();
  const searches: string[] = [];
  ssdp.on("message", (msg) => searches.push(new TextDecoder().decode(msg)));
  try {
    const t0 = Date.now();
    const gateway = await discoverGateway({
      pmpGateway: pmp.address,
      ssdpAddress: `127.0.0.1:${portOf(ssdp)}`,
      timeoutMs: 600,
    });
    const elapsed = Date.now() - t0;
    assertEquals(gateway, undefined);
    assert(elapsed >= 550 && elapsed < 1_500, `gave up after ${elapsed} ms`);
    // Both were asked: NAT-PMP at 0 and 250 ms (RFC 6886 §3.1), SSDP for the IGD v1 and v2.
    assertEquals(pmp.requests, [{ op: 0 }, { op: 0 }]);
    assert(searches.some((s) => s.includes("ST: urn:schemas-upnp-org:device:InternetGatewayDevice:1\r\n")));
    assert(searches.some((s) => s.includes("ST: urn:schemas-upnp-org:device:InternetGatewayDevice:2\r\n")));
  } finally {
    await closeUdp(ssdp);
    await pmp.close();
  }
});

Deno.test("upnp: SSDP, description, control URL; GetExternalIPAddress, AddPortMapping and DeletePortMapping", async () => {
  await withIgd(async (fake, gateway) => {
    assertEquals(gateway.kind, "upnp");
    assertEquals(gateway.internalIp, "127.0.0.1");
    const search = fake.searches[0];
    assert(search.startsWith("M-SEARCH * HTTP/1.1\r\n"), search);
    assertStringIncludes(search, `HOST: ${fake.ssdpAddress}\r\n`);
    assertStringIncludes(search, 'MAN: "ssdp:discover"\r\n');
    assertStringIncludes(search, "MX: 2\r\n");

    assertEquals(await gateway.externalIp(), "198.51.100.9");
    assertEquals(await gateway.map("tcp", 9222, 9222, 60), { externalPort: 9222, lifetimeSeconds: 60 });
    await gateway.unmap("tcp", 9222, 9222);
    assertEquals(fake.calls.map((c) => [c.path, c.action]), [
      ["/ctl/IPConn", "GetExternalIPAddress"], // relative to the description's URL
      ["/ctl/IPConn", "AddPortMapping"],
      ["/ctl/IPConn", "DeletePortMapping"],
    ]);
    const add = fake.calls[1];
    assertEquals(add.soapAction, `"${IGD_SERVICE}#AddPortMapping"`);
    assertEquals(add.contentType, 'text/xml; charset="utf-8"');
    assertEquals(add.args, {
      NewRemoteHost: "",
      NewExternalPort: "9222",
      NewProtocol: "TCP",
      NewInternalPort: "9222",
      NewInternalClient: "127.0.0.1",
      NewEnabled: "1",
      NewPortMappingDescription: "keel",
      NewLeaseDuration: "60",
    });
    assertEquals(fake.calls[2].args, { NewRemoteHost: "", NewExternalPort: "9222", NewProtocol: "TCP" });
  });
});

Deno.test("upnp: a relative controlURL resolves against the description's URLBase", async () => {
  await withIgd(async (fake, gateway) => {
    assertEquals(await gateway.externalIp(), "198.51.100.9");
    assertEquals(fake.calls.map((c) => c.path), ["/igd/ctl/IPConn"]);
  }, (fake) => fake.urlBase = true);
});

Deno.test("upnp: a SOAP fault is an error with its errorCode and errorDescription", async () => {
  await withIgd(async (fake, gateway) => {
    fake.conflicts.add(9222);
    const err = await assertRejects(
      () => gateway.map("udp", 9222, 9222, 60),
      BaseError,
      "error 718 (ConflictInMappingEntry)",
    );
    assertEquals((err as BaseError).code, "UPNP_FAULT");
    assertEquals((err as BaseError).meta.errorCode, 718);
    assertStringIncludes(err.message, "Cannot map UDP port 9222");
    fake.fault = { action: "GetExternalIPAddress", code: 501, description: "ActionFailed" };
    await assertRejects(() => gateway.externalIp(), BaseError, "error 501 (ActionFailed)");
  });
});

Deno.test("upnp: 725 OnlyPermanentLeasesSupported is asked again with lease 0", async () => {
  await withIgd(async (fake, gateway) => {
    fake.permanentOnly = true;
    assertEquals(await gateway.map("tcp", 9222, 9222, 60), { externalPort: 9222, lifetimeSeconds: 0 });
    assertEquals(fake.calls.map((c) => c.args.NewLeaseDuration), ["60", "0"]);
  });
});

Deno.test("discoverGateway: UPnP wins when both answer; NAT-PMP when it alone does", async () => {
  const igd = await FakeIgd.start();
  const pmp = await FakeNatPmp.start();
  const silent = await bindUdp();
  try {
    const both = await discoverGateway({
      pmpGateway: pmp.address,
      ssdpAddress: igd.ssdpAddress,
      timeoutMs: 1_500,
    });
    both?.close();
    assertEquals(both?.kind, "upnp");
    assertEquals(pmp.requests, [{ op: 0 }]); // NAT-PMP answered too, and was closed

    const pmpOnly = await discoverGateway({
      pmpGateway: pmp.address,
      ssdpAddress: `127.0.0.1:${portOf(silent)}`,
      timeoutMs: 500,
    });
    pmpOnly?.close();
    assertEquals(pmpOnly?.kind, "nat-pmp");
  } finally {
    await closeUdp(silent);
    await pmp.close();
    await igd.close();
  }
});

Deno.test("NatPortMapper: maps the wanted ports, renews at half the lifetime reporting a new external IP, deletes on stop", async () => {
  await withPmp(async (fake, gateway) => {
    fake.maxLifetime = 2; // renewal after 1 s
    fake.taken.add("udp:30303");
    const changed = Promise.withResolvers<NatMappingResult>();
    const mapper = new NatPortMapper(gateway, [
      { protocol: "tcp", internalPort: 30303 },
      { protocol: "udp", internalPort: 30303 },
    ], { onChange: (r) => changed.resolve(r), log: quiet });
    try {
      const started = await mapper.start();
      assertEquals(started, {
        gateway: "nat-pmp",
        internalIp: "127.0.0.1",
        externalIp: "203.0.113.7",
        ports: [
          { protocol: "tcp", internalPort: 30303, externalPort: 30303 },
          { protocol: "udp", internalPort: 30303, externalPort: FakeNatPmp.ALTERNATIVE_PORT },
        ],
      });
      fake.externalIp = "203.0.113.8";
      const t0 = Date.now();
      const renewed = await changed.promise;
      assert(Date.now() - t0 < 1_500, "renewed late");
      assertEquals(renewed, { ...started, externalIp: "203.0.113.8" });
      // The lifetime asked is go-libp2p's minute; renewal asks the port granted before.
      assertEquals(fake.requests.slice(1, 4), [
        { op: 0 },
        { op: 2, internalPort: 30303, externalPort: 30303, lifetime: 60 },
        { op: 1, internalPort: 30303, externalPort: 30303, lifetime: 60 },
      ]);
      assertEquals(fake.requests.slice(4, 7), [
        { op: 0 },
        { op: 2, internalPort: 30303, externalPort: 30303, lifetime: 60 },
        { op: 1, internalPort: 30303, externalPort: FakeNatPmp.ALTERNATIVE_PORT, lifetime: 60 },
      ]);
    } finally {
      await mapper.stop();
    }
    assertEquals(fake.requests.slice(-2), [
      { op: 2, internalPort: 30303, externalPort: 0, lifetime: 0 },
      { op: 1, internalPort: 30303, externalPort: 0, lifetime: 0 },
    ]);
  });
});

Deno.test("NatPortMapper: start throws when the gateway refuses every mapping", async () => {
  await withPmp(async (fake, gateway) => {
    fake.resultCode = 2;
    const mapper = new NatPortMapper(gateway, [
      { protocol: "tcp", internalPort: 9222 },
      { protocol: "udp", internalPort: 9222 },
    ], { log: quiet });
    const err = await assertRejects(
      () => mapper.start(),
      BaseError,
      "Cannot map any port on the nat-pmp gateway",
    );
    assertEquals((err as BaseError).code, "NAT_MAPPING_REFUSED");
    assertStringIncludes(err.message, "Not Authorized/Refused");
    await mapper.stop();
    assertEquals(fake.requests.length, 4); // discovery, external IP, one request per port: nothing to delete
  });
});

Deno.test("NatPortMapper on UPnP: the same port first, a random one when it is taken", async () => {
  await withIgd(async (fake, gateway) => {
    fake.conflicts.add(9222);
    const mapper = new NatPortMapper(gateway, [{ protocol: "tcp", internalPort: 9222 }], { log: quiet });
    const result = await mapper.start();
    const external = result.ports[0].externalPort;
    assert(external >= 10_000 && external < 65_535 && external !== 9222, `external port ${external}`);
    assertEquals(result.externalIp, "198.51.100.9");
    await mapper.stop();
    assertEquals(fake.calls.map((c) => [c.action, c.args.NewExternalPort]), [
      ["GetExternalIPAddress", undefined],
      ["AddPortMapping", "9222"],
      ["AddPortMapping", String(external)],
      ["DeletePortMapping", String(external)],
    ]);
  });
});

Deno.test("defaultGateway: the default route through a gateway, of lowest metric, from /proc/net/route", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-nat-" });
  try {
    const header = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT";
    const table = `${dir}/route`;
    await Deno.writeTextFile(
      table,
      [
        header,
        "eth0\t0002A8C0\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0",
        "wlan0\t00000000\tFE01A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0",
        "eth0\t00000000\t0102A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0",
        "docker0\t000011AC\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0",
        "",
      ].join("\n"),
    );
    assertEquals(await defaultGateway(table), "192.168.2.1");
    // A default route straight out of an interface (no RTF_GATEWAY) names no gateway.
    const direct = `${dir}/direct`;
    await Deno.writeTextFile(
      direct,
      `${header}\ntun0\t00000000\t00000000\t0001\t0\t0\t0\t00000000\t0\t0\t0\n`,
    );
    assertEquals(await defaultGateway(direct), undefined);
    assertEquals(await defaultGateway(`${dir}/missing`), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
