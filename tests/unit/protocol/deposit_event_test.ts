import { encodeAbiParameters, encodeEventTopics, encodePacked, parseAbiItem } from "viem";
import { bigIntToBytes, bytesToHex, concatBytes, hexToBytes } from "../../../lib/common/bytes.ts";
import { type BaseError, isErrorCode } from "../../../lib/common/errors.ts";
import {
  decodeDepositLog,
  DEPOSIT_EVENT_VERSION_0,
  type DepositEventFields,
  depositsFromReceipts,
  encodeDepositLog,
  type L1Log,
  type L1Receipt,
  TRANSACTION_DEPOSITED_TOPIC,
} from "../../../lib/protocol/deposit_event.ts";
import { userDepositSourceHash } from "../../../lib/protocol/deposit_tx.ts";
import { assert, assertEquals, assertThrows } from "../../assert.ts";

const PORTAL = hexToBytes("0xbEb5Fc579115071764c7423A4f12eDde41f106Ed");
const OTHER = hexToBytes("0x1111111111111111111111111111111111111111");
const BLOCK_HASH = hexToBytes("0x" + "ab".repeat(32));
const FROM = hexToBytes("0x00000000000000000000000000000000000000f1");
const TO = hexToBytes("0x00000000000000000000000000000000000000f2");

const CALL: DepositEventFields = {
  from: FROM,
  to: TO,
  mint: 10n ** 18n,
  value: 5n,
  gas: 100_000n,
  data: hexToBytes("0xdeadbeef"),
};
const CREATION: DepositEventFields = { ...CALL, to: null, mint: 0n, data: hexToBytes("0x6080604052") };

function expectInvalid(fn: () => unknown, fragment: string): BaseError {
  const err = assertThrows(fn);
  assert(isErrorCode(err, "INVALID_DEPOSIT_LOG"), String(err));
  assert(err.message.includes(fragment), err.message);
  return err;
}

/** A log with the given raw ABI data (header and body written by hand). */
function withData(data: Uint8Array): L1Log {
  return { ...encodeDepositLog(PORTAL, CALL), data };
}

function word(value: bigint): Uint8Array {
  return bigIntToBytes(value, 32);
}

Deno.test("deposit_event: topic 0 is keccak256 of the event signature", () => {
  assertEquals(
    bytesToHex(TRANSACTION_DEPOSITED_TOPIC),
    "0xb3813568d9991fc951961fcb4c784893574240a28925604d09fc577c55bb7c32",
  );
  assertEquals(DEPOSIT_EVENT_VERSION_0, new Uint8Array(32));
});

Deno.test("deposit_event: a call deposit round-trips with the user-deposit source hash", () => {
  const log = encodeDepositLog(PORTAL, CALL);
  const tx = decodeDepositLog(log, BLOCK_HASH, 7n);
  assertEquals(tx, {
    sourceHash: userDepositSourceHash(BLOCK_HASH, 7n),
    from: FROM,
    to: TO,
    mint: 10n ** 18n,
    value: 5n,
    gas: 100_000n,
    isSystemTx: false,
    data: hexToBytes("0xdeadbeef"),
  });
  assertEquals(log.address, PORTAL);
  // 32 offset + 32 length + 73 header + 4 data = 141, padded to 160
  assertEquals(log.data.length, 160);
  assertEquals(log.data.subarray(32, 64), word(77n));
});

Deno.test("deposit_event: a creation deposit has a zero `to` topic, isCreation 1 and decodes to null", () => {
  const log = encodeDepositLog(PORTAL, CREATION);
  assertEquals(log.topics[2], new Uint8Array(32));
  assertEquals(log.data[64 + 72], 1);
  const tx = decodeDepositLog(log, BLOCK_HASH, 0n);
  assertEquals(tx.to, null);
  assertEquals(tx.mint, 0n);
  assertEquals(tx.data, hexToBytes("0x6080604052"));
});

Deno.test("deposit_event: encoding equals viem's ABI encoding of the event", () => {
  const event = parseAbiItem(
    "event TransactionDeposited(address indexed from, address indexed to, uint256 indexed version, bytes opaqueData)",
  );
  for (
    const dep of [CALL, CREATION, { ...CALL, data: new Uint8Array(0) }, { ...CALL, data: new Uint8Array(55) }]
  ) {
    const log = encodeDepositLog(PORTAL, dep);
    const toAddr = bytesToHex(dep.to ?? new Uint8Array(20));
    const topics = encodeEventTopics({
      abi: [event],
      eventName: "TransactionDeposited",
      args: { from: bytesToHex(dep.from), to: toAddr, version: 0n },
    });
    assertEquals(log.topics.map(bytesToHex), topics);
    const opaque = encodePacked(
      ["uint256", "uint256", "uint64", "bool", "bytes"],
      [dep.mint, dep.value, dep.gas, dep.to === null, bytesToHex(dep.data)],
    );
    assertEquals(bytesToHex(log.data), encodeAbiParameters([{ type: "bytes" }], [opaque]));
  }
});

