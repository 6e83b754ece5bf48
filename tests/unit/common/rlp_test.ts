import { RLP } from "@ethereumjs/rlp";
import { encodeReceipt as vmEncodeReceipt } from "@ethereumjs/vm";
import { assert, assertEquals, assertThrows } from "../../assert.ts";
import {
  BaseError,
  bytesToHex,
  hexToBytes,
  isErrorCode,
  rlpDecode,
  rlpEncode,
  rlpEncodeTyped,
  type RlpInput,
  rlpListLength,
  rlpStringLength,
  type RlpValue,
  writeRlpListHeader,
  writeRlpString,
} from "../../../lib/common/mod.ts";
import { encodeReceipt, type Log, type Receipt } from "../../../lib/protocol/receipt.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);

/** Deterministic pseudo-random numbers (xorshift32). */
function rng(seed: number): (n: number) => number {
  let s = seed >>> 0 || 1;
  return (n: number) => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s % n;
  };
}

/** Runs `fn`; the error it throws, or undefined. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
    return undefined;
  } catch (e) {
    return e;
  }
}

// Examples from the yellow paper (appendix B) and ethereum/tests RLPTests/rlptest.json.
const LOREM = "Lorem ipsum dolor sit amet, consectetur adipisicing elit"; // 56 bytes
const VECTORS: [string, RlpInput, string][] = [
  ["dog", utf8("dog"), "0x83646f67"],
  ["[cat, dog]", [utf8("cat"), utf8("dog")], "0xc88363617483646f67"],
  ["empty string", new Uint8Array(), "0x80"],
  ["empty list", [], "0xc0"],
  ["byte 0x00", new Uint8Array([0]), "0x00"],
  ["byte 0x0f", new Uint8Array([0x0f]), "0x0f"],
  ["byte 0x7f", new Uint8Array([0x7f]), "0x7f"],
  ["byte 0x80", new Uint8Array([0x80]), "0x8180"],
  ["integer 1024", new Uint8Array([0x04, 0x00]), "0x820400"],
  ["set-theoretic three", [[], [[]], [[], [[]]]], "0xc7c0c1c0c3c0c1c0"],
  [
    "55-byte string",
    utf8(LOREM.slice(0, 55)),
    "0xb7" + bytesToHex(utf8(LOREM.slice(0, 55))).slice(2),
  ],
  ["56-byte string", utf8(LOREM), "0xb838" + bytesToHex(utf8(LOREM)).slice(2)],
  [
    "list of 55 payload bytes",
    [utf8(LOREM.slice(0, 54))],
    "0xf7b6" + bytesToHex(utf8(LOREM.slice(0, 54))).slice(2),
  ],
  [
    "list of 56 payload bytes",
    [utf8(LOREM.slice(0, 55))],
    "0xf838b7" + bytesToHex(utf8(LOREM.slice(0, 55))).slice(2),
  ],
  [
    "1024-byte string",
    new Uint8Array(1024).fill(0xaa),
    "0xb90400" + "aa".repeat(1024),
  ],
  [
    "list of lists",
    [[utf8("asdf"), utf8("qwer"), utf8("zxcv")], [utf8("asdf"), utf8("qwer"), utf8("zxcv")]],
    "0xe0cf84617364668471776572847a786376cf84617364668471776572847a786376",
  ],
];

Deno.test("rlpEncode: yellow paper and ethereum/tests examples, equal to @ethereumjs/rlp", () => {
  for (const [name, input, hex] of VECTORS) {
    assertEquals(bytesToHex(rlpEncode(input)), hex, name);
    assertEquals(bytesToHex(rlpEncode(input)), bytesToHex(RLP.encode(input as Uint8Array)), name);
  }
});

Deno.test("rlpDecode: examples round trip and equal @ethereumjs/rlp", () => {
  for (const [name, input, hex] of VECTORS) {
    const encoded = hexToBytes(hex);
    assertEquals(rlpDecode(encoded), input, name);
    assertEquals(rlpDecode(encoded), RLP.decode(encoded), name);
  }
});

Deno.test("rlpEncode: a single byte string is a fresh copy, lists are one buffer", () => {
  const b = new Uint8Array([5]);
  const enc = rlpEncode(b);
  enc[0] = 9;
  assertEquals(b[0], 5);
  const long = new Uint8Array(70000).fill(1);
  const nested = rlpEncode([long, [long, new Uint8Array([0x80])]]);
  assertEquals(bytesToHex(nested), bytesToHex(RLP.encode([long, [long, new Uint8Array([0x80])]])));
  // 3-byte lengths: 0xba 0x01 0x11 0x70 for 70000
  assertEquals(bytesToHex(rlpEncode(long).subarray(0, 4)), "0xba011170");
});

Deno.test("rlpEncode: bigints encode as their minimal big-endian bytes, as in @ethereumjs/rlp", () => {
  const values = [
    0n,
    1n,
    0x7fn,
    0x80n,
    0xffn,
    0x100n,
    1024n,
    2n ** 48n - 1n,
    2n ** 48n,
    2n ** 64n - 1n,
    2n ** 256n - 1n,
  ];
  for (let k = 0; k < 4000; k += 7) values.push(BigInt(k) ** 5n);
  for (const v of values) {
    assertEquals(bytesToHex(rlpEncode(v)), bytesToHex(RLP.encode(v)), `${v}`);
    assertEquals(bytesToHex(rlpEncode([v, [v]])), bytesToHex(RLP.encode([v, [v]])), `${v}`);
  }
  assertEquals(bytesToHex(rlpEncode(0n)), "0x80");
  assertEquals(bytesToHex(rlpEncode(1024n)), "0x820400");
  // a 56-byte integer takes the long form
  assertEquals(bytesToHex(rlpEncode(2n ** 448n - 1n)).slice(0, 6), "0xb838");
  assertThrows(() => rlpEncode([-1n]), BaseError, "Cannot encode RLP: negative integer -1");
});

Deno.test("rlpEncodeTyped: type || rlp(input) in one buffer", () => {
  const fields: RlpInput[] = [1n, new Uint8Array(256), [[utf8("cat"), [utf8("dog")], utf8("x")]]];
  const typed = rlpEncodeTyped(2, fields);
  assertEquals(typed[0], 2);
  assertEquals(bytesToHex(typed.subarray(1)), bytesToHex(RLP.encode(fields as Uint8Array[])));
  assertEquals(bytesToHex(rlpEncodeTyped(0x7e, [])), "0x7ec0");
  for (const bad of [0x80, -1, 1.5, 0xff]) {
    assertThrows(() => rlpEncodeTyped(bad, []), BaseError, "Cannot encode RLP: typed envelope type");
  }
});

Deno.test("rlpEncode rejects what is not bytes, a bigint or a list", () => {
  for (const bad of [1, "0x01", null, undefined, { length: 0 }]) {
    const err = assertThrows(() => rlpEncode([bad as unknown as Uint8Array]), BaseError, "Cannot encode RLP");
    assert(isErrorCode(err, "RLP_INVALID"));
  }
  const cyclic: RlpInput[] = [];
  cyclic.push(cyclic);
  assertThrows(() => rlpEncode(cyclic), BaseError, "Cannot encode RLP: nesting too deep");
});

Deno.test("rlpDecode: byte strings are views of the input", () => {
  const input = rlpEncode([utf8("cat"), [utf8("dog")]]);
  const out = rlpDecode(input) as RlpValue[];
  const cat = out[0] as Uint8Array;
  assert(cat.buffer === input.buffer);
  assertEquals(cat.byteOffset, input.byteOffset + 2);
  // a view into a larger buffer decodes the same
  const padded = new Uint8Array(input.length + 4);
  padded.set(input, 2);
  assertEquals(rlpDecode(padded.subarray(2, 2 + input.length)), out);
});

Deno.test("rlpDecode: an empty input is an empty byte string, as in @ethereumjs/rlp", () => {
  assertEquals(rlpDecode(new Uint8Array()), new Uint8Array());
  assertEquals(RLP.decode(new Uint8Array()), new Uint8Array());
});

const INVALID: [string, string, string][] = [
  ["prefixed single byte 0x00", "0x8100", "must not be prefixed"],
  ["prefixed single byte 0x7f", "0x817f", "must not be prefixed"],
  ["string length with leading zero", "0xb90038" + "00".repeat(56), "leading zeros"],
  ["list length with leading zero", "0xf90038" + "80".repeat(56), "leading zeros"],
  ["long form for a 55-byte string", "0xb837" + "00".repeat(55), "long form"],
  ["long form for a 1-byte string", "0xb80100", "long form"],
  ["long form for a short list", "0xf80180", "long form"],
  ["truncated string", "0x83646f", "runs past"],
  ["truncated long string", "0xb838" + "00".repeat(55), "runs past"],
  ["truncated length of length", "0xb9", "runs past"],
  ["truncated list length", "0xf9", "runs past"],
  ["truncated list", "0xc88363617483646f", "runs past"],
  ["item longer than its list", "0xc283646f67", "runs past"],
  ["trailing bytes", "0x83646f6700", "trailing bytes"],
  ["two items", "0xc0c0", "trailing bytes"],
  ["length beyond input", "0xbbffffffff00", "runs past"],
  ["8-byte length beyond input", "0xbfffffffffffffffff00", "runs past"],
  ["list length beyond input", "0xfbffffffff00", "runs past"],
];

Deno.test("rlpDecode rejects non-canonical and truncated input, as @ethereumjs/rlp does", () => {
  for (const [name, hex, reason] of INVALID) {
    const input = hexToBytes(hex);
    const err = assertThrows(() => rlpDecode(input), BaseError, "Cannot decode RLP: ");
    assert(isErrorCode(err, "RLP_INVALID"), name);
    assert(err.message.includes(reason), `${name}: ${err.message}`);
    assert(thrown(() => RLP.decode(input)) !== undefined, `@ethereumjs/rlp accepts ${name}`);
  }
});

/** [[[...[]...]]] nested `depth` times, built from the outside in. */
function deepList(depth: number): Uint8Array {
  const sizes = [1];
  const header = (len: number) => (len < 56 ? 1 : 1 + Math.ceil(Math.log2(len + 1) / 8));
  for (let i = 1; i < depth; i++) sizes.push(sizes[i - 1] + header(sizes[i - 1]));
  const out = new Uint8Array(sizes[depth - 1]);
  let pos = 0;
  for (let i = depth - 1; i >= 1; i--) {
    const len = sizes[i - 1];
    if (len < 56) out[pos++] = 0xc0 + len;
    else {
      const n = header(len) - 1;
      out[pos++] = 0xf7 + n;
      for (let k = n - 1; k >= 0; k--) out[pos++] = Math.floor(len / 256 ** k) % 256;
    }
  }
  out[pos] = 0xc0;
  return out;
}

