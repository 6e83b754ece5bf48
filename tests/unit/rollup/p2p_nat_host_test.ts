/**
 * --p2p.nat on a real p2p host (host_nat.ts): with a NAT-PMP gateway on 127.0.0.1, the host's TCP port
 * and discovery's UDP port are mapped, the external address is among the host's libp2p addresses and in
 * its ENR, and the mappings are deleted when the host stops; --p2p.advertise.ip keeps its IP in the ENR.
 * Without a gateway the host runs on its local addresses.
 */
import { ENR } from "@chainsafe/enr";
import { assert, assertEquals } from "../../assert.ts";
import { bindUdp, closeUdp, FakeNatPmp, portOf } from "./nat_fakes.ts";
import { testHost } from "./p2p_helpers.ts";
import { likelyGateways } from "../../../lib/rollup/p2p/host_nat.ts";

const DISCOVERY = { listenUdp: 0, advertiseTcp: 0, advertiseUdp: 0, bootnodes: [], intervalMs: 60_000 };

Deno.test("p2p nat: the mapped external address is announced over libp2p and in the ENR, and unmapped at stop", async () => {
  const fake = await FakeNatPmp.start();
  // No UPnP gateway: SSDP goes to a socket that never answers.
  const silent = await bindUdp();
  const host = testHost(901n, {
    discovery: DISCOVERY,
    nat: { pmpGateway: fake.address, ssdpAddress: `127.0.0.1:${portOf(silent)}`, timeoutMs: 1_000 },
  });
  try {
    await host.start();
    const mapping = await host.natMapping();
    assert(mapping !== undefined, "no mapping");
    assertEquals([mapping.gateway, mapping.internalIp, mapping.externalIp], [
      "nat-pmp",
      "127.0.0.1",
      "203.0.113.7",
    ]);
    const tcp = Number(host.selfInfo().addresses[0].split("/")[4]);
    assertEquals(mapping.ports.map((p) => [p.protocol, p.internalPort, p.externalPort]), [
      ["tcp", tcp, tcp],
      ["udp", tcp, tcp], // --p2p.listen.udp 0: discovery on the TCP port
    ]);
    const addresses = host.selfInfo().addresses;
    const peer = host.selfInfo().peerID;
    assert(addresses.includes(`/ip4/203.0.113.7/tcp/${tcp}/p2p/${peer}`), addresses.join(" "));
    assert(addresses.includes(`/ip4/127.0.0.1/tcp/${tcp}/p2p/${peer}`), addresses.join(" "));
    const record = ENR.decodeTxt(host.selfInfo().ENR);
    assertEquals([record.ip, record.tcp, record.udp], ["203.0.113.7", tcp, tcp]);
    await host.stop();
    // Deleted: lifetime 0 for both (RFC 6886 §3.4).
    const deletes = fake.requests.filter((r) => r.op !== 0 && r.lifetime === 0).map((r) => r.op).sort();
    assertEquals(deletes, [1, 2]);
  } finally {
    await host.stop();
    await closeUdp(silent);
    await fake.close();
  }
});

Deno.test("p2p nat: --p2p.advertise.ip keeps its IP in the ENR; no gateway leaves the local addresses", async () => {
  const fake = await FakeNatPmp.start();
  const silent = await bindUdp();
  const nat = { ssdpAddress: `127.0.0.1:${portOf(silent)}`, timeoutMs: 500 };
  const a = testHost(901n, {
    discovery: { ...DISCOVERY, advertiseIp: "198.51.100.9" },
    nat: { ...nat, pmpGateway: fake.address },
  });
  const b = testHost(901n, {
    discovery: DISCOVERY,
    nat: { ...nat, pmpGateway: `127.0.0.1:${portOf(silent)}` },
  });
  try {
    await a.start();
    assert((await a.natMapping()) !== undefined);
    assertEquals(ENR.decodeTxt(a.selfInfo().ENR).ip, "198.51.100.9");
    await b.start();
    assertEquals(await b.natMapping(), undefined);
    assert(
      b.selfInfo().addresses.every((x) => x.startsWith("/ip4/127.0.0.1/")),
      b.selfInfo().addresses.join(" "),
    );
    assertEquals(ENR.decodeTxt(b.selfInfo().ENR).ip, "127.0.0.1");
  } finally {
    await a.stop();
    await b.stop();
    await closeUdp(silent);
    await fake.close();
  }
});

Deno.test("p2p nat: without the routing table, NAT-PMP asks the first address of each private IPv4 network", () => {
  assertEquals(
    likelyGateways([
      { family: "IPv4", address: "127.0.0.1", netmask: "255.0.0.0" },
      { family: "IPv4", address: "192.168.1.23", netmask: "255.255.255.0" },
      { family: "IPv6", address: "fe80::1", netmask: "ffff:ffff:ffff:ffff::" },
      { family: "IPv4", address: "10.4.5.6", netmask: "255.255.0.0" },
      { family: "IPv4", address: "172.20.0.9", netmask: "255.255.240.0" },
      { family: "IPv4", address: "203.0.113.5", netmask: "255.255.255.0" }, // public: no NAT to ask
      { family: "IPv4", address: "192.168.1.1", netmask: "255.255.255.0" }, // the router itself
    ]),
    ["192.168.1.1", "10.4.0.1", "172.20.0.1"],
  );
});