Deno.test("deposit_event: empty data and data ending on a word boundary round-trip", () => {
  for (const size of [0, 23, 55, 87, 200]) {
    const dep = { ...CALL, data: new Uint8Array(size).fill(7) };
    const log = encodeDepositLog(PORTAL, dep);
    assertEquals(log.data.length % 32, 0);
    assertEquals(decodeDepositLog(log, BLOCK_HASH, 1n).data, dep.data);
  }
});

Deno.test("deposit_event: op-node quirks: any non-zero isCreation byte creates; from/to are the low 20 topic bytes", () => {
  const log = encodeDepositLog(PORTAL, CALL);
  const data = log.data.slice();
  data[64 + 72] = 2;
  assertEquals(decodeDepositLog({ ...log, data }, BLOCK_HASH, 0n).to, null);
  const dirtyFrom = concatBytes(new Uint8Array(12).fill(0xff), FROM);
  const tx = decodeDepositLog(
    { ...log, topics: [log.topics[0], dirtyFrom, log.topics[2], log.topics[3]] },
    BLOCK_HASH,
    0n,
  );
  assertEquals(tx.from, FROM);
});

Deno.test("deposit_event: topic count, topic 0, topic size and version are checked", () => {
  const log = encodeDepositLog(PORTAL, CALL);
  expectInvalid(() => decodeDepositLog({ ...log, topics: log.topics.slice(0, 3) }, BLOCK_HASH, 0n), "got 3");
  expectInvalid(
    () => decodeDepositLog({ ...log, topics: [...log.topics, new Uint8Array(32)] }, BLOCK_HASH, 0n),
    "expected 4 event topics",
  );
  const wrongTopic = [new Uint8Array(32).fill(1), ...log.topics.slice(1)];
  expectInvalid(
    () => decodeDepositLog({ ...log, topics: wrongTopic }, BLOCK_HASH, 0n),
    "not the TransactionDeposited",
  );
  const shortTopic = [log.topics[0], FROM, log.topics[2], log.topics[3]];
  expectInvalid(
    () => decodeDepositLog({ ...log, topics: shortTopic }, BLOCK_HASH, 0n),
    "topic 1 is 20 bytes",
  );
  const v1 = [...log.topics.slice(0, 3), word(1n)];
  expectInvalid(
    () => decodeDepositLog({ ...log, topics: v1 }, BLOCK_HASH, 0n),
    "unsupported deposit version 0x00",
  );
});

Deno.test("deposit_event: the ABI offset and length of opaqueData are checked exactly", () => {
  const good = encodeDepositLog(PORTAL, CALL).data; // 160 bytes, length 77
  const body = good.subarray(64);
  expectInvalid(() => decodeDepositLog(withData(good.subarray(0, 32)), BLOCK_HASH, 0n), "(32 bytes)");
  expectInvalid(
    () => decodeDepositLog(withData(good.subarray(0, 150)), BLOCK_HASH, 0n),
    "not a multiple of 32",
  );
  expectInvalid(
    () => decodeDepositLog(withData(concatBytes(word(64n), word(77n), body)), BLOCK_HASH, 0n),
    "offset: 64",
  );
  expectInvalid(
    () => decodeDepositLog(withData(concatBytes(word(1n << 64n), word(77n), body)), BLOCK_HASH, 0n),
    "offset",
  );
  // longer than the data that follows
  expectInvalid(
    () => decodeDepositLog(withData(concatBytes(word(32n), word(97n), body)), BLOCK_HASH, 0n),
    "length: 97",
  );
  // a whole extra padding word: not minimal
  expectInvalid(
    () =>
      decodeDepositLog(withData(concatBytes(word(32n), word(77n), body, new Uint8Array(32))), BLOCK_HASH, 0n),
    "length: 77",
  );
  expectInvalid(
    () => decodeDepositLog(withData(concatBytes(word(32n), word(1n << 64n), body)), BLOCK_HASH, 0n),
    "length",
  );
  // the shortest valid length for 96 bytes of body is 65; 64 leaves a full padding word
  expectInvalid(
    () => decodeDepositLog(withData(concatBytes(word(32n), word(64n), body)), BLOCK_HASH, 0n),
    "length: 64",
  );
});

