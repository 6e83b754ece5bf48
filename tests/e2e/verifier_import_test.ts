/**
 * A verifier as a real process under the baked permission set: `keel execution` on a data dir
 * receives a sequencer's blocks over the authenticated Engine API (engine_newPayloadV4, then
 * engine_forkchoiceUpdatedV3) and imports them with the state root computed, and the senders it never saw
 * recovered, on the helper threads the main thread starts for it (lib/node/threads.ts; the node Worker
 * may not start one itself).
 */
import { bytesToHex } from "../../lib/common/bytes.ts";
import { ExecutionEngine } from "../../lib/execution/engine/mod.ts";
import { envelopeToJson } from "../../lib/execution/engine/wire.ts";
import { buildDevGenesis } from "../../lib/execution/genesis/mod.ts";
import { assert, assertEquals } from "../assert.ts";
import { buildPayload, DevMiner, ExecutionEngineApi, transfer } from "../unit/execution/engine/helpers.ts";
import { engineCall, rpcCall, startKeelExecution } from "./helpers/keel_process.ts";

const SECRET = new Uint8Array(32).fill(7);

Deno.test("verifier process: blocks from engine_newPayloadV4 import with the state root on a helper thread", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-verifier-" });
  const genesis = buildDevGenesis({ upTo: "isthmus", timestamp: 1_700_000_000n });
  await Deno.writeTextFile(`${dir}/genesis.json`, JSON.stringify(genesis));
  await Deno.writeTextFile(`${dir}/jwt.hex`, bytesToHex(SECRET));
  // The sequencer, in this process.
  const seq = await ExecutionEngine.open({ genesis });
  const api = new ExecutionEngineApi({}, { engine: seq });
  const miner = new DevMiner({}, { engine: seq, now: () => 1_700_000_100 });
  const node = await startKeelExecution({
    dev: false,
    ws: false,
    args: [`--genesis=${dir}/genesis.json`, `--authrpc.jwtsecret=${dir}/jwt.hex`, "--log.format=logfmt"],
  }).catch(async (e) => {
    await seq.close();
    await Deno.remove(dir, { recursive: true });
    throw e;
  });
  const http = node.httpUrl;
  const auth = node.authUrl;
  try {
    let nonce = 0n;
    let last = "";
    for (let b = 0; b < 3; b++) {
      const txs = Array.from(
        { length: 100 },
        (_, i) => transfer(seq, 0, nonce++, { to: new Uint8Array(20).fill(0x20 + i) }).serialize(),
      );
      const { envelope } = await buildPayload(api, miner, (a) => {
        a.transactions = [...(a.transactions ?? []), ...txs];
      });
      const json = envelopeToJson(envelope, 4);
      const status = await engineCall(auth, SECRET, "engine_newPayloadV4", [
        json.executionPayload,
        [],
        json.parentBeaconBlockRoot,
        json.executionRequests,
      ]) as { status: string };
      assertEquals(status.status, "VALID", JSON.stringify(status));
      last = (json.executionPayload as { blockHash: string }).blockHash;
      const zero = bytesToHex(new Uint8Array(32));
      await engineCall(auth, SECRET, "engine_forkchoiceUpdatedV3", [{
        headBlockHash: last,
        safeBlockHash: zero,
        finalizedBlockHash: zero,
      }, null]);
      await seq.forkchoiceUpdate(envelope.executionPayload.blockHash);
    }
    const head = ((await rpcCall(http, "eth_getBlockByNumber", ["latest", false])) as {
      result: { hash: string; transactions: string[] };
    }).result;
    assertEquals(head.hash, last);
    assertEquals(head.transactions.length, 101); // the L1-info deposit and 100 transfers
    const recipient = bytesToHex(new Uint8Array(20).fill(0x20));
    const balance =
      ((await rpcCall(http, "eth_getBalance", [recipient, "latest"])) as { result: string }).result;
    assertEquals(BigInt(balance), 3000n);
    // Each import says where its state root was computed: on the helper thread.
    const imports = node.output().split("\n").filter((l) => l.includes("Imported new block"));
    assertEquals(imports.length, 3, node.output());
    assert(imports.every((l) => l.includes("stateRoot=worker")), imports.join("\n"));
    // The verifier never saw the transactions: all 100 senders of each block were recovered, on this
    // thread and on the helper thread (which starts from the last transaction).
    assert(imports.every((l) => l.includes("recovered=100")), imports.join("\n"));
    const helped = imports.map((l) => Number(/recoveredByHelper=(\d+)/.exec(l)?.[1] ?? "0"));
    assert(helped.some((n) => n > 0), imports.join("\n"));
  } finally {
    await node.stop();
    await seq.close();
    await Deno.remove(dir, { recursive: true });
  }
});
