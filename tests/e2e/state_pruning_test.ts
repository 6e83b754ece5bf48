/**
 * Online state pruning in a real process (`keel execution` on a data dir, `--gcmode full` by default,
 * under the baked permission set): a sequencer's blocks arrive over the Engine API, each made safe and
 * finalized; after 1,024 blocks a pass runs between imports, deletes the states older than the last 128,
 * and the chain goes on. `--gcmode archive` opens an engine that keeps every state (the unit tests show
 * that it does: tests/unit/execution/state/online_prune_test.ts).
 */
import { bytesToBigInt, createAddressFromString, setLengthLeft } from "@ethereumjs/util";
import { bytesToHex } from "../../lib/common/bytes.ts";
import { ExecutionEngine } from "../../lib/execution/engine/mod.ts";
import { envelopeToJson } from "../../lib/execution/engine/wire.ts";
import { buildDevGenesis } from "../../lib/execution/genesis/mod.ts";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { buildPayload, DevMiner, ExecutionEngineApi } from "../unit/execution/engine/helpers.ts";
import { engineCall, type KeelNode, rpcCall, startKeelExecution } from "./helpers/keel_process.ts";
import { until } from "./helpers/sequencer.ts";

const SECRET = new Uint8Array(32).fill(7);
const BLOCKS = 1_100;
/** An account the L1-info deposits of every block change: the L1Block predeploy's storage. */
const L1_BLOCK = "0x4200000000000000000000000000000000000015";

/** Feeds `node` BLOCKS blocks of the sequencer `seq`, each made head, safe and finalized. */
async function feed(node: KeelNode, seq: ExecutionEngine): Promise<void> {
  const api = new ExecutionEngineApi({}, { engine: seq });
  let time = 1_700_000_100;
  const miner = new DevMiner({}, { engine: seq, now: () => time });
  for (let b = 0; b < BLOCKS; b++) {
    time += 2;
    const { envelope } = await buildPayload(api, miner);
    const json = envelopeToJson(envelope, 4);
    const status = await engineCall(node.authUrl, SECRET, "engine_newPayloadV4", [
      json.executionPayload,
      [],
      json.parentBeaconBlockRoot,
      json.executionRequests,
    ]) as { status: string };
    assertEquals(status.status, "VALID", JSON.stringify(status));
    const hash = (json.executionPayload as { blockHash: string }).blockHash;
    await engineCall(node.authUrl, SECRET, "engine_forkchoiceUpdatedV3", [{
      headBlockHash: hash,
      safeBlockHash: hash,
      finalizedBlockHash: hash,
    }, null]);
    await seq.forkchoiceUpdate(envelope.executionPayload.blockHash);
  }
}

async function slotAt(
  node: KeelNode,
  block: number,
): Promise<{ result?: string; error?: { message: string } }> {
  return await rpcCall(node.httpUrl, "eth_getStorageAt", [L1_BLOCK, "0x1", `0x${block.toString(16)}`]) as {
    result?: string;
    error?: { message: string };
  };
}

Deno.test("state pruning in a process: --gcmode full (the default) prunes as blocks arrive", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-gcmode-" });
  const genesis = buildDevGenesis({ upTo: "isthmus", timestamp: 1_700_000_000n });
  await Deno.writeTextFile(`${dir}/genesis.json`, JSON.stringify(genesis));
  await Deno.writeTextFile(`${dir}/jwt.hex`, bytesToHex(SECRET));
  const seq = await ExecutionEngine.open({ genesis });
  let node: KeelNode | undefined;
  try {
    node = await startKeelExecution({
      dev: false,
      ws: false,
      args: [`--genesis=${dir}/genesis.json`, `--authrpc.jwtsecret=${dir}/jwt.hex`, "--log.format=logfmt"],
    });
    const running = node;
    assertStringIncludes(running.output(), "gcmode=full");
    await feed(running, seq);
    const head = Number(
      BigInt(((await rpcCall(running.httpUrl, "eth_blockNumber")) as { result: string }).result),
    );
    assertEquals(head, BLOCKS);
    await until(
      () => Promise.resolve(running.output().includes("Pruned state") ? true : undefined),
      "a pruning pass",
      () => running.output(),
      30_000,
    );
    const line = running.output().split("\n").find((l) => l.includes("Pruned state"))!;
    assert(Number(/deleted=(\d+)/.exec(line)?.[1] ?? "0") > 1000, line);
    const old = await slotAt(running, 10);
    assertStringIncludes(old.error?.message ?? "", "not in the database", JSON.stringify(old));
    // The recent states read, and the latest equals the sequencer's.
    assertEquals((await slotAt(running, head - 100)).error, undefined);
    const latest = await slotAt(running, head);
    const want = await (await seq.stateAt(seq.head().header)).getStorage(
      createAddressFromString(L1_BLOCK),
      setLengthLeft(new Uint8Array([1]), 32),
    );
    assertEquals(BigInt(latest.result!), bytesToBigInt(want));
  } finally {
    await node?.stop();
    await seq.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("state pruning in a process: --gcmode archive keeps every state", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-gcmode-" });
  const genesis = buildDevGenesis({ upTo: "isthmus", timestamp: 1_700_000_000n });
  await Deno.writeTextFile(`${dir}/genesis.json`, JSON.stringify(genesis));
  const node = await startKeelExecution({
    dev: false,
    ws: false,
    args: [`--genesis=${dir}/genesis.json`, "--log.format=logfmt", "--gcmode=archive"],
  });
  try {
    assertStringIncludes(node.output(), "gcmode=archive");
  } finally {
    await node.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