Deno.test("deposit_event: version-0 opaqueData shorter than 73 bytes is rejected", () => {
  const opaque = new Uint8Array(72);
  const data = concatBytes(word(32n), word(72n), opaque, new Uint8Array(24));
  expectInvalid(() => decodeDepositLog(withData(data), BLOCK_HASH, 0n), "72 bytes, at least 73");
  const opaque73 = new Uint8Array(73);
  const ok = decodeDepositLog(
    withData(concatBytes(word(32n), word(73n), opaque73, new Uint8Array(23))),
    BLOCK_HASH,
    0n,
  );
  assertEquals(ok.data, new Uint8Array(0));
  assertEquals(ok.gas, 0n);
});

Deno.test("deposit_event: encoding rejects out-of-range values and bad addresses", () => {
  const fail = (dep: DepositEventFields, fragment: string, contract = PORTAL) => {
    const err = assertThrows(() => encodeDepositLog(contract, dep));
    assert(isErrorCode(err, "INVALID_DEPOSIT_LOG"), String(err));
    assert(err.message.includes(fragment), err.message);
  };
  fail({ ...CALL, gas: 1n << 64n }, "gas");
  fail({ ...CALL, mint: 1n << 256n }, "mint");
  fail({ ...CALL, value: -1n }, "value");
  fail({ ...CALL, from: new Uint8Array(19) }, "from is 19 bytes");
  fail({ ...CALL, to: new Uint8Array(21) }, "to is 21 bytes");
  fail(CALL, "deposit contract is 32 bytes", new Uint8Array(32));
});

function otherLog(address: Uint8Array): L1Log {
  return { address, topics: [new Uint8Array(32).fill(9)], data: new Uint8Array(0) };
}

Deno.test("deposit_event: depositsFromReceipts keeps portal deposits of successful receipts, indexed over the block", () => {
  const dep = (i: number) => ({ ...CALL, value: BigInt(i) });
  const receipts: L1Receipt[] = [
    { status: 1, logs: [otherLog(OTHER), encodeDepositLog(PORTAL, dep(1))] }, // log 0, 1
    { status: 0, logs: [encodeDepositLog(PORTAL, dep(2))] }, // log 2: failed
    { status: 1, logs: [] },
    {
      status: 1,
      logs: [
        encodeDepositLog(OTHER, dep(3)), // log 3: same event, other contract
        otherLog(PORTAL), // log 4: portal, other event
        { address: PORTAL, topics: [], data: new Uint8Array(0) }, // log 5: anonymous
        encodeDepositLog(PORTAL, dep(4)), // log 6
        encodeDepositLog(PORTAL, { ...CREATION, value: 5n }), // log 7
      ],
    },
  ];
  const deposits = depositsFromReceipts(receipts, PORTAL, BLOCK_HASH);
  assertEquals(deposits.map((d) => d.value), [1n, 4n, 5n]);
  assertEquals(deposits.map((d) => bytesToHex(d.sourceHash)), [
    bytesToHex(userDepositSourceHash(BLOCK_HASH, 1n)),
    bytesToHex(userDepositSourceHash(BLOCK_HASH, 6n)),
    bytesToHex(userDepositSourceHash(BLOCK_HASH, 7n)),
  ]);
  assertEquals(deposits[2].to, null);
  assertEquals(depositsFromReceipts([], PORTAL, BLOCK_HASH), []);
});

Deno.test("deposit_event: a malformed portal deposit log is a critical error naming every bad log", () => {
  const good = encodeDepositLog(PORTAL, CALL);
  const badData = { ...good, data: good.data.subarray(0, 32) };
  const badVersion = { ...good, topics: [...good.topics.slice(0, 3), word(1n)] };
  const receipts: L1Receipt[] = [
    { status: 1, logs: [good, badData] },
    { status: 0, logs: [badData] }, // failed receipts are not read
    { status: 1, logs: [badVersion] },
  ];
  const err = assertThrows(() => depositsFromReceipts(receipts, PORTAL, BLOCK_HASH));
  assert(isErrorCode(err, "INVALID_DEPOSIT_LOG"), String(err));
  assertEquals(err.severity, "critical");
  assert(err.message.includes("2 malformed deposit log(s); receipt 0, log 1"), err.message);
  const errors = err.meta.errors as { receipt: number; log: number; error: BaseError }[];
  assertEquals(errors.map((e) => [e.receipt, e.log]), [[0, 1], [2, 0]]);
  assert(errors[1].error.message.includes("unsupported deposit version"), errors[1].error.message);
});
