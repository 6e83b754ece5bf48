import { RLP } from "@ethereumjs/rlp";
import { bytesToHex, concatBytes, hexToBytes } from "../../../lib/common/bytes.ts";
import { isErrorCode } from "../../../lib/common/errors.ts";
import { keccak256 } from "../../../lib/common/hash.ts";
import {
  decodeDepositTx,
  DEPOSIT_TX_TYPE,
  type DepositTx,
  depositTxHash,
  encodeDepositTx,
  l1InfoDepositSourceHash,
  userDepositSourceHash,
} from "../../../lib/protocol/deposit_tx.ts";
import { assert, assertEquals, assertThrows } from "../../assert.ts";

const creation: DepositTx = {
  sourceHash: new Uint8Array(32).fill(0xab),
  from: hexToBytes("0x1111000000000000000000000000000000001111"),
  to: null,
  mint: 10n ** 18n,
  value: 5n,
  gas: 21_000n,
  isSystemTx: true,
  data: hexToBytes("0x6080"),
};

function expectInvalid(bytes: Uint8Array, fragment: string) {
  const err = assertThrows(() => decodeDepositTx(bytes));
  assert(isErrorCode(err, "INVALID_DEPOSIT_TX"), String(err));
  assert((err as Error).message.includes(fragment), (err as Error).message);
}

Deno.test("deposit tx: contract creation with mint and isSystemTx round-trips", () => {
  const enc = encodeDepositTx(creation);
  assertEquals(enc[0], DEPOSIT_TX_TYPE);
  // to = null encodes as the empty string, isSystemTx = true as 0x01.
  const fields = RLP.decode(enc.subarray(1)) as Uint8Array[];
  assertEquals(fields[2], new Uint8Array());
  assertEquals(fields[6], new Uint8Array([1]));
  assertEquals(fields[3], hexToBytes("0x0de0b6b3a7640000"));
  const back = decodeDepositTx(enc);
  assertEquals(back, creation);
  assertEquals(bytesToHex(depositTxHash(creation)), bytesToHex(keccak256(enc)));
});

Deno.test("deposit tx: zero mint, value and false flag encode as empty strings", () => {
  const tx = { ...creation, mint: 0n, value: 0n, isSystemTx: false, to: new Uint8Array(20) };
  const fields = RLP.decode(encodeDepositTx(tx).subarray(1)) as Uint8Array[];
  assertEquals(fields[3].length, 0);
  assertEquals(fields[4].length, 0);
  assertEquals(fields[6].length, 0);
  assertEquals(decodeDepositTx(encodeDepositTx(tx)).to, new Uint8Array(20));
});

Deno.test("deposit tx: decode rejects a wrong type byte, empty input and trailing bytes", () => {
  const enc = encodeDepositTx(creation);
  expectInvalid(concatBytes(new Uint8Array([0x02]), enc.subarray(1)), "type byte is 0x02");
  expectInvalid(new Uint8Array(), "input is empty");
  expectInvalid(concatBytes(enc, new Uint8Array([0])), "invalid RLP");
});

Deno.test("deposit tx: decode rejects a wrong field count and nested lists", () => {
  const fields = RLP.decode(encodeDepositTx(creation).subarray(1)) as Uint8Array[];
  const wrap = (items: unknown[]) =>
    concatBytes(new Uint8Array([DEPOSIT_TX_TYPE]), RLP.encode(items as Uint8Array[]));
  expectInvalid(wrap(fields.slice(0, 7)), "7 fields, expected 8");
  expectInvalid(wrap([...fields, new Uint8Array()]), "9 fields, expected 8");
  expectInvalid(wrap([fields[0], fields[1], [], ...fields.slice(3)]), "to is a list");
  expectInvalid(
    concatBytes(new Uint8Array([DEPOSIT_TX_TYPE]), RLP.encode(new Uint8Array(3))),
    "not an RLP list",
  );
});

Deno.test("deposit tx: decode rejects non-canonical integers, booleans and bad lengths", () => {
  const fields = RLP.decode(encodeDepositTx(creation).subarray(1)) as Uint8Array[];
  const withField = (i: number, v: Uint8Array) => {
    const copy = fields.slice();
    copy[i] = v;
    return concatBytes(new Uint8Array([DEPOSIT_TX_TYPE]), RLP.encode(copy));
  };
  expectInvalid(withField(5, new Uint8Array([0, 1])), "gas has leading zero bytes");
  expectInvalid(withField(5, new Uint8Array(9).fill(1)), "gas is 9 bytes");
  expectInvalid(withField(3, new Uint8Array(33).fill(1)), "mint is 33 bytes");
  expectInvalid(withField(6, new Uint8Array([0])), "isSystemTx is not a canonical boolean");
  expectInvalid(withField(6, new Uint8Array([2])), "isSystemTx is not a canonical boolean");
  expectInvalid(withField(0, new Uint8Array(31)), "sourceHash length is 31");
  expectInvalid(withField(1, new Uint8Array(19)), "from length is 19");
  expectInvalid(withField(2, new Uint8Array(21)), "to length is 21");
});

Deno.test("deposit tx: encode rejects out-of-range values", () => {
  assertThrows(() => encodeDepositTx({ ...creation, gas: 1n << 64n }), Error, "gas");
  assertThrows(() => encodeDepositTx({ ...creation, value: -1n }), Error, "value");
  assertThrows(() => encodeDepositTx({ ...creation, from: new Uint8Array(21) }), Error, "from length is 21");
});

Deno.test("deposit tx: user and L1-info source hashes use distinct domains", () => {
  const l1Hash = new Uint8Array(32).fill(7);
  const user = userDepositSourceHash(l1Hash, 3n);
  const info = l1InfoDepositSourceHash(l1Hash, 3n);
  assert(bytesToHex(user) !== bytesToHex(info));
  // deposits.md: keccak256(bytes32(0) ++ keccak256(l1BlockHash ++ bytes32(logIndex)))
  const inner = keccak256(concatBytes(l1Hash, new Uint8Array(31), new Uint8Array([3])));
  assertEquals(bytesToHex(user), bytesToHex(keccak256(concatBytes(new Uint8Array(32), inner))));
  assertThrows(() => userDepositSourceHash(new Uint8Array(31), 0n), Error, "L1 block hash length is 31");
});