Deno.test("rlpDecode: nesting deeper than the stack is a BaseError, not a crash", () => {
  const shallow = deepList(100);
  assertEquals(rlpDecode(shallow), RLP.decode(shallow));
  assertEquals(bytesToHex(rlpEncode(rlpDecode(shallow))), bytesToHex(shallow));
  const deep = deepList(200_000);
  assertThrows(() => rlpDecode(deep), BaseError, "Cannot decode RLP: nesting too deep");
});

/** A random nested value: strings around the 1-byte, 55/56 and 255/256 boundaries, lists up to depth 4. */
function randomValue(r: (n: number) => number, depth: number): RlpInput {
  if (depth < 4 && r(3) === 0) {
    const n = r(8);
    const list: RlpInput[] = [];
    for (let i = 0; i < n; i++) list.push(randomValue(r, depth + 1));
    return list;
  }
  if (r(12) === 0) {
    // an integer of 0..40 bytes
    let v = 0n;
    for (let i = r(41); i > 0; i--) v = (v << 8n) | BigInt(r(256));
    return v;
  }
  const pick = r(10);
  const len = pick < 3 ? r(2) : pick < 6 ? r(60) : pick < 8 ? 54 + r(4) : pick < 9 ? 250 + r(12) : r(1200);
  const bytes = new Uint8Array(len);
  for (let i = 0; i < len; i++) bytes[i] = r(256);
  // plenty of single bytes below 0x80, which encode as themselves
  if (len === 1 && r(2) === 0) bytes[0] &= 0x7f;
  return bytes;
}

