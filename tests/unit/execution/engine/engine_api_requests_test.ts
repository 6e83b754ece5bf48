/** engine_getPayloadV4 / engine_newPayloadV4 with EIP-7685 execution requests on an L1 (Prague) chain. */
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bigIntToBytes, concatBytes } from "../../../../lib/common/bytes.ts";
import { BaseError, isErrorCode } from "../../../../lib/common/errors.ts";
import {
  computeRequestsHash,
  forkRules,
  WITHDRAWAL_REQUEST_ADDRESS,
} from "../../../../lib/execution/evm/mod.ts";
import {
  ENGINE_API_ERRORS,
  ENGINE_CAPABILITIES,
  ExecutionEngine,
  payloadToBlock,
  toEngineRpcError,
} from "../../../../lib/execution/engine/mod.ts";
import type { RpcError } from "../../../../lib/rpc/mod.ts";
import { EMPTY_REQUESTS_HASH, hashHeader } from "../../../../lib/protocol/mod.ts";
import { assert, assertEquals, assertRejects } from "../../../assert.ts";
import {
  ACCOUNTS,
  buildPayload,
  DevMiner,
  ExecutionEngineApi,
  GWEI,
  isthmusGenesis,
  l1Genesis,
  sendPayload,
} from "./helpers.ts";

const PUBKEY = new Uint8Array(48).fill(0x42);

function withdrawalRequestTx(engine: ExecutionEngine, nonce: bigint, amount: bigint) {
  const common = forkRules(engine.config, engine.pendingRules().timestamp).common;
  return createFeeMarket1559Tx({
    chainId: engine.config.chainId,
    nonce,
    to: WITHDRAWAL_REQUEST_ADDRESS,
    value: 1n,
    gasLimit: 300_000n,
    maxFeePerGas: 10n * GWEI,
    maxPriorityFeePerGas: GWEI,
    data: concatBytes(PUBKEY, bigIntToBytes(amount, 8)),
  }, { common }).sign(ACCOUNTS[0].privateKey);
}

async function l1Pair() {
  const seq = await ExecutionEngine.open({ genesis: l1Genesis() });
  const ver = await ExecutionEngine.open({ genesis: l1Genesis() });
  return {
    seq,
    ver,
    seqApi: new ExecutionEngineApi({}, { engine: seq }),
    verApi: new ExecutionEngineApi({}, { engine: ver }),
    miner: new DevMiner({}, { engine: seq, now: () => 0 }),
    async close() {
      await seq.close();
      await ver.close();
    },
  };
}

Deno.test("engine api (L1 Prague): getPayloadV4 returns the block's EIP-7002 request; newPayloadV4 checks it", async () => {
  const t = await l1Pair();
  try {
    await t.seq.pool.add(withdrawalRequestTx(t.seq, 0n, 5n));
    const { envelope } = await buildPayload(t.seqApi, t.miner, (a) => (a.noTxPool = false));
    const requests = envelope.executionRequests!;
    assertEquals(envelope.executionPayload.transactions.length, 1);
    assertEquals(requests.length, 1);
    assertEquals(
      requests[0],
      concatBytes(new Uint8Array([1]), ACCOUNTS[0].address, PUBKEY, bigIntToBytes(5n, 8).reverse()),
    );
    const header = t.seq.chain.getHeaderByHash(envelope.executionPayload.blockHash)!;
    assertEquals(header.requestsHash, computeRequestsHash(requests));

    // Without the requests the header (requestsHash) does not hash to blockHash.
    const p = envelope.executionPayload;
    const dropped = await t.verApi.newPayload(4, p, [], envelope.parentBeaconBlockRoot, []);
    assertEquals(dropped.status, "INVALID");
    assert(dropped.validationError!.includes("blockhash mismatch"));
    // Malformed lists are -32602.
    for (const bad of [[new Uint8Array([1])], [requests[0], requests[0]]]) {
      const err = await assertRejects(() =>
        t.verApi.newPayload(4, p, [], envelope.parentBeaconBlockRoot, bad)
      );
      assert(isErrorCode(err, ENGINE_API_ERRORS.INVALID_PARAMS), (err as Error).message);
    }
    const ok = await sendPayload(t.verApi, envelope);
    assertEquals(ok.status, "VALID", ok.validationError ?? "");
    assertEquals(hashHeader(t.ver.chain.getHeaderByHash(p.blockHash)!), p.blockHash);
  } finally {
    await t.close();
  }
});

Deno.test("engine api (L1 Prague): a block whose requests the importer disagrees with is INVALID naming requestsHash", async () => {
  const t = await l1Pair();
  try {
    const { envelope } = await buildPayload(t.seqApi, t.miner);
    assertEquals(envelope.executionRequests, []);
    // A consistent header claiming a request the execution does not produce.
    const fake = [concatBytes(new Uint8Array([1]), new Uint8Array(76))];
    const block = payloadToBlock(
      envelope.executionPayload,
      { parentBeaconBlockRoot: envelope.parentBeaconBlockRoot, executionRequests: fake },
    );
    const p = { ...envelope.executionPayload, blockHash: hashHeader(block.header) };
    const status = await t.verApi.newPayload(4, p, [], envelope.parentBeaconBlockRoot, fake);
    assertEquals(status.status, "INVALID");
    assert(status.validationError!.includes("requestsHash mismatch"), status.validationError!);
  } finally {
    await t.close();
  }
});

Deno.test("engine api (Isthmus): executionRequests stay empty and must be empty", async () => {
  const seq = await ExecutionEngine.open({ genesis: isthmusGenesis() });
  try {
    const api = new ExecutionEngineApi({}, { engine: seq });
    const miner = new DevMiner({}, { engine: seq, now: () => 0 });
    const { envelope } = await buildPayload(api, miner);
    assertEquals(envelope.executionRequests, []);
    const header = seq.chain.getHeaderByHash(envelope.executionPayload.blockHash)!;
    assertEquals(header.requestsHash, EMPTY_REQUESTS_HASH);
    const err = await assertRejects(() =>
      api.newPayload(4, envelope.executionPayload, [], envelope.parentBeaconBlockRoot, [
        new Uint8Array([1, 2]),
      ])
    );
    assert(err instanceof BaseError && err.message.includes("OP chain"));
  } finally {
    await seq.close();
  }
});

Deno.test("engine api: engine_getBlobsV1 answers null for unknown hashes and -38004 above 128 hashes", async () => {
  const engine = await ExecutionEngine.open({ genesis: l1Genesis() });
  try {
    const api = new ExecutionEngineApi({}, { engine });
    assert(ENGINE_CAPABILITIES.includes("engine_getBlobsV1"));
    assertEquals(api.getBlobs([new Uint8Array(32).fill(1)]), [null]);
    const many = Array.from({ length: 129 }, () => new Uint8Array(32));
    let thrown: unknown;
    try {
      api.getBlobs(many);
    } catch (e) {
      thrown = e;
    }
    assert(isErrorCode(thrown, ENGINE_API_ERRORS.TOO_LARGE_REQUEST));
    const rpc = toEngineRpcError(thrown) as RpcError;
    assertEquals(rpc.code, -38004);
    assertEquals(api.getBlobs(many.slice(0, 128)).length, 128);
  } finally {
    await engine.close();
  }
});
