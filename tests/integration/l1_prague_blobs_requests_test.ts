/**
 * L1 mode (plain Ethereum rules, the devnet's L1) on Prague through the Engine API: a block with an
 * EIP-4844 blob transaction and an EIP-7002 withdrawal request is built by one engine (FCU with
 * attributes, getPayloadV4: blobsBundle and executionRequests) and imported by a second one
 * (newPayloadV4 with the versioned hashes and the requests).
 */
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bigIntToBytes, bytesToHex, concatBytes } from "../../lib/common/bytes.ts";
import {
  blobBaseFee,
  computeRequestsHash,
  forkRules,
  WITHDRAWAL_REQUEST_ADDRESS,
} from "../../lib/execution/evm/mod.ts";
import { formatReceipt } from "../../lib/execution/rpc/mod.ts";
import {
  envelopeToJson,
  ExecutionEngine,
  type ExecutionPayloadEnvelopeWithBlobs,
} from "../../lib/execution/engine/mod.ts";
import { versionedHashesOf } from "../../lib/execution/txpool/mod.ts";
import { assert, assertEquals } from "../assert.ts";
import {
  ACCOUNTS,
  buildPayload,
  DevMiner,
  ExecutionEngineApi,
  GWEI,
  l1Genesis,
  setHead,
} from "../unit/execution/engine/helpers.ts";
import { blobTx } from "../unit/execution/txpool/fixtures.ts";

const PUBKEY = new Uint8Array(48).fill(0x33);

Deno.test("L1 Prague via the Engine API: a blob transaction and a 7002 request, built on one engine, imported on another", async () => {
  const seq = await ExecutionEngine.open({ genesis: l1Genesis() });
  const ver = await ExecutionEngine.open({ genesis: l1Genesis() });
  try {
    const seqApi = new ExecutionEngineApi({}, { engine: seq });
    const verApi = new ExecutionEngineApi({}, { engine: ver });
    const miner = new DevMiner({}, { engine: seq, now: () => 0 });

    const blob = await blobTx(seq.config.chainId, {
      keyBytes: ACCOUNTS[0].privateKey,
      seeds: [7],
      blobFeeCap: 100n,
      feeCap: 10n * GWEI,
    });
    await seq.pool.add(blob.network);
    const common = forkRules(seq.config, seq.pendingRules().timestamp).common;
    const request = createFeeMarket1559Tx({
      chainId: seq.config.chainId,
      nonce: 1n,
      to: WITHDRAWAL_REQUEST_ADDRESS,
      value: 1n,
      gasLimit: 300_000n,
      maxFeePerGas: 10n * GWEI,
      maxPriorityFeePerGas: GWEI,
      data: concatBytes(PUBKEY, bigIntToBytes(9n, 8)),
    }, { common }).sign(ACCOUNTS[0].privateKey);
    await seq.pool.add(request);

    const versioned = versionedHashesOf(blob.tx);
    assertEquals(seqApi.getBlobs(versioned), [{
      blob: blob.sidecar.blobs[0],
      proof: blob.sidecar.proofs[0],
    }]);

    const { envelope } = await buildPayload(seqApi, miner, (a) => (a.noTxPool = false));
    const p = envelope.executionPayload;
    assertEquals(p.transactions.length, 2);
    assertEquals(p.transactions[0], blob.canonical);
    assertEquals(p.blobGasUsed, 131_072n);
    assertEquals((envelope as ExecutionPayloadEnvelopeWithBlobs).blobsBundle, blob.sidecar);
    const requests = envelope.executionRequests!;
    assertEquals(requests, [
      concatBytes(new Uint8Array([1]), ACCOUNTS[0].address, PUBKEY, bigIntToBytes(9n, 8).reverse()),
    ]);
    assertEquals(seq.chain.getHeaderByHash(p.blockHash)!.requestsHash, computeRequestsHash(requests));
    const json = envelopeToJson(envelope as ExecutionPayloadEnvelopeWithBlobs, 4) as {
      blobsBundle: { blobs: string[]; commitments: string[] };
      executionRequests: string[];
    };
    assertEquals(json.blobsBundle.blobs, [bytesToHex(blob.sidecar.blobs[0])]);
    assertEquals(json.executionRequests, [bytesToHex(requests[0])]);

    // The verifier checks the versioned hashes, then re-executes (requestsHash recomputed).
    const wrong = await verApi.newPayload(4, p, [], envelope.parentBeaconBlockRoot, requests);
    assertEquals(wrong.status, "INVALID");
    assert(wrong.validationError!.includes("versioned hashes"));
    const status = await verApi.newPayload(4, p, versioned, envelope.parentBeaconBlockRoot, requests);
    assertEquals(status.status, "VALID", status.validationError ?? "");

    for (const api of [seqApi, verApi]) {
      const fcu = await setHead(api, p.blockHash, 3);
      assertEquals(fcu.payloadStatus.status, "VALID");
    }
    assertEquals(ver.head().header.number, 1n);
    assertEquals(ver.head().header.blobGasUsed, 131_072n);
    // EIP-4844 receipt fields on both engines: the blob gas and the block's blob base fee.
    for (const engine of [seq, ver]) {
      const receipt = engine.chain.getReceipts(p.blockHash)!.find((r) => r.type === 3)!;
      assertEquals(receipt.blobGasUsed, 131_072n);
      assertEquals(receipt.blobGasPrice, blobBaseFee(engine.config, p.timestamp, p.excessBlobGas!));
      const json = formatReceipt(receipt, { hash: p.blockHash, header: engine.head().header }, 0);
      assertEquals(json.blobGasUsed, "0x20000");
      assertEquals(json.blobGasPrice, "0x" + receipt.blobGasPrice!.toString(16));
    }
    // Included: the pool no longer serves the blob.
    assertEquals(seqApi.getBlobs(versioned), [null]);
  } finally {
    await seq.close();
    await ver.close();
  }
});
