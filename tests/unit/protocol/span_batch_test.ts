import { Common, createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { RLP } from "@ethereumjs/rlp";
import {
  createAccessList2930Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
} from "@ethereumjs/tx";
import { eoaCode7702SignAuthorization } from "@ethereumjs/util";
import { assert, assertEquals, assertThrows } from "../../assert.ts";
import { bytesToHex, concatBytes, hexToBytes } from "../../../lib/common/bytes.ts";
import { BaseError, isErrorCode } from "../../../lib/common/errors.ts";
import type { SingularBatch } from "../../../lib/protocol/batch.ts";
import {
  decodeSpanBatch,
  deriveSpanBatchElements,
  encodeSpanBatch,
  MAX_SPAN_BATCH_ELEMENT_COUNT,
  type SpanBatch,
  spanBatchFromSingular,
  spanBatchToSingular,
  spanBatchTxFromSigned,
  spanBatchTxToSigned,
} from "../../../lib/protocol/mod.ts";

type Hex = `0x${string}`;
const CHAIN_ID = 901n;
const GENESIS = 1_700_000_000n;
const BLOCK_TIME = 2n;
const KEY = hexToBytes("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const RECIPIENT: Hex = `0x${"5a".repeat(20)}`;
const ACCESS_LIST = [
  {
    address: `0x${"cc".repeat(20)}` as Hex,
    storageKeys: [`0x${"01".repeat(32)}` as Hex, `0x${"02".repeat(32)}` as Hex],
  },
];
const common = createCustomCommon({ chainId: Number(CHAIN_ID) }, Mainnet, { hardfork: Hardfork.Prague });
const preEip155 = new Common({ chain: Mainnet, hardfork: Hardfork.TangerineWhistle });
const fees = { maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n };

/** Real signed transactions of every kind a span batch carries, by name. */
function signedTxs(nonce = 0n): Record<string, Uint8Array> {
  const base = { nonce, gasLimit: 60_000n, to: RECIPIENT, value: 1234n, data: hexToBytes("0xc0ffee") };
  const authorization = eoaCode7702SignAuthorization(
    { chainId: "0x385", address: `0x${"dd".repeat(20)}`, nonce: "0x9" },
    KEY,
  );
  return {
    "legacy EIP-155": createLegacyTx({ ...base, gasPrice: 7n }, { common }).sign(KEY).serialize(),
    "legacy unprotected": createLegacyTx({ ...base, gasPrice: 7n }, { common: preEip155 }).sign(KEY)
      .serialize(),
    "legacy contract creation": createLegacyTx({ ...base, to: undefined, gasPrice: 7n }, { common }).sign(KEY)
      .serialize(),
    "EIP-2930": createAccessList2930Tx(
      { ...base, chainId: CHAIN_ID, gasPrice: 9n, accessList: ACCESS_LIST },
      {
        common,
      },
    ).sign(KEY).serialize(),
    "EIP-1559": createFeeMarket1559Tx({ ...base, ...fees, chainId: CHAIN_ID, accessList: ACCESS_LIST }, {
      common,
    })
      .sign(KEY).serialize(),
    "EIP-1559 contract creation, zero value": createFeeMarket1559Tx(
      { ...base, ...fees, to: undefined, value: 0n, data: new Uint8Array(300).fill(7) },
      { common },
    ).sign(KEY).serialize(),
    "EIP-7702": createEOACode7702Tx(
      { ...base, ...fees, chainId: CHAIN_ID, accessList: ACCESS_LIST, authorizationList: [authorization] },
      { common },
    ).sign(KEY).serialize(),
  };
}

function hash(byte: number): Uint8Array {
  return new Uint8Array(32).fill(byte);
}

/** Five consecutive blocks over three L1 origins, one of them without transactions. */
function singularBatches(): SingularBatch[] {
  const txs = Object.values(signedTxs());
  const more = Object.values(signedTxs(1n));
  const epochs = [100n, 100n, 101n, 101n, 102n];
  const blockTxs = [[txs[0], txs[1]], [], [txs[2], txs[3], txs[4]], [txs[5]], [txs[6], more[0], more[3]]];
  return epochs.map((epochNumber, i) => ({
    parentHash: hash(0x10 + i),
    epochNumber,
    epochHash: hash(Number(epochNumber)),
    timestamp: GENESIS + 40n + BLOCK_TIME * BigInt(i),
    transactions: blockTxs[i],
  }));
}

const L1_ORIGINS = [99n, 100n, 101n, 102n, 103n].map((number) => ({ number, hash: hash(Number(number)) }));

function assertCode(fn: () => unknown, code: string, message?: string): void {
  const err = assertThrows(fn, BaseError, message);
  assert(isErrorCode(err, code), `expected ${code}, got ${(err as BaseError).code}: ${err.message}`);
}

// ---------------------------------------------------------------------------------------------
// The wire layout, assembled by hand from span-batches.md "Span batch format"

const word = (n: number) => `${"00".repeat(31)}${n.toString(16).padStart(2, "0")}`;
const rlpHex = (v: Parameters<typeof RLP.encode>[0]) => bytesToHex(RLP.encode(v)).slice(2);

/** [section, hex] in wire order: two blocks, a protected legacy tx and an EIP-1559 contract creation. */
const LAYOUT: [string, string][] = [
  ["rel_timestamp", "ac02"], // 300
  ["l1_origin_num", "07"],
  ["parent_check", "11".repeat(20)],
  ["l1_origin_check", "22".repeat(20)],
  ["block_count", "02"],
  ["origin_bits", "02"], // block 1 changed origin: bit 1
  ["block_tx_counts[0]", "00"],
  ["block_tx_counts[1]", "02"],
  ["contract_creation_bits", "02"], // tx 1
  ["y_parity_bits", "01"], // tx 0
  ["tx_sigs", word(1) + word(2) + word(3) + word(4)],
  ["tx_tos", "33".repeat(20)],
  ["tx_datas[0]", rlpHex([1000, 7, hexToBytes("0xab")])],
  ["tx_datas[1]", "02" + rlpHex([0, 1, 2, new Uint8Array(), []])],
  ["tx_nonces[0]", "05"],
  ["tx_nonces[1]", "ac02"], // 300
  ["tx_gases[0]", "88a401"], // 21000
  ["tx_gases[1]", "a08d06"], // 100000
  ["protected_bits", "01"],
];
const LAYOUT_HEX = LAYOUT.map(([, h]) => h).join("");

const LAYOUT_BATCH: SpanBatch = {
  relTimestamp: 300n,
  l1OriginNum: 7n,
  parentCheck: new Uint8Array(20).fill(0x11),
  l1OriginCheck: new Uint8Array(20).fill(0x22),
  blockCount: 2,
  originBits: [false, true],
  blockTxCounts: [0, 2],
  txs: [
    {
      type: 0,
      protected: true,
      to: new Uint8Array(20).fill(0x33),
      nonce: 5n,
      gas: 21000n,
      gasPrice: 7n,
      value: 1000n,
      data: hexToBytes("0xab"),
      yParity: 1,
      r: 1n,
      s: 2n,
    },
    {
      type: 2,
      to: null,
      nonce: 300n,
      gas: 100000n,
      maxPriorityFeePerGas: 1n,
      maxFeePerGas: 2n,
      value: 0n,
      data: new Uint8Array(),
      accessList: [],
      yParity: 0,
      r: 3n,
      s: 4n,
    },
  ],
};

Deno.test("span batch: encoding follows the spec layout byte for byte", () => {
  assertEquals(bytesToHex(encodeSpanBatch(LAYOUT_BATCH)), `0x${LAYOUT_HEX}`);
  assertEquals(decodeSpanBatch(hexToBytes(`0x${LAYOUT_HEX}`)), LAYOUT_BATCH);
});

Deno.test("span batch: truncation anywhere is rejected, naming the section that ran short", () => {
  const full = hexToBytes(`0x${LAYOUT_HEX}`);
  for (let len = 0; len < full.length; len++) {
    assertCode(() => decodeSpanBatch(full.subarray(0, len)), "SPAN_BATCH_INVALID");
  }
  let offset = 0;
  for (const [section, hex] of LAYOUT) {
    // cut where the section starts: it is missing entirely
    assertThrows(() => decodeSpanBatch(full.subarray(0, offset)), BaseError, section);
    offset += hex.length / 2;
  }
  assertEquals(offset, full.length);
});

Deno.test("span batch: bytes after the last column are ignored, as op-node ignores them", () => {
  const withTail = hexToBytes(`0x${LAYOUT_HEX}deadbeef`);
  assertEquals(decodeSpanBatch(withTail), LAYOUT_BATCH);
});

// ---------------------------------------------------------------------------------------------
// Round trips with real signed transactions

for (const [name, raw] of Object.entries(signedTxs())) {
  Deno.test(`span batch: ${name} survives signed -> span -> bytes -> span -> signed`, () => {
    const batch = spanBatchFromSingular(
      [{
        parentHash: hash(1),
        epochNumber: 5n,
        epochHash: hash(2),
        timestamp: GENESIS + 10n,
        transactions: [raw],
      }],
      GENESIS,
      CHAIN_ID,
    );
    const encoded = encodeSpanBatch(batch);
    const decoded = decodeSpanBatch(encoded);
    assertEquals(decoded, batch);
    assertEquals(bytesToHex(encodeSpanBatch(decoded)), bytesToHex(encoded));
    assertEquals(bytesToHex(spanBatchTxToSigned(decoded.txs[0], CHAIN_ID)), bytesToHex(raw));
  });
}

Deno.test("span batch: the span form of each transaction kind", () => {
  const txs = signedTxs();
  const legacy = spanBatchTxFromSigned(txs["legacy EIP-155"], CHAIN_ID);
  assert(legacy.type === 0 && legacy.protected, "EIP-155 legacy is protected");
  assertEquals(bytesToHex(legacy.to!), RECIPIENT);
  assertEquals([legacy.nonce, legacy.gas, legacy.value, legacy.gasPrice], [0n, 60_000n, 1234n, 7n]);
  const unprotected = spanBatchTxFromSigned(txs["legacy unprotected"], CHAIN_ID);
  assert(unprotected.type === 0 && !unprotected.protected, "pre-EIP-155 legacy is unprotected");
  // v = 27 + y_parity: the last RLP items of the signed tx are v, r, s
  const v = (RLP.decode(txs["legacy unprotected"]) as Uint8Array[])[6];
  assertEquals(unprotected.yParity, v[0] - 27);
  assertEquals(spanBatchTxFromSigned(txs["legacy contract creation"], CHAIN_ID).to, null);
  const al = spanBatchTxFromSigned(txs["EIP-2930"], CHAIN_ID);
  assert(al.type === 1, "type 1");
  assertEquals(al.accessList.map((t) => t.storageKeys.length), [2]);
  const dyn = spanBatchTxFromSigned(txs["EIP-1559"], CHAIN_ID);
  assert(dyn.type === 2 && dyn.maxFeePerGas === fees.maxFeePerGas, "type 2 with its fee cap");
  const setCode = spanBatchTxFromSigned(txs["EIP-7702"], CHAIN_ID);
  assert(setCode.type === 4, "type 4");
  assertEquals(setCode.authorizationList.map((a) => [a.chainId, a.nonce]), [[0x385n, 9n]]);
});

Deno.test("span batch: singular -> span -> bytes -> span -> singular gives the input back", () => {
  const input = singularBatches();
  const span = spanBatchFromSingular(input, GENESIS, CHAIN_ID, true);
  assertEquals(span.relTimestamp, 40n);
  assertEquals(span.l1OriginNum, 102n);
  assertEquals(span.parentCheck, hash(0x10).slice(0, 20));
  assertEquals(span.l1OriginCheck, hash(102).slice(0, 20));
  assertEquals(span.originBits, [true, false, true, false, true]);
  assertEquals(span.blockTxCounts, [2, 0, 3, 1, 3]);
  const decoded = decodeSpanBatch(encodeSpanBatch(span));
  assertEquals(decoded, span);
  const output = spanBatchToSingular(decoded, GENESIS, BLOCK_TIME, CHAIN_ID, L1_ORIGINS);
  // Only the first block's parent is in the span (20 bytes of it): the batch queue sets parents.
  assertEquals(output, input.map((b) => ({ ...b, parentHash: new Uint8Array(32) })));
});

Deno.test("span batch: origin bit 0 is encoded but not used to derive L1 origins", () => {
  const input = singularBatches();
  const withBit = spanBatchFromSingular(input, GENESIS, CHAIN_ID, true);
  const withoutBit = spanBatchFromSingular(input, GENESIS, CHAIN_ID);
  assertEquals(withoutBit.originBits[0], false);
  assert(
    bytesToHex(encodeSpanBatch(withBit)) !== bytesToHex(encodeSpanBatch(withoutBit)),
    "bit 0 is in the bytes",
  );
  const epochs = (b: SpanBatch) =>
    deriveSpanBatchElements(b, GENESIS, BLOCK_TIME, CHAIN_ID).map((e) => e.epochNumber);
  assertEquals(epochs(withBit), [100n, 100n, 101n, 101n, 102n]);
  assertEquals(epochs(withoutBit), [100n, 100n, 101n, 101n, 102n]);
});

Deno.test("span batch: derived blocks are block time apart from genesis + rel_timestamp", () => {
  const elements = deriveSpanBatchElements(LAYOUT_BATCH, 1000n, 12n, CHAIN_ID);
  assertEquals(elements.map((e) => [e.timestamp, e.epochNumber, e.transactions.length]), [
    [1300n, 6n, 0],
    [1312n, 7n, 2],
  ]);
  // the protected legacy tx gets v = 2 * chainId + 35 + y_parity
  const fields = RLP.decode(elements[1].transactions[0]) as Uint8Array[];
  assertEquals(bytesToHex(fields[6]), `0x${(2n * CHAIN_ID + 36n).toString(16).padStart(4, "0")}`);
});

Deno.test("span batch: singular batches after the safe head only, each with its L1 origin", () => {
  const span = spanBatchFromSingular(singularBatches(), GENESIS, CHAIN_ID);
  const out = spanBatchToSingular(span, GENESIS, BLOCK_TIME, CHAIN_ID, L1_ORIGINS, GENESIS + 42n);
  assertEquals(out.map((b) => [b.timestamp, b.epochNumber]), [
    [GENESIS + 44n, 101n],
    [GENESIS + 46n, 101n],
    [GENESIS + 48n, 102n],
  ]);
  assertCode(
    () =>
      spanBatchToSingular(span, GENESIS, BLOCK_TIME, CHAIN_ID, L1_ORIGINS.filter((o) => o.number !== 101n)),
    "SPAN_BATCH_L1_ORIGIN_MISSING",
    "epoch 101",
  );
});

Deno.test("span batch: origin bits counting back below L1 block 0 are rejected", () => {
  // bit 0 does not count: blocks at origins 0 and 1 are fine with both bits set
  const fromZero = { ...LAYOUT_BATCH, l1OriginNum: 1n, originBits: [true, true] };
  assertEquals(deriveSpanBatchElements(fromZero, 0n, 2n, CHAIN_ID).map((e) => e.epochNumber), [0n, 1n]);
  const batch = { ...LAYOUT_BATCH, l1OriginNum: 0n };
  assertCode(
    () => deriveSpanBatchElements(batch, 0n, 2n, CHAIN_ID),
    "SPAN_BATCH_INVALID",
    "below L1 block 0",
  );
});

// ---------------------------------------------------------------------------------------------
// Rejections

const PREFIX_HEX = "00" + "05" + "11".repeat(20) + "22".repeat(20);
const decodeHex = (hex: string) => decodeSpanBatch(hexToBytes(`0x${hex}`));

Deno.test("span batch: block_count 0 is rejected", () => {
  assertCode(() => decodeHex(PREFIX_HEX + "00"), "SPAN_BATCH_INVALID", "block_count is 0");
});

Deno.test("span batch: counts above MAX_SPAN_BATCH_ELEMENT_COUNT are rejected before allocating", () => {
  assertEquals(MAX_SPAN_BATCH_ELEMENT_COUNT, 10_000_000);
  const uvarint = (n: number) => {
    const out: number[] = [];
    while (n >= 0x80) {
      out.push((n % 0x80) | 0x80);
      n = Math.floor(n / 0x80);
    }
    out.push(n);
    return out.map((b) => b.toString(16).padStart(2, "0")).join("");
  };
  // 10,000,001 blocks in a 47-byte input
  assertCode(() => decodeHex(PREFIX_HEX + uvarint(10_000_001)), "SPAN_BATCH_TOO_BIG", "block_count 10000001");
  // exactly the limit passes the count check and fails on the missing origin bits
  assertCode(() => decodeHex(PREFIX_HEX + uvarint(10_000_000)), "SPAN_BATCH_INVALID", "origin_bits");
  // one block with 10,000,001 transactions
  assertCode(
    () => decodeHex(PREFIX_HEX + "01" + "00" + uvarint(10_000_001)),
    "SPAN_BATCH_TOO_BIG",
    "block_tx_counts[0]",
  );
  // two blocks whose counts are each allowed but add up past the limit
  assertCode(
    () => decodeHex(PREFIX_HEX + "02" + "00" + uvarint(5_000_000) + uvarint(5_000_001)),
    "SPAN_BATCH_TOO_BIG",
    "10000001 transactions",
  );
});

Deno.test("span batch: a transaction's RLP data above the limit is rejected from its header", () => {
  // one block, one tx: bits, signature, recipient, then a list header claiming 10,000,001 bytes
  const head = PREFIX_HEX + "01" + "00" + "01" + "00" + "00" + "00".repeat(64) + "33".repeat(20);
  assertCode(() => decodeHex(head + "fa989681"), "SPAN_BATCH_TOO_BIG", "tx_datas[0]");
  assertCode(() => decodeHex(head + "b8" + "ff"), "SPAN_BATCH_INVALID", "must be an RLP list");
  assertCode(() => decodeHex(head + "f800"), "SPAN_BATCH_INVALID", "leading zeros");
  assertCode(() => decodeHex(head + "f801c0"), "SPAN_BATCH_INVALID", "long form");
});

Deno.test("span batch: bitlists must have exactly their length, with zero padding bits", () => {
  // 3 blocks: origin_bits is 1 byte whose top 5 bits must be zero
  const blocks = PREFIX_HEX + "03";
  assertCode(
    () => decodeHex(blocks + "08" + "000000"),
    "SPAN_BATCH_INVALID",
    "origin_bits has bits set beyond",
  );
  // 0x07 is fine: it decodes to three set bits (and the empty blocks complete the batch)
  assertEquals(decodeHex(blocks + "07" + "000000").originBits, [true, true, true]);
  // 9 blocks take 2 bytes of origin bits; bit 9 of the 16 is padding
  assertCode(
    () => decodeHex(PREFIX_HEX + "09" + "0200" + "00".repeat(9)),
    "SPAN_BATCH_INVALID",
    "origin_bits has bits set beyond",
  );
  assertEquals(decodeHex(PREFIX_HEX + "09" + "0100" + "00".repeat(9)).originBits[8], true);
  // protected_bits: the layout has one legacy tx, so only bit 0 may be set
  const badProtected = LAYOUT_HEX.slice(0, -2) + "03";
  assertCode(() => decodeHex(badProtected), "SPAN_BATCH_INVALID", "protected_bits has bits set beyond");
  // y_parity_bits: two txs
  const parity = LAYOUT.map(([s, h]) => (s === "y_parity_bits" ? "04" : h)).join("");
  assertCode(() => decodeHex(parity), "SPAN_BATCH_INVALID", "y_parity_bits has bits set beyond");
});

Deno.test("span batch: uvarints follow Go's binary.ReadUvarint", () => {
  const rest = "11".repeat(20) + "22".repeat(20) + "01" + "00" + "00";
  // the largest uint64: nine 0xff bytes and 0x01
  assertEquals(decodeHex("00" + "ff".repeat(9) + "01" + rest).l1OriginNum, (1n << 64n) - 1n);
  // a tenth byte above 1 overflows; so does an eleventh byte
  assertCode(() => decodeHex("00" + "ff".repeat(9) + "02" + rest), "SPAN_BATCH_INVALID", "overflows 64 bits");
  assertCode(
    () => decodeHex("00" + "ff".repeat(10) + "00" + rest),
    "SPAN_BATCH_INVALID",
    "overflows 64 bits",
  );
  // non-minimal forms are accepted (Go is lenient) and re-encode minimally
  const lenient = decodeHex("8000" + "8500" + rest);
  assertEquals([lenient.relTimestamp, lenient.l1OriginNum], [0n, 5n]);
  assertEquals(bytesToHex(encodeSpanBatch(lenient)), `0x0005${rest}`);
});

Deno.test("span batch: unsupported transaction types in tx_datas are rejected", () => {
  const head = PREFIX_HEX + "01" + "00" + "01" + "00" + "00" + "00".repeat(64) + "33".repeat(20);
  const tail = "05" + "05";
  for (const type of ["00", "03", "05", "7e"]) {
    assertCode(() => decodeHex(head + type + "c0" + tail), "SPAN_BATCH_INVALID", "unsupported type");
  }
});

Deno.test("span batch: tx_datas fields are checked as go-ethereum decodes them", () => {
  const head = PREFIX_HEX + "01" + "00" + "01" + "00" + "00" + "00".repeat(64) + "33".repeat(20);
  const tail = "05" + "05" + "00";
  const legacy = (fields: Parameters<typeof RLP.encode>[0]) => head + rlpHex(fields) + tail;
  assertEquals(decodeHex(legacy([1, 2, new Uint8Array([9])])).txs[0].type, 0);
  assertCode(() => decodeHex(legacy([1, 2])), "SPAN_BATCH_INVALID", "must have 3 elements");
  assertCode(() => decodeHex(legacy([hexToBytes("0x0001"), 2, "0x"])), "SPAN_BATCH_INVALID", "leading zero");
  assertCode(
    () => decodeHex(legacy([1, 2, [new Uint8Array()]])),
    "SPAN_BATCH_INVALID",
    "data must be a byte string",
  );
  const typed = (type: string, fields: Parameters<typeof RLP.encode>[0]) =>
    head + type + rlpHex(fields) + "0505";
  assertCode(
    () => decodeHex(typed("01", [1, 2, "0x", [[new Uint8Array(19), []]]])),
    "SPAN_BATCH_INVALID",
    "address must be 20 bytes",
  );
  assertCode(
    () => decodeHex(typed("02", [1, 2, 3, "0x", [[new Uint8Array(20), [new Uint8Array(31)]]]])),
    "SPAN_BATCH_INVALID",
    "storage key 0 must be 32 bytes",
  );
  // EIP-7702 values are uint256
  assertCode(
    () => decodeHex(typed("04", [new Uint8Array(33).fill(1), 2, 3, "0x", [], []])),
    "SPAN_BATCH_INVALID",
    "exceeds 256 bits",
  );
});

Deno.test("span batch: a set-code transaction cannot be a contract creation", () => {
  // contract_creation_bits = 1, so no tx_tos
  const hex = PREFIX_HEX + "01" + "00" + "01" + "01" + "00" + "00".repeat(64) + "04" +
    rlpHex([0, 1, 2, "0x", [], []]) +
    "0505";
  assertCode(() => decodeHex(hex), "SPAN_BATCH_INVALID", "set-code transaction without recipient");
  const setCode = spanBatchTxFromSigned(signedTxs()["EIP-7702"], CHAIN_ID);
  const batch: SpanBatch = {
    ...LAYOUT_BATCH,
    blockCount: 1,
    originBits: [false],
    blockTxCounts: [1],
    txs: [setCode],
  };
  assertCode(
    () => encodeSpanBatch({ ...batch, txs: [{ ...setCode, to: null as unknown as Uint8Array }] }),
    "SPAN_BATCH_INVALID",
    "without recipient",
  );
});

Deno.test("span batch: encoding rejects an inconsistent batch", () => {
  assertCode(
    () => encodeSpanBatch({ ...LAYOUT_BATCH, blockCount: 0, originBits: [], blockTxCounts: [] }),
    "SPAN_BATCH_INVALID",
    "block count 0",
  );
  assertCode(
    () => encodeSpanBatch({ ...LAYOUT_BATCH, originBits: [true] }),
    "SPAN_BATCH_INVALID",
    "1 origin bits",
  );
  assertCode(
    () => encodeSpanBatch({ ...LAYOUT_BATCH, blockTxCounts: [1, 2] }),
    "SPAN_BATCH_INVALID",
    "add up to 3",
  );
  assertCode(
    () => encodeSpanBatch({ ...LAYOUT_BATCH, parentCheck: new Uint8Array(32) }),
    "SPAN_BATCH_INVALID",
    "parent_check",
  );
  assertCode(
    () => encodeSpanBatch({ ...LAYOUT_BATCH, relTimestamp: 1n << 64n }),
    "SPAN_BATCH_INVALID",
    "rel_timestamp",
  );
  const [tx0, tx1] = LAYOUT_BATCH.txs;
  assertCode(
    () => encodeSpanBatch({ ...LAYOUT_BATCH, txs: [{ ...tx0, yParity: 2 }, tx1] }),
    "SPAN_BATCH_INVALID",
    "y-parity",
  );
  assertCode(
    () => encodeSpanBatch({ ...LAYOUT_BATCH, txs: [{ ...tx0, r: 1n << 256n }, tx1] }),
    "SPAN_BATCH_INVALID",
    "r is not",
  );
  assertCode(
    () => encodeSpanBatch({ ...LAYOUT_BATCH, txs: [{ ...tx0, nonce: -1n }, tx1] }),
    "SPAN_BATCH_INVALID",
    "nonce",
  );
});

Deno.test("span batch: singular batches that cannot form a span are rejected", () => {
  const batches = singularBatches();
  assertCode(() => spanBatchFromSingular([], GENESIS, CHAIN_ID), "SPAN_BATCH_INVALID", "no batches");
  assertCode(
    () => spanBatchFromSingular(batches, GENESIS + 41n, CHAIN_ID),
    "SPAN_BATCH_INVALID",
    "before genesis",
  );
  const jump = batches.map((b, i) => (i === 4 ? { ...b, epochNumber: 103n } : b));
  assertCode(
    () => spanBatchFromSingular(jump, GENESIS, CHAIN_ID),
    "SPAN_BATCH_INVALID",
    "does not follow epoch",
  );
  const back = batches.map((b, i) => (i === 3 ? { ...b, timestamp: GENESIS } : b));
  assertCode(() => spanBatchFromSingular(back, GENESIS, CHAIN_ID), "SPAN_BATCH_INVALID", "timestamp");
  // signed for another chain
  assertCode(
    () => spanBatchFromSingular(batches, GENESIS, 902n),
    "SPAN_BATCH_INVALID",
    "chain id is 901, expected 902",
  );
});

Deno.test("span batch: only legacy, EIP-2930, EIP-1559 and EIP-7702 transactions can be added", () => {
  assertCode(
    () => spanBatchTxFromSigned(new Uint8Array(), CHAIN_ID),
    "SPAN_BATCH_INVALID",
    "empty transaction",
  );
  for (const type of [0x00, 0x03, 0x7e]) {
    assertCode(
      () => spanBatchTxFromSigned(concatBytes(new Uint8Array([type]), RLP.encode([])), CHAIN_ID),
      "SPAN_BATCH_INVALID",
      `unsupported transaction type ${type}`,
    );
  }
  // legacy v that is neither 27/28 nor EIP-155
  const badV = RLP.encode([0, 1, 21000, new Uint8Array(20), 0, "0x", 29, 1, 1]);
  assertCode(() => spanBatchTxFromSigned(badV, CHAIN_ID), "SPAN_BATCH_INVALID", "neither 27/28 nor EIP-155");
  // a legacy EIP-155 v for another chain
  const otherChain = RLP.encode([0, 1, 21000, new Uint8Array(20), 0, "0x", 2 * 5 + 35, 1, 1]);
  assertCode(() => spanBatchTxFromSigned(otherChain, CHAIN_ID), "SPAN_BATCH_INVALID", "chain id is 5");
  // a typed y-parity above 1
  const raw = signedTxs()["EIP-1559"];
  const fields = RLP.decode(raw.subarray(1)) as Uint8Array[];
  fields[9] = new Uint8Array([2]);
  const bad = concatBytes(new Uint8Array([2]), RLP.encode(fields));
  assertCode(() => spanBatchTxFromSigned(bad, CHAIN_ID), "SPAN_BATCH_INVALID", "y-parity is 2");
  // trailing bytes after the signed transaction
  assertCode(
    () => spanBatchTxFromSigned(concatBytes(raw, new Uint8Array([0])), CHAIN_ID),
    "SPAN_BATCH_INVALID",
  );
});
