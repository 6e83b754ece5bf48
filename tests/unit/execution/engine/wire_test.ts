import { bytesToHex } from "../../../../lib/common/bytes.ts";
import {
  blobsToJson,
  envelopeToJson,
  executionPayloadToJson,
  parseEnvelope,
  parseExecutionPayload,
  parseForkchoiceState,
  parsePayloadAttributes,
  parsePayloadStatus,
  payloadAttributesToJson,
} from "../../../../lib/execution/engine/mod.ts";
import type { ExecutionPayload, PayloadAttributes } from "../../../../lib/protocol/mod.ts";
import { SchemaError } from "../../../../lib/rpc/mod.ts";
import { assert, assertEquals, assertThrows } from "../../../assert.ts";

const H = (b: number) => new Uint8Array(32).fill(b);

function payload(): ExecutionPayload {
  return {
    parentHash: H(1),
    feeRecipient: new Uint8Array(20).fill(2),
    stateRoot: H(3),
    receiptsRoot: H(4),
    logsBloom: new Uint8Array(256),
    prevRandao: H(5),
    blockNumber: 7n,
    gasLimit: 30_000_000n,
    gasUsed: 21_000n,
    timestamp: 1_700_000_000n,
    extraData: new Uint8Array([0, 0, 0, 0, 250, 0, 0, 0, 6]),
    baseFeePerGas: 1_000_000_000n,
    blockHash: H(6),
    transactions: [new Uint8Array([0x7e, 1, 2])],
    withdrawals: [],
    blobGasUsed: 0n,
    excessBlobGas: 0n,
    withdrawalsRoot: H(8),
  };
}

Deno.test("wire: an execution payload round-trips with hex quantities and exact field names", () => {
  const json = executionPayloadToJson(payload());
  assertEquals(json.blockNumber, "0x7");
  assertEquals(json.gasLimit, "0x1c9c380");
  assertEquals(json.extraData, "0x00000000fa00000006");
  assertEquals(json.withdrawals, []);
  assertEquals(json.withdrawalsRoot, bytesToHex(H(8)));
  assertEquals(parseExecutionPayload(JSON.parse(JSON.stringify(json))), payload());
  // A Bedrock payload has no withdrawals, blob or root fields at all.
  const bedrock = { ...payload() };
  delete bedrock.withdrawals;
  delete bedrock.blobGasUsed;
  delete bedrock.excessBlobGas;
  delete bedrock.withdrawalsRoot;
  const bj = executionPayloadToJson(bedrock);
  assert(!("withdrawals" in bj) && !("blobGasUsed" in bj) && !("withdrawalsRoot" in bj));
  assertEquals(parseExecutionPayload(bj), bedrock);
});

Deno.test("wire: a bad payload field is named", () => {
  const json = executionPayloadToJson(payload()) as unknown as Record<string, unknown>;
  const e1 = assertThrows(() => parseExecutionPayload({ ...json, gasUsed: "0x01" }), SchemaError);
  assert(e1.message.includes("gasUsed"), e1.message);
  const e2 = assertThrows(() => parseExecutionPayload({ ...json, logsBloom: "0x00" }), SchemaError);
  assert(e2.message.includes("logsBloom"), e2.message);
  const e3 = assertThrows(
    () => parseExecutionPayload({ ...json, extraData: "0x" + "00".repeat(33) }),
    SchemaError,
  );
  assert(e3.message.includes("extraData"), e3.message);
  const missing = { ...json };
  delete missing.blockHash;
  const e4 = assertThrows(() => parseExecutionPayload(missing), SchemaError);
  assert(e4.message.includes("blockHash"), e4.message);
});

