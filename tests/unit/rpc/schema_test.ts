import { assert, assertEquals, assertThrows } from "../../assert.ts";
import { s, SchemaError } from "../../../lib/rpc/schema.ts";

const ADDR = "0x" + "ab".repeat(20);
const HASH = "0x" + "cd".repeat(32);

Deno.test("s.address parses 20 bytes and names geth's type in errors", () => {
  const a = s.address().parse(ADDR);
  assertEquals(a.length, 20);
  assertEquals(a[0], 0xab);
  assertEquals(s.address().parse("0x" + "AB".repeat(20))[19], 0xab);
  assertThrows(
    () => s.address().parse("0xabc"),
    SchemaError,
    "hex string has length 3, want 40 for common.Address",
  );
  assertThrows(
    () => s.address().parse("ab".repeat(20)),
    SchemaError,
    "json: cannot unmarshal hex string without 0x prefix into Go value of type common.Address",
  );
  assertThrows(() => s.address().parse("0x" + "zz".repeat(20)), SchemaError, "invalid hex string");
  assertThrows(() => s.address().parse(12), SchemaError, "non-string into Go value of type common.Address");
});

Deno.test("s.hash parses 32 bytes", () => {
  assertEquals(s.hash().parse(HASH).length, 32);
  assertThrows(() => s.hash().parse(ADDR), SchemaError, "hex string has length 40, want 64 for common.Hash");
});

Deno.test("s.hex parses even-length data, empty allowed", () => {
  assertEquals(s.hex().parse("0x"), new Uint8Array());
  assertEquals(s.hex().parse("0x0102ff"), new Uint8Array([1, 2, 255]));
  assertThrows(() => s.hex().parse("0x123"), SchemaError, "hex string of odd length");
  assertThrows(() => s.hex().parse("123"), SchemaError, "without 0x prefix");
});

Deno.test("s.quantity is strict hexutil.Big", () => {
  assertEquals(s.quantity().parse("0x0"), 0n);
  assertEquals(s.quantity().parse("0xff"), 255n);
  assertEquals(s.quantity().parse("0x" + "f".repeat(64)), 2n ** 256n - 1n);
  assertThrows(() => s.quantity().parse("0x"), SchemaError, `hex string "0x"`);
  assertThrows(() => s.quantity().parse("0x01"), SchemaError, "leading zero digits");
  assertThrows(() => s.quantity().parse("12"), SchemaError, "without 0x prefix");
  assertThrows(() => s.quantity().parse("0x1" + "0".repeat(64)), SchemaError, "hex number > 256 bits");
  assertThrows(() => s.quantity().parse(12), SchemaError, "non-string");
  assertThrows(() => s.uint64().parse("0x1" + "0".repeat(16)), SchemaError, "hex number > 64 bits");
  assertEquals(s.uint64().parse("0x" + "f".repeat(16)), 2n ** 64n - 1n);
});

Deno.test("s.hexOrDecimal takes numbers, decimal and hex strings", () => {
  assertEquals(s.hexOrDecimal().parse(5), 5n);
  assertEquals(s.hexOrDecimal().parse("10"), 10n);
  assertEquals(s.hexOrDecimal().parse("0x10"), 16n);
  assertThrows(() => s.hexOrDecimal().parse(-1), SchemaError, "invalid number");
  assertThrows(() => s.hexOrDecimal().parse("1e3"), SchemaError, "invalid hex or decimal");
});

