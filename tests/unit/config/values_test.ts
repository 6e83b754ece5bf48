import { assert, assertEquals, assertThrows } from "../../assert.ts";
import { L1_OPTIONS, logLevel, networkName, type ValueKind } from "../../../lib/config/mod.ts";
import {
  address,
  bool,
  cidr,
  float,
  hex32,
  host,
  int,
  int64,
  ip,
  listOf,
  oneOf,
  path,
  port,
  uint64,
  url,
  ValueError,
} from "../../../lib/config/values.ts";
import { NETWORK_NAMES } from "../../../networks/mod.ts";

function rejects<T>(kind: ValueKind<T>, ...texts: string[]): void {
  for (const t of texts) assertThrows(() => kind.parse(t), ValueError, undefined);
}

Deno.test("booleans", () => {
  assertEquals(bool.parse("true"), true);
  assertEquals(bool.parse("false"), false);
  assertEquals(bool.parse("TRUE"), true);
  assertEquals(bool.parse("1"), true);
  assertEquals(bool.parse("0"), false);
  assert(bool.bool === true);
  rejects(bool, "yes", "", "on");
});

Deno.test("integers with ranges, ports", () => {
  assertEquals(int(-5, 5).parse("-5"), -5);
  assertEquals(port.parse("0"), 0);
  assertEquals(port.parse("65535"), 65535);
  rejects(port, "65536", "-1", "80.5", "0x50", "", "8o");
  assertEquals(port.form, "an integer from 0 to 65535");
});

Deno.test("uint64: decimal or 0x hex, bigint", () => {
  assertEquals(uint64.parse("1700000000"), 1_700_000_000n);
  assertEquals(uint64.parse("0x10"), 16n);
  assertEquals(uint64.parse("18446744073709551615"), 2n ** 64n - 1n);
  rejects(uint64, "18446744073709551616", "-1", "1.5", "abc");
});

Deno.test("int64: signed decimal or 0x hex, bigint", () => {
  assertEquals(int64.parse("-5"), -5n);
  assertEquals(int64.parse("+7"), 7n);
  assertEquals(int64.parse("0x10"), 16n);
  assertEquals(int64.parse("-9223372036854775808"), -(2n ** 63n));
  assertEquals(int64.parse("9223372036854775807"), 2n ** 63n - 1n);
  rejects(int64, "9223372036854775808", "-9223372036854775809", "1.5", "-0x10", "abc", "");
});

Deno.test("floats", () => {
  assertEquals(float(0).parse("12.5"), 12.5);
  assertEquals(float().parse("-100"), -100);
  assertEquals(float().parse("1e3"), 1000);
  rejects(float(0), "-1", "abc", "", "NaN", "Infinity");
});

Deno.test("addresses: 0x + 40 hex, EIP-55 checksum when mixed case", () => {
  const checksummed = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"; // EIP-55 test vector
  assertEquals(address.parse(checksummed), checksummed);
  assertEquals(address.parse(checksummed.toLowerCase()), checksummed.toLowerCase());
  assertEquals(address.parse("0x" + "AB".repeat(20)), "0x" + "AB".repeat(20));
  rejects(
    address,
    "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD",
    "0x123",
    "5aaeb6053f3e94c9b9a09f33669435e7ef1beaed00",
    "0x" + "g".repeat(40),
  );
});

Deno.test("32-byte hex keys", () => {
  assertEquals(hex32.parse("11".repeat(32)), "11".repeat(32));
  assertEquals(hex32.parse("0x" + "aB".repeat(32)), "0x" + "aB".repeat(32));
  rejects(hex32, "0x11", "zz".repeat(32));
});

Deno.test("URLs: only the accepted schemes", () => {
  const rpc = url(["http", "https", "ws", "wss"]);
  for (
    const u of ["http://127.0.0.1:8545", "https://x.example/rpc?k=1", "ws://[::1]:8546", "wss://node.example"]
  ) {
    assertEquals(rpc.parse(u), u);
  }
  rejects(rpc, "ftp://x.example", "127.0.0.1:8545", "http//x", "", "file:///tmp/x");
  rejects(url(["http", "https"]), "ws://x.example");
  assertEquals(L1_OPTIONS.l1.kind.form, "a URL (http://, https://, ws://, wss://)");
});

Deno.test("IPs, hosts and CIDR masks (IPv4 and IPv6)", () => {
  assertEquals(ip.parse("0.0.0.0"), "0.0.0.0");
  assertEquals(ip.parse("::"), "::");
  assertEquals(ip.parse("fe80::1"), "fe80::1");
  rejects(ip, "256.0.0.1", "1.2.3", "localhost", "::g");
  assertEquals(host.parse("localhost"), "localhost");
  assertEquals(host.parse("node-1.example.com"), "node-1.example.com");
  rejects(host, "not a host", "-x.example", "a/b");
  assertEquals(cidr.parse("10.0.0.0/8"), "10.0.0.0/8");
  assertEquals(cidr.parse("192.168.1.0/24"), "192.168.1.0/24");
  assertEquals(cidr.parse("fd00::/8"), "fd00::/8");
  assertEquals(cidr.parse("2001:db8::/128"), "2001:db8::/128");
  rejects(cidr, "10.0.0.0/33", "10.0.0.0", "fd00::/129", "x/8", "10.0.0/8");
  assertEquals(listOf(cidr).parse("10.0.0.0/8, fd00::/8,"), ["10.0.0.0/8", "fd00::/8"]);
  rejects(listOf(cidr), "10.0.0.0/8,nope");
});

Deno.test("comma lists", () => {
  const apis = listOf(oneOf(["eth", "net", "web3"] as const));
  assertEquals(apis.parse("eth,net"), ["eth", "net"]);
  assertEquals(apis.parse(""), []);
  assertEquals(apis.format(["eth", "web3"]), "eth,web3");
  assert(apis.list === true);
  rejects(apis, "eth,admn");
});

Deno.test("file paths", () => {
  assertEquals(path.parse("/var/lib/keel/jwt.hex"), "/var/lib/keel/jwt.hex");
  assertEquals(path.parse("rel/file.json"), "rel/file.json");
  rejects(path, "", "  ", "a\0b");
});

Deno.test("enums are case-insensitive and return the canonical spelling", () => {
  const kinds = oneOf(["geth", "reth", "erigon"] as const);
  assertEquals(kinds.parse("Reth"), "reth");
  const err = assertThrows(() => kinds.parse("gethh"), ValueError) as ValueError;
  assertEquals(err.suggestion, "geth");
});

Deno.test("log levels: names and numbers 0-5", () => {
  const expected = ["silent", "error", "warn", "info", "debug", "trace"];
  for (let i = 0; i <= 5; i++) assertEquals(logLevel.parse(String(i)), expected[i]);
  assertEquals(logLevel.parse("detail"), "trace");
  assertEquals(logLevel.parse("WARN"), "warn");
  assertEquals(logLevel.parse("crit"), "error");
  rejects(logLevel, "6", "-1", "verbose", "");
});

Deno.test("network: all 63 presets, case-insensitive, with aliases", () => {
  assertEquals(NETWORK_NAMES.length, 63);
  for (const name of NETWORK_NAMES) {
    assertEquals(networkName.parse(name), name);
    assertEquals(networkName.parse(name.toUpperCase()), name);
  }
  assertEquals(networkName.parse("mainnet"), "op-mainnet");
  assertEquals(networkName.parse("Sepolia"), "op-sepolia");
  rejects(networkName, "op-mainet", "", "goerli-ish");
});
