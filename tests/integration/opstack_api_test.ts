/**
 * The `opstack` namespace (--experimental.sequencer-api; lib/node/opstack_api.ts) over HTTP on the
 * embedded engine, as op-node's opstackAPI: a block opened on the head with OP payload attributes in the
 * Engine API's JSON, sealed, committed as the new head; a cancelled or unknown job answers -40120;
 * attributes the engine refuses -40101; a block the engine finds invalid -40110; publishing without p2p
 * is refused.
 */
import { assert, assertEquals } from "../assert.ts";
import { bytesToHex } from "../../lib/common/bytes.ts";
import {
  DevMiner,
  ExecutionEngine,
  ExecutionEngineApi,
  payloadAttributesToJson,
} from "../../lib/execution/engine/mod.ts";
import type { L2BlockRef } from "../../lib/protocol/block_ref.ts";
import { opstackNamespace } from "../../lib/node/opstack_api.ts";
import { DEFAULT_RPC_LIMITS, MethodRegistry, RpcServer } from "../../lib/rpc/mod.ts";
import { keelVersion } from "../../lib/config/mod.ts";
import { anvilRollupConfig } from "../e2e/helpers/op_chain.ts";
import { isthmusGenesis } from "../unit/execution/engine/helpers.ts";

// deno-lint-ignore no-explicit-any
type Answer = { result?: any; error?: { code: number; message: string } };

async function setup() {
  const engine = await ExecutionEngine.open({ genesis: isthmusGenesis() });
  const api = new ExecutionEngineApi({}, { engine });
  const genesis = engine.head();
  const cfg = anvilRollupConfig(
    { hash: new Uint8Array(32), timestamp: genesis.header.timestamp },
    genesis.hash,
    31337n,
  );
  const zero: L2BlockRef = {
    hash: new Uint8Array(32),
    number: 0n,
    parentHash: new Uint8Array(32),
    timestamp: 0n,
    l1Origin: { hash: new Uint8Array(32), number: 0n },
    sequenceNumber: 0n,
  };
  const registry = new MethodRegistry([
    opstackNamespace({ cfg, engine: api, heads: () => ({ safe: zero, finalized: zero }) }),
  ]);
  const server = new RpcServer({
    endpoints: [{
      name: "rpc",
      addr: "127.0.0.1",
      port: 0,
      http: true,
      ws: false,
      namespaces: ["opstack"],
      corsDomains: [],
      vhosts: ["*"],
    }],
    limits: DEFAULT_RPC_LIMITS,
    version: keelVersion(),
  }, { registry });
  await server.start();
  const url = server.url("rpc");
  const call = async (method: string, params: unknown[]): Promise<Answer> =>
    await (await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    })).json();
  const miner = new DevMiner({}, { engine, now: () => 0 });
  return {
    engine,
    call,
    miner,
    async close() {
      await server.stop();
      await engine.close();
    },
  };
}

Deno.test("opstack: open, seal and commit a block; the head moves; cancelled and unknown jobs answer -40120", async () => {
  const t = await setup();
  try {
    const head = t.engine.head();
    const attrs = await t.miner.attributes(t.engine.chain.getHeaderByHash(head.hash)!);
    attrs.noTxPool = true;
    const parent = { hash: bytesToHex(head.hash), number: Number(head.header.number) };
    const opened = await t.call("opstack_openBlockV1", [parent, payloadAttributesToJson(attrs)]);
    assertEquals(opened.error, undefined);
    assertEquals(opened.result.timestamp, Number(attrs.timestamp));
    assert(/^0x[0-9a-f]{16}$/.test(opened.result.id), opened.result.id);
    const sealed = await t.call("opstack_sealBlockV1", [opened.result]);
    assertEquals(sealed.error, undefined);
    const envelope = sealed.result;
    assertEquals(envelope.executionPayload.blockNumber, "0x1");
    assertEquals(envelope.executionPayload.parentHash, parent.hash);
    assert(typeof envelope.parentBeaconBlockRoot === "string");
    assertEquals(t.engine.head().header.number, 0n); // sealed, not yet the head
    const signature = "0x" + "11".repeat(65);
    const committed = await t.call("opstack_commitBlockV1", [{ envelope, signature }]);
    assertEquals(committed.error, undefined);
    assertEquals(committed.result, null);
    assertEquals(t.engine.head().header.number, 1n);
    assertEquals(bytesToHex(t.engine.head().hash), envelope.executionPayload.blockHash);
    // No p2p here: publishing is refused, with a reason.
    const published = await t.call("opstack_publishBlockV1", [{ envelope, signature }]);
    assertEquals(published.error?.code, -32000);
    // Unknown jobs.
    const unknown = { id: "0x0102030405060708", timestamp: opened.result.timestamp };
    assertEquals((await t.call("opstack_sealBlockV1", [unknown])).error?.code, -40120);
    assertEquals((await t.call("opstack_cancelBlockV1", [unknown])).error?.code, -40120);
    // A block whose contents do not match its hash is invalid input.
    const next = await t.miner.attributes(t.engine.chain.getHeaderByHash(t.engine.head().hash)!);
    next.noTxPool = true;
    const second = await t.call("opstack_openBlockV1", [
      { hash: envelope.executionPayload.blockHash, number: 1 },
      payloadAttributesToJson(next),
    ]);
    assertEquals(second.error, undefined);
    assertEquals((await t.call("opstack_cancelBlockV1", [second.result])).result, null);
    const bad = structuredClone(envelope);
    bad.executionPayload.gasUsed = "0x1";
    assertEquals((await t.call("opstack_commitBlockV1", [{ envelope: bad, signature }])).error?.code, -40110);
    assertEquals(t.engine.head().header.number, 1n);
  } finally {
    await t.close();
  }
});

Deno.test("opstack: attributes the engine refuses answer -40101; an unknown parent -32000; bad params -32602", async () => {
  const t = await setup();
  try {
    const head = t.engine.head();
    const attrs = await t.miner.attributes(t.engine.chain.getHeaderByHash(head.hash)!);
    const parent = { hash: bytesToHex(head.hash), number: 0 };
    // Isthmus attributes without a gas limit: the engine refuses them.
    const json = payloadAttributesToJson(attrs);
    delete json.gasLimit;
    assertEquals((await t.call("opstack_openBlockV1", [parent, json])).error?.code, -40101);
    const stranger = { hash: "0x" + "ab".repeat(32), number: 5 };
    assertEquals(
      (await t.call("opstack_openBlockV1", [stranger, payloadAttributesToJson(attrs)])).error?.code,
      -32000,
    );
    assertEquals(
      (await t.call("opstack_openBlockV1", [
        { hash: parent.hash, number: "0x0" },
        payloadAttributesToJson(attrs),
      ])).error?.code,
      -32602,
    );
    assertEquals((await t.call("opstack_sealBlockV1", [{ id: "0x01", timestamp: 1 }])).error?.code, -32602);
  } finally {
    await t.close();
  }
});
