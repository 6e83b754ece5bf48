/**
 * The sequencer's loop on a fake engine and L1 (lib/rollup/sequencer/sequencer.ts): it builds nothing
 * while the engine is in EL sync (op-node's EngineController.StartPayload refuses then) and builds on
 * its own once the sync is over.
 */
import type { ExecutionPayload } from "../../../lib/protocol/engine.ts";
import { Sequencer, type SequencerDeps } from "../../../lib/rollup/sequencer/mod.ts";
import { assertEquals } from "../../assert.ts";
import { config, genesisRef, sequencerFakes } from "./fake_chain.ts";
import { testPayload, until } from "./p2p_helpers.ts";

Deno.test("sequencer: no block is built while the engine EL-syncs; building starts when the sync is over", async () => {
  const cfg = config();
  const built: ExecutionPayload = { ...testPayload(1n, 2n), parentHash: genesisRef().hash, transactions: [] };
  const builds: unknown[] = [];
  const fakes = sequencerFakes(built, (attributes) => Promise.resolve(void builds.push(attributes)));
  let syncing = true;
  let asked = 0;
  const seq = new Sequencer(cfg, {
    ...fakes,
    // Block 1 is long due: only the sync holds the sequencer back.
    now: () => 1_000_000,
    syncing: () => {
      asked++;
      return syncing;
    },
  } as unknown as SequencerDeps, { l1Confs: 0 });
  await seq.open();
  try {
    await until("the sequencer to ask twice", () => Promise.resolve(asked >= 2));
    assertEquals(builds.length, 0);
    syncing = false;
    await until("a block built", () => Promise.resolve(builds.length >= 1));
  } finally {
    await seq.close();
  }
});
