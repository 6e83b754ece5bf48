import { RLP } from "@ethereumjs/rlp";
import { assertEquals, assertThrows } from "../../../assert.ts";
import { hexToBytes } from "../../../../lib/common/bytes.ts";
import type { BaseError } from "../../../../lib/common/errors.ts";
import {
  decodeBody,
  decodeHeader,
  decodeLogIndex,
  decodeReceipts,
  encodeBody,
  encodeLogIndex,
  encodeReceipts,
  logsBloom,
  type StoredReceipt,
} from "../../../../lib/execution/chain/mod.ts";
import { EMPTY_REQUESTS_HASH, encodeHeader, type Header } from "../../../../lib/protocol/block.ts";
import { addr, makeBlock, TOKEN, transferLog } from "./block_fixtures.ts";

Deno.test("codec: header RLP round-trips with every optional-field depth", () => {
  const { block } = makeBlock(undefined, []);
  const full: Header = { ...block.header, requestsHash: EMPTY_REQUESTS_HASH };
  assertEquals(decodeHeader(encodeHeader(full)), full);
  const legacy: Header = { ...block.header };
  delete legacy.baseFeePerGas;
  delete legacy.withdrawalsRoot;
  delete legacy.blobGasUsed;
  delete legacy.excessBlobGas;
  delete legacy.parentBeaconBlockRoot;
  assertEquals(decodeHeader(encodeHeader(legacy)), legacy);
  const london: Header = { ...legacy, baseFeePerGas: 7n };
  assertEquals(decodeHeader(encodeHeader(london)), london);
});

Deno.test("codec: bodies with and without withdrawals", () => {
  const { block } = makeBlock(undefined, [{ salt: "a" }, { salt: "b" }]);
  assertEquals(decodeBody(encodeBody(block)), { transactions: block.transactions, withdrawals: [] });
  const w = [[new Uint8Array([1]), new Uint8Array([2]), addr(3), new Uint8Array([4])]];
  assertEquals(decodeBody(encodeBody({ ...block, withdrawals: w })).withdrawals, w);
  const noW = { header: block.header, transactions: block.transactions };
  assertEquals(decodeBody(encodeBody(noW)), { transactions: block.transactions });
});

Deno.test("codec: stored receipts round-trip, including OP and deposit fields and null addresses", () => {
  const { receipts } = makeBlock(undefined, [
    { salt: "x", logs: [transferLog(TOKEN, addr(1), addr(2), 5n)] },
    { salt: "y" },
  ]);
  const deposit: StoredReceipt = {
    type: 0x7e,
    status: 0,
    cumulativeGasUsed: 100_000n,
    logsBloom: new Uint8Array(256),
    logs: [],
    gasUsed: 58_000n,
    contractAddress: addr(9),
    from: addr(8),
    to: null,
    effectiveGasPrice: 0n,
    txHash: new Uint8Array(32).fill(3),
    logIndexStart: 1,
    depositNonce: 0n,
    depositReceiptVersion: 1n,
  };
  const bedrock: StoredReceipt = {
    ...receipts[1],
    l1BaseFeeScalar: undefined,
    l1BlobBaseFee: undefined,
    l1BlobBaseFeeScalar: undefined,
    l1FeeScalar: "0.684",
    operatorFeeScalar: 0n,
    operatorFeeConstant: 12n,
  };
  delete bedrock.l1BaseFeeScalar;
  delete bedrock.l1BlobBaseFee;
  delete bedrock.l1BlobBaseFeeScalar;
  const all = [...receipts, deposit, bedrock];
  const raw = encodeReceipts(all);
  assertEquals(raw[0], 1);
  assertEquals(decodeReceipts(raw), all);
  const err = assertThrows(() => decodeReceipts(new Uint8Array([9, 0xc0])));
  assertEquals((err as BaseError).code, "CHAIN_CORRUPT");
});

Deno.test("codec: log index entries keep the bloom at a fixed offset", () => {
  const logs = [transferLog(TOKEN, addr(1), addr(2), 5n)];
  const entry = {
    blockHash: new Uint8Array(32).fill(1),
    timestamp: 1234n,
    bloom: logsBloom(logs),
    txs: [{ index: 3, hash: new Uint8Array(32).fill(2), logIndexStart: 7, logs }],
  };
  const raw = encodeLogIndex(entry);
  assertEquals(raw.subarray(40, 296), entry.bloom);
  assertEquals(decodeLogIndex(raw), entry);
});

Deno.test("codec: the stored receipts and bodies keep their byte layout (written with @ethereumjs/rlp)", () => {
  const { block, receipts } = makeBlock(undefined, [
    { salt: "x", logs: [transferLog(TOKEN, addr(1), addr(2), 5n)] },
    { salt: "y" },
  ]);
  const int = (v: bigint | number) => {
    const n = BigInt(v);
    return n === 0n
      ? new Uint8Array()
      : hexToBytes(`0x${n.toString(16).padStart(n.toString(16).length + (n.toString(16).length % 2), "0")}`);
  };
  const fields = [
    "depositNonce",
    "depositReceiptVersion",
    "l1GasUsed",
    "l1GasPrice",
    "l1Fee",
    "l1FeeScalar",
    "l1BaseFeeScalar",
    "l1BlobBaseFee",
    "l1BlobBaseFeeScalar",
    "operatorFeeScalar",
    "operatorFeeConstant",
    "daFootprintGasScalar",
    "blobGasUsed",
    "blobGasPrice",
  ] as const;
  const all: StoredReceipt[] = [...receipts, {
    ...receipts[1],
    l1FeeScalar: "0.684",
    blobGasPrice: 1n << 70n,
  }];
  const expected = RLP.encode(all.map((r) => {
    let mask = 0;
    const optional: Uint8Array[] = [];
    fields.forEach((name, i) => {
      const v = r[name];
      if (v === undefined) return;
      mask |= 1 << i;
      optional.push(typeof v === "string" ? new TextEncoder().encode(v) : int(v));
    });
    return [
      int(r.type),
      int(r.status),
      int(r.cumulativeGasUsed),
      r.logsBloom.every((b) => b === 0) ? new Uint8Array() : r.logsBloom,
      r.logs.map((l) => [l.address, l.topics, l.data]),
      int(r.gasUsed),
      r.contractAddress ?? new Uint8Array(),
      r.from,
      r.to ?? new Uint8Array(),
      int(r.effectiveGasPrice),
      r.txHash,
      int(r.logIndexStart),
      int(mask),
      optional,
    ];
  }));
  assertEquals(encodeReceipts(all), Uint8Array.of(1, ...expected));
  assertEquals(encodeBody(block), RLP.encode([block.transactions, []]));
});
