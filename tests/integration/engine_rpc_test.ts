/**
 * engine_* over real HTTP on 127.0.0.1 with the JWT, through lib/rpc, in the JSON shapes op-node sends
 * (op-service/eth/types.go): FCU with attributes -> getPayload -> newPayload -> FCU.
 */
import { bytesToHex } from "../../lib/common/bytes.ts";
import { DEFAULT_RPC_LIMITS, jwtAuthorizationHeader, MethodRegistry, RpcServer } from "../../lib/rpc/mod.ts";
import { engineNamespace, ExecutionEngine, payloadAttributesToJson } from "../../lib/execution/engine/mod.ts";
import { assert, assertEquals } from "../assert.ts";
import { DevMiner, ExecutionEngineApi, isthmusGenesis } from "../unit/execution/engine/helpers.ts";

const SECRET = new Uint8Array(32).fill(0x42);

async function setup() {
  const engine = await ExecutionEngine.open({ genesis: isthmusGenesis() });
  const api = new ExecutionEngineApi({ clientVersion: "9.9.9", clientCommit: "abcdef0123" }, { engine });
  const server = new RpcServer({
    endpoints: [{
      name: "authrpc",
      addr: "127.0.0.1",
      port: 0,
      http: true,
      ws: false,
      namespaces: ["engine"],
      jwtSecret: SECRET,
      corsDomains: [],
      vhosts: ["*"],
    }],
    limits: DEFAULT_RPC_LIMITS,
    version: "test",
  }, { registry: new MethodRegistry([engineNamespace(api)]) });
  await server.start();
  const url = server.url("authrpc");
  let id = 0;
  const call = async (method: string, params: unknown[], auth = true) => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (auth) headers.authorization = await jwtAuthorizationHeader(SECRET, Math.floor(Date.now() / 1000));
    const res = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
    });
    const text = await res.text();
    return { status: res.status, body: res.status === 200 ? JSON.parse(text) : text };
  };
  return {
    engine,
    api,
    call,
    async close() {
      await server.stop();
      await engine.close();
    },
  };
}

Deno.test("engine rpc: a request without a JWT is refused with 401", async () => {
  const t = await setup();
  try {
    const res = await t.call("engine_exchangeCapabilities", [[]], false);
    assertEquals(res.status, 401);
  } finally {
    await t.close();
  }
});

Deno.test("engine rpc: capabilities and client version", async () => {
  const t = await setup();
  try {
    const caps = await t.call("engine_exchangeCapabilities", [["engine_newPayloadV4"]]);
    assert(caps.body.result.includes("engine_forkchoiceUpdatedV3"));
    assert(caps.body.result.includes("engine_getPayloadV4"));
    const v = await t.call("engine_getClientVersionV1", [{
      code: "OP",
      name: "op-node",
      version: "1",
      commit: "0x01020304",
    }]);
    assertEquals(v.body.result, [{ code: "KL", name: "keel", version: "9.9.9", commit: "0xabcdef01" }]);
    // engine_signalSuperchainV1 (exec-engine.md): the engine answers the protocol version it supports.
    assert(caps.body.result.includes("engine_signalSuperchainV1"));
    const v10 = "0x" + "00".repeat(16) + "0000000a" + "00".repeat(12);
    const signal = await t.call("engine_signalSuperchainV1", [{ recommended: v10, required: v10 }]);
    assertEquals(signal.body.result, "0x" + "00".repeat(16) + "00000009" + "00".repeat(12));
    const bad = await t.call("engine_signalSuperchainV1", [{ recommended: v10 }]);
    assertEquals(bad.body.error.code, -32602);
  } finally {
    await t.close();
  }
});