/** A random edit: flip, set, truncate, extend, delete or insert a byte. */
function mutate(r: (n: number) => number, input: Uint8Array): Uint8Array {
  const out = Uint8Array.from(input);
  const at = r(Math.max(1, input.length));
  switch (r(6)) {
    case 0:
      out[at] ^= 1 << r(8);
      return out;
    case 1:
      out[at] = [0x00, 0x7f, 0x80, 0x81, 0xb7, 0xb8, 0xb9, 0xbf, 0xc0, 0xf7, 0xf8, 0xff][r(12)];
      return out;
    case 2:
      return out.subarray(0, at);
    case 3: {
      const longer = new Uint8Array(input.length + 1);
      longer.set(input);
      longer[input.length] = r(256);
      return longer;
    }
    case 4:
      return Uint8Array.from([...input.subarray(0, at), ...input.subarray(at + 1)]);
    default:
      return Uint8Array.from([...input.subarray(0, at), r(256), ...input.subarray(at)]);
  }
}

Deno.test("fuzz: encode and decode equal @ethereumjs/rlp; mutations throw iff it throws", () => {
  const r = rng(0x5eed);
  let accepted = 0;
  let rejected = 0;
  for (let i = 0; i < 3000; i++) {
    const value = randomValue(r, 0);
    const ours = rlpEncode(value);
    const theirs = RLP.encode(value as Uint8Array);
    assertEquals(bytesToHex(ours), bytesToHex(theirs));
    const decoded = rlpDecode(ours);
    assertEquals(decoded, RLP.decode(ours));
    assertEquals(bytesToHex(rlpEncode(decoded)), bytesToHex(ours));
    for (let m = 0; m < 4; m++) {
      const bad = mutate(r, ours);
      const e1 = thrown(() => rlpDecode(bad));
      const e2 = thrown(() => RLP.decode(bad));
      assertEquals(e1 === undefined, e2 === undefined, `mutation ${bytesToHex(bad).slice(0, 80)}`);
      if (e1 === undefined) {
        accepted++;
        assertEquals(rlpDecode(bad), RLP.decode(bad));
      } else {
        rejected++;
        assert(isErrorCode(e1, "RLP_INVALID"));
      }
    }
  }
  // both outcomes were exercised
  assert(accepted > 500 && rejected > 2000, `accepted ${accepted}, rejected ${rejected}`);
});

