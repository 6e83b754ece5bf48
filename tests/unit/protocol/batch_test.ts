import { RLP } from "@ethereumjs/rlp";
import { isErrorCode } from "../../../lib/common/errors.ts";
import {
  decodeBatch,
  decodeSingularBatch,
  encodeSingularBatch,
  rlpItemLength,
  type SingularBatch,
} from "../../../lib/protocol/batch.ts";
import { encodeSpanBatch } from "../../../lib/protocol/span_batch_encode.ts";
import { spanBatchFromSingular } from "../../../lib/protocol/span_batch_singular.ts";
import { assert, assertEquals, assertThrows } from "../../assert.ts";

const batch: SingularBatch = {
  parentHash: new Uint8Array(32).fill(0x11),
  epochNumber: 123_456n,
  epochHash: new Uint8Array(32).fill(0x22),
  timestamp: 1_700_000_000n,
  transactions: [Uint8Array.of(2, 0xc0), Uint8Array.from({ length: 100 }, (_, i) => i + 1)],
};

Deno.test("batch: a singular batch is 0 ++ rlp([parent_hash, epoch_number, epoch_hash, timestamp, transaction_list])", () => {
  const enc = encodeSingularBatch(batch);
  assertEquals(enc[0], 0);
  // The same bytes as @ethereumjs/rlp.
  const want = RLP.encode([
    batch.parentHash,
    batch.epochNumber,
    batch.epochHash,
    batch.timestamp,
    batch.transactions,
  ]);
  assertEquals(enc.subarray(1), want);
  assertEquals(decodeSingularBatch(enc.subarray(1)), batch);
  // Content after the complete RLP item is ignored (derivation.md "Batch Format" note).
  assertEquals(decodeSingularBatch(new Uint8Array([...enc.subarray(1), 9, 9, 9])), batch);
  assertEquals(
    decodeSingularBatch(encodeSingularBatch({ ...batch, transactions: [] }).subarray(1)).transactions,
    [],
  );
});

Deno.test("batch: malformed singular batches are refused with the field", () => {
  const bad = (content: Uint8Array, part: string) => {
    const e = assertThrows(() => decodeSingularBatch(content));
    assert(isErrorCode(e, "BATCH_INVALID"), String(e));
    assert((e as Error).message.includes(part), `"${(e as Error).message}" should say "${part}"`);
  };
  const fields = [batch.parentHash, batch.epochNumber, batch.epochHash, batch.timestamp, batch.transactions];
  bad(RLP.encode(fields.slice(0, 4)), "5 fields");
  bad(RLP.encode([new Uint8Array(31), ...fields.slice(1)]), "parent_hash must be 32 bytes");
  bad(RLP.encode([fields[0], 1n << 64n, ...fields.slice(2)]), "epoch_number exceeds 64 bits");
  bad(RLP.encode([fields[0], Uint8Array.of(0, 1), ...fields.slice(2)]), "leading zero");
  bad(RLP.encode([...fields.slice(0, 4), Uint8Array.of(1)]), "transaction_list must be a list");
  bad(RLP.encode([...fields.slice(0, 4), [[Uint8Array.of(1)]]]), "transaction 0 must be a byte string");
  bad(RLP.encode(fields).subarray(0, 50), "only");
  bad(RLP.encode(Uint8Array.of(1, 2, 3)), "5 fields");
});

Deno.test("batch: rlpItemLength measures the first item only", () => {
  assertEquals(rlpItemLength(Uint8Array.of(0x05, 0xff)), 1);
  assertEquals(rlpItemLength(Uint8Array.of(0x82, 1, 2, 3)), 3);
  assertEquals(rlpItemLength(RLP.encode(new Uint8Array(300))), 303);
  assertEquals(rlpItemLength(RLP.encode([new Uint8Array(100)])), 104);
  assertThrows(() => rlpItemLength(new Uint8Array()));
  assertThrows(() => rlpItemLength(Uint8Array.of(0xb9, 1)));
});

Deno.test("batch: decodeBatch dispatches on the version byte (0 singular, 1 span)", () => {
  const singular = decodeBatch(encodeSingularBatch(batch));
  assertEquals(singular, { kind: "singular", batch });
  const span = spanBatchFromSingular([{ ...batch, transactions: [] }], 1_600_000_000n, 10n);
  const decoded = decodeBatch(new Uint8Array([1, ...encodeSpanBatch(span)]));
  assertEquals(decoded.kind, "span");
  assertEquals(decoded.kind === "span" ? decoded.batch.blockCount : 0, 1);
  for (
    const [input, part] of [[new Uint8Array(), "empty"], [
      Uint8Array.of(2, 0xc0),
      "unknown batch version 2",
    ]] as const
  ) {
    const e = assertThrows(() => decodeBatch(input));
    assert(isErrorCode(e, "BATCH_INVALID") && (e as Error).message.includes(part), String(e));
  }
});
