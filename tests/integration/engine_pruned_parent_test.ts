/**
 * A payload on a parent whose state was pruned (`--gcmode full` keeps the recent states only): the
 * engine cannot execute it, which does not make it invalid. newPayload answers SYNCING, as geth does
 * for a parent state it lacks, and nothing is remembered as bad: the chain goes on.
 */
import { isthmusGenesis } from "../unit/execution/engine/helpers.ts";
import { ExecutionEngine } from "../../lib/execution/engine/mod.ts";
import { pruneState } from "../../lib/execution/state/prune.ts";
import { assertEquals } from "../assert.ts";
import {
  buildPayload,
  DevMiner,
  ExecutionEngineApi,
  sendPayload,
  setHead,
} from "../unit/execution/engine/helpers.ts";

Deno.test("engine api: a payload on a pruned parent state is SYNCING, not INVALID, the head cannot move there; the chain goes on", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-pruned-parent-" });
  const genesis = isthmusGenesis();
  const seq = await ExecutionEngine.open({ genesis });
  const ver = await ExecutionEngine.open({ genesis, dataDir: dir });
  try {
    const seqApi = new ExecutionEngineApi({}, { engine: seq });
    const verApi = new ExecutionEngineApi({}, { engine: ver });
    let time = 100;
    const miner = new DevMiner({}, { engine: seq, now: () => time });
    const hashes: Uint8Array[] = [seq.genesisHash];
    for (let i = 1; i <= 6; i++) {
      time += 2;
      const { envelope } = await buildPayload(seqApi, miner);
      assertEquals((await sendPayload(verApi, envelope)).status, "VALID");
      await setHead(verApi, envelope.executionPayload.blockHash);
      await seq.forkchoiceUpdate(envelope.executionPayload.blockHash);
      hashes.push(envelope.executionPayload.blockHash);
    }
    // A sibling of block 3, on block 2, whose state the verifier is about to lose.
    time += 1;
    const { envelope: sibling } = await buildPayload(seqApi, miner, undefined, hashes[2]);
    pruneState(ver.store, [ver.head().header.stateRoot]);
    const status = await sendPayload(verApi, sibling);
    assertEquals(status.status, "SYNCING", status.validationError ?? "");
    // The head cannot move to a block whose state is gone: SYNCING, the head stays.
    const back = await verApi.forkchoiceUpdated(3, {
      headBlockHash: hashes[2],
      safeBlockHash: new Uint8Array(32),
      finalizedBlockHash: new Uint8Array(32),
    });
    assertEquals(back.payloadStatus.status, "SYNCING");
    assertEquals(ver.head().header.number, 6n);
    // Not remembered as bad: asked again, the same answer; and the head's child imports.
    assertEquals((await sendPayload(verApi, sibling)).status, "SYNCING");
    time += 2;
    const { envelope: next } = await buildPayload(seqApi, miner, undefined, hashes[6]);
    assertEquals((await sendPayload(verApi, next)).status, "VALID");
  } finally {
    await seq.close();
    await ver.close();
    await Deno.remove(dir, { recursive: true });
  }
});