Deno.test("fuzz: short random byte strings decode iff @ethereumjs/rlp decodes them", () => {
  const r = rng(42);
  for (let i = 0; i < 20000; i++) {
    const bytes = new Uint8Array(1 + r(6));
    for (let k = 0; k < bytes.length; k++) bytes[k] = r(256);
    const e1 = thrown(() => rlpDecode(bytes));
    const e2 = thrown(() => RLP.decode(bytes));
    assertEquals(e1 === undefined, e2 === undefined, bytesToHex(bytes));
    if (e1 === undefined) assertEquals(rlpDecode(bytes), RLP.decode(bytes));
  }
});

Deno.test("callers: encodeReceipt on rlpEncode equals @ethereumjs/vm's encodeReceipt and the deposit layout", () => {
  const r = rng(0xec);
  const bytes = (n: number) => Uint8Array.from({ length: n }, () => r(256));
  for (let i = 0; i < 300; i++) {
    const logs: Log[] = [];
    for (let k = r(4); k > 0; k--) {
      logs.push({
        address: bytes(20),
        topics: Array.from({ length: r(5) }, () => bytes(32)),
        data: bytes(r(3) * 40),
      });
    }
    const receipt: Receipt = {
      type: [0, 1, 2, 3, 4, 0x7e][r(6)],
      status: r(2) as 0 | 1,
      cumulativeGasUsed: BigInt(r(2) === 0 ? r(200) : r(2 ** 30)) * BigInt(1 + r(1000)),
      logsBloom: bytes(256),
      logs,
    };
    const ours = encodeReceipt(receipt);
    if (receipt.type !== 0x7e) {
      const theirs = vmEncodeReceipt(
        {
          status: receipt.status,
          cumulativeBlockGasUsed: receipt.cumulativeGasUsed,
          bitvector: receipt.logsBloom,
          logs: logs.map((l) => [l.address, l.topics, l.data]),
        } as unknown as Parameters<typeof vmEncodeReceipt>[0],
        receipt.type as 0,
      );
      assertEquals(bytesToHex(ours), bytesToHex(theirs), `receipt ${i}`);
    } else {
      // specs/protocol/deposits.md "Deposit Receipt": depositNonce (Regolith), depositReceiptVersion (Canyon)
      receipt.depositNonce = BigInt(r(3) === 0 ? 0 : r(2 ** 31));
      receipt.depositReceiptVersion = r(2) === 0 ? undefined : 1n;
      const fields = [
        receipt.status === 1 ? new Uint8Array([1]) : new Uint8Array(),
        receipt.cumulativeGasUsed,
        receipt.logsBloom,
        logs.map((l) => [l.address, l.topics, l.data]),
        receipt.depositNonce,
        ...(receipt.depositReceiptVersion === undefined ? [] : [receipt.depositReceiptVersion]),
      ];
      const expected = "0x7e" + bytesToHex(RLP.encode(fields as Uint8Array[])).slice(2);
      assertEquals(bytesToHex(encodeReceipt(receipt)), expected, `deposit receipt ${i}`);
    }
  }
});