Deno.test("s.blockTag: tags, numbers and EIP-1898 objects", () => {
  const t = s.blockTag();
  for (const tag of ["latest", "pending", "safe", "finalized", "earliest"]) {
    assertEquals(t.parse(tag), { kind: "tag", tag });
  }
  assertEquals(t.parse("0x10"), { kind: "number", number: 16n });
  assertEquals(t.parse({ blockNumber: "0x2" }), { kind: "number", number: 2n });
  assertEquals(t.parse({ blockNumber: "safe" }), { kind: "tag", tag: "safe" });
  const h = t.parse({ blockHash: HASH, requireCanonical: true });
  assert(h.kind === "hash");
  assertEquals(h.requireCanonical, true);
  assertEquals(h.hash.length, 32);
  const h2 = t.parse({ blockHash: HASH });
  assert(h2.kind === "hash" && h2.requireCanonical === false);
  // geth rpc.BlockNumberOrHash: a bare 32-byte hash string is a hash (eth_getBlockReceipts(hash)).
  const h3 = t.parse(HASH);
  assert(h3.kind === "hash" && h3.requireCanonical === false && h3.hash.length === 32);
  assertThrows(() => t.parse(`0x${"zz".repeat(32)}`), SchemaError);
  assertThrows(() => t.parse("newest"), SchemaError, "without 0x prefix");
  assertThrows(() => t.parse({ blockHash: HASH, blockNumber: "0x1" }), SchemaError, "cannot specify both");
  assertThrows(() => t.parse({}), SchemaError, "neither blockNumber nor blockHash");
  assertThrows(() => t.parse({ blockHash: "0x12" }), SchemaError, "want 64 for common.Hash");
  assertThrows(() => t.parse(7), SchemaError, "number into Go value of type rpc.BlockNumberOrHash");
});

Deno.test("s.blockNumber: tags and numbers only, at most int64", () => {
  assertEquals(s.blockNumber().parse("pending"), { kind: "tag", tag: "pending" });
  assertEquals(s.blockNumber().parse("0x7fffffffffffffff"), { kind: "number", number: 2n ** 63n - 1n });
  assertThrows(
    () => s.blockNumber().parse("0x8000000000000000"),
    SchemaError,
    "block number larger than int64",
  );
  assertThrows(() => s.blockNumber().parse({ blockNumber: "0x1" }), SchemaError, "type rpc.BlockNumber");
  assertThrows(() => s.blockTag().parse("0x10000000000000000"), SchemaError, "hex number > 64 bits");
});

Deno.test("s.bool, s.string, s.enum, s.unknown", () => {
  assertEquals(s.bool().parse(true), true);
  assertThrows(
    () => s.bool().parse("true"),
    SchemaError,
    "cannot unmarshal string into Go value of type bool",
  );
  assertEquals(s.string().parse("x"), "x");
  assertThrows(() => s.string().parse(1), SchemaError, "number");
  const e = s.enum(["callTracer", "prestateTracer"]);
  assertEquals(e.parse("callTracer"), "callTracer");
  assertThrows(
    () => e.parse("other"),
    SchemaError,
    `invalid value "other", want one of callTracer, prestateTracer`,
  );
  assertEquals(s.unknown().parse({ a: 1 }), { a: 1 });
});

Deno.test("s.object: typed fields, optional fields, field named in errors, unknown fields ignored", () => {
  const call = s.object({ to: s.address(), value: s.optional(s.quantity()), data: s.optional(s.hex()) });
  const v = call.parse({ to: ADDR, value: "0x5", extra: 1 });
  assertEquals(v.value, 5n);
  assertEquals(v.data, undefined);
  assertEquals(v.to.length, 20);
  assert(!("extra" in v));
  assertThrows(() => call.parse({ value: "0x1" }), SchemaError, "missing required field 'to'");
  assertThrows(
    () => call.parse({ to: ADDR, value: "5" }),
    SchemaError,
    "field 'value': json: cannot unmarshal",
  );
  assertThrows(() => call.parse([]), SchemaError, "cannot unmarshal array");
});

Deno.test("s.array, s.nullable, s.optional, s.custom", () => {
  assertEquals(s.array(s.quantity()).parse(["0x1", "0x2"]), [1n, 2n]);
  assertThrows(() => s.array(s.quantity()).parse(["0x1", "2"]), SchemaError, "item 1:");
  assertThrows(() => s.array(s.bool(), { max: 1 }).parse([true, false]), SchemaError, "too many items: 2");
  assertEquals(s.nullable(s.bool()).parse(null), null);
  assertEquals(s.optional(s.bool()).parse(null), undefined);
  assertEquals(s.optional(s.bool()).optional, true);
  assertEquals(s.bool().optional, false);
  const even = s.custom("even", (v) => {
    if (typeof v !== "number" || v % 2) throw new SchemaError("want an even number");
    return v;
  });
  assertEquals(even.parse(4), 4);
  assertThrows(() => even.parse(3), SchemaError, "want an even number");
});