Deno.test("wire: OP payload attributes (eip1559Params as 8 bytes, minBaseFee as op-node's JSON number)", () => {
  const attrs: PayloadAttributes = {
    timestamp: 12n,
    prevRandao: H(9),
    suggestedFeeRecipient: new Uint8Array(20).fill(0x11),
    withdrawals: [],
    parentBeaconBlockRoot: H(10),
    transactions: [new Uint8Array([0x7e])],
    noTxPool: true,
    gasLimit: 60_000_000n,
    eip1559Params: new Uint8Array([0, 0, 0, 250, 0, 0, 0, 6]),
    minBaseFee: 1000n,
  };
  const json = payloadAttributesToJson(attrs);
  assertEquals(json.minBaseFee, 1000);
  assertEquals(json.eip1559Params, "0x000000fa00000006");
  assertEquals(parsePayloadAttributes(JSON.parse(JSON.stringify(json))), attrs);
  assertEquals(parsePayloadAttributes({ ...json, minBaseFee: "0x3e8" }).minBaseFee, 1000n);
  const e = assertThrows(() => parsePayloadAttributes({ ...json, eip1559Params: "0x00" }), SchemaError);
  assert(e.message.includes("eip1559Params"), e.message);
  // Only the required V1 fields.
  const v1 = parsePayloadAttributes({
    timestamp: "0xc",
    prevRandao: bytesToHex(H(9)),
    suggestedFeeRecipient: bytesToHex(new Uint8Array(20)),
  });
  assertEquals(Object.keys(v1).sort(), ["prevRandao", "suggestedFeeRecipient", "timestamp"]);
});

Deno.test("wire: forkchoice state, status and envelope", () => {
  const fc = parseForkchoiceState({
    headBlockHash: bytesToHex(H(1)),
    safeBlockHash: bytesToHex(H(2)),
    finalizedBlockHash: bytesToHex(H(3)),
  });
  assertEquals(fc.safeBlockHash, H(2));
  assertThrows(() => parseForkchoiceState({ headBlockHash: bytesToHex(H(1)) }), SchemaError);
  // op-node omits latestValidHash / validationError when nil.
  assertEquals(parsePayloadStatus({ status: "SYNCING" }), {
    status: "SYNCING",
    latestValidHash: null,
    validationError: null,
  });
  assertThrows(() => parsePayloadStatus({ status: "MAYBE" }), SchemaError);
  const env = { executionPayload: payload(), blockValue: 5n, parentBeaconBlockRoot: H(7) };
  const v2 = envelopeToJson(env, 2);
  assertEquals(Object.keys(v2).sort(), ["blockValue", "executionPayload"]);
  const v4 = envelopeToJson(env, 4);
  assertEquals(v4.executionRequests, []);
  assertEquals(v4.blobsBundle, { commitments: [], proofs: [], blobs: [] });
  const back = parseEnvelope(JSON.parse(JSON.stringify(v4)));
  assertEquals(back.blockValue, 5n);
  assertEquals(back.parentBeaconBlockRoot, H(7));
  assertEquals(back.executionPayload, payload());
});

Deno.test("wire: getPayloadV3/V4 blobsBundle and executionRequests round-trip; getBlobsV1 answers null", () => {
  const blobsBundle = {
    commitments: [new Uint8Array(48).fill(1)],
    proofs: [new Uint8Array(48).fill(2)],
    blobs: [new Uint8Array(131_072).fill(3)],
  };
  const envelope = {
    executionPayload: payload(),
    blockValue: 5n,
    parentBeaconBlockRoot: H(9),
    shouldOverrideBuilder: false,
    executionRequests: [new Uint8Array([1, 0xaa])],
    blobsBundle,
  };
  const json = envelopeToJson(envelope, 4) as {
    blobsBundle: { proofs: string[] };
    executionRequests: string[];
  };
  assertEquals(json.blobsBundle.proofs, [bytesToHex(blobsBundle.proofs[0])]);
  assertEquals(json.executionRequests, ["0x01aa"]);
  const back = parseEnvelope(JSON.parse(JSON.stringify(json)));
  assertEquals(back.blobsBundle, blobsBundle);
  assertEquals(back.executionRequests, [new Uint8Array([1, 0xaa])]);
  // V3 without a bundle: the empty bundle.
  const v3 = envelopeToJson({ executionPayload: payload(), blockValue: 0n }, 3) as { blobsBundle: unknown };
  assertEquals(v3.blobsBundle, { commitments: [], proofs: [], blobs: [] });
  assertEquals(blobsToJson([null, { blob: new Uint8Array([1]), proof: new Uint8Array([2]) }]), [
    null,
    { blob: "0x01", proof: "0x02" },
  ]);
});