Deno.test("engine rpc: a block stepped over HTTP in op-node's JSON shapes", async () => {
  const t = await setup();
  try {
    const head = t.engine.head();
    const miner = new DevMiner({}, { engine: t.engine, now: () => 0 });
    const attrs = await miner.attributes(head.header);
    attrs.noTxPool = true;
    const state = {
      headBlockHash: bytesToHex(head.hash),
      safeBlockHash: bytesToHex(head.hash),
      finalizedBlockHash: bytesToHex(head.hash),
    };
    const fcu = await t.call("engine_forkchoiceUpdatedV3", [state, payloadAttributesToJson(attrs)]);
    assertEquals(fcu.body.result.payloadStatus.status, "VALID");
    assertEquals(fcu.body.result.payloadStatus.latestValidHash, bytesToHex(head.hash));
    const payloadId = fcu.body.result.payloadId as string;
    assertEquals(payloadId.length, 18);
    const got = await t.call("engine_getPayloadV4", [payloadId]);
    const env = got.body.result;
    assertEquals(Object.keys(env).sort(), [
      "blobsBundle",
      "blockValue",
      "executionPayload",
      "executionRequests",
      "parentBeaconBlockRoot",
      "shouldOverrideBuilder",
    ]);
    const p = env.executionPayload;
    assertEquals(p.blockNumber, "0x1");
    assertEquals(p.withdrawals, []);
    assert(typeof p.withdrawalsRoot === "string" && p.withdrawalsRoot.length === 66);
    assertEquals(p.blobGasUsed, "0x0");
    assertEquals(env.executionRequests, []);
    const np = await t.call("engine_newPayloadV4", [p, [], env.parentBeaconBlockRoot, []]);
    assertEquals(np.body.result, { status: "VALID", latestValidHash: p.blockHash, validationError: null });
    const fcu2 = await t.call("engine_forkchoiceUpdatedV3", [{ ...state, headBlockHash: p.blockHash }, null]);
    assertEquals(fcu2.body.result, {
      payloadStatus: { status: "VALID", latestValidHash: p.blockHash, validationError: null },
      payloadId: null,
    });
    assertEquals(bytesToHex(t.engine.head().hash), p.blockHash);
  } finally {
    await t.close();
  }
});

Deno.test("engine rpc: errors carry the Engine API codes and name the bad field", async () => {
  const t = await setup();
  try {
    const head = bytesToHex(t.engine.head().hash);
    const state = { headBlockHash: head, safeBlockHash: head, finalizedBlockHash: head };
    const unknown = await t.call("engine_getPayloadV4", ["0x0300000000000001"]);
    assertEquals(unknown.body.error.code, -38001);
    assertEquals(unknown.body.error.message, "Unknown payload");
    const bad = await t.call("engine_forkchoiceUpdatedV3", [state, {
      timestamp: "0x01",
      prevRandao: head,
      suggestedFeeRecipient: "0x4200000000000000000000000000000000000011",
    }]);
    assertEquals(bad.body.error.code, -32602);
    assert(String(bad.body.error.message).includes("timestamp"), bad.body.error.message);
    const badState = await t.call("engine_forkchoiceUpdatedV3", [{ ...state, safeBlockHash: "0x12" }, null]);
    assertEquals(badState.body.error.code, -32602);
    assert(String(badState.body.error.message).includes("safeBlockHash"), badState.body.error.message);
    const missingRoot = await t.call("engine_forkchoiceUpdatedV3", [state, {
      timestamp: "0x5",
      prevRandao: head,
      suggestedFeeRecipient: "0x4200000000000000000000000000000000000011",
      withdrawals: [],
      gasLimit: "0x1c9c380",
    }]);
    assertEquals(missingRoot.body.error.code, -38003);
    assert(String(missingRoot.body.error.data.err).includes("parentBeaconBlockRoot"));
    const unknownHead = await t.call("engine_forkchoiceUpdatedV3", [{
      ...state,
      headBlockHash: "0x" + "11".repeat(32),
    }, null]);
    assertEquals(unknownHead.body.result.payloadStatus.status, "SYNCING");
  } finally {
    await t.close();
  }
});