Deno.test("rlp pieces: strings and list headers written in place give rlpEncode's bytes", () => {
  for (const len of [0, 1, 2, 55, 56, 57, 255, 256, 70_000]) {
    for (const first of [0x00, 0x7f, 0x80, 0xff]) {
      const b = new Uint8Array(len).fill(7);
      if (len > 0) b[0] = first;
      const expected = rlpEncode(b);
      assertEquals(rlpStringLength(b), expected.length, `string of ${len}`);
      const out = new Uint8Array(expected.length + 2);
      assertEquals(writeRlpString(b, out, 1), expected.length + 1);
      assertEquals(out.subarray(1, expected.length + 1), expected);
    }
  }
  for (const payload of [0, 1, 55, 56, 300, 70_000]) {
    // A list of one string whose encoding takes exactly `payload` bytes (or none for 0).
    let m = payload;
    while (m > 0 && rlpStringLength(new Uint8Array(m).fill(9)) > payload) m--;
    const items = payload === 0 ? [] : [new Uint8Array(m).fill(9)];
    assertEquals(items.length === 0 ? 0 : rlpStringLength(items[0]), payload);
    const expected = rlpEncode(items);
    assertEquals(rlpListLength(payload), expected.length, `list of ${payload}`);
    const out = new Uint8Array(expected.length);
    const at = writeRlpListHeader(payload, out, 0);
    if (items.length > 0) writeRlpString(items[0], out, at);
    assertEquals(out, expected);
  }
});
