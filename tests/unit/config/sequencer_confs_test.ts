/**
 * --sequencer.l1-confs takes any uint64 (spec 4.5; spec 8: a value above the max sequencer drift
 * prevents block production, it is not refused), and `keel node` warns at start when the depth in
 * seconds (confs × 12 s) exceeds the chain's max sequencer drift (lib/node/node_role.ts).
 */
import { ConfigError, parseArgs } from "../../../lib/config/mod.ts";
import { sequencerConfsWarning } from "../../../lib/node/node_role.ts";
import { rollupConfigFromPreset } from "../../../lib/protocol/mod.ts";
import { getNetworkPreset } from "../../../networks/mod.ts";
import { assert, assertEquals, assertStringIncludes, assertThrows } from "../../assert.ts";

function confs(...argv: string[]): bigint {
  const parsed = parseArgs(["node", "--network=op-mainnet", ...argv], {});
  if (parsed.command !== "node") throw new Error(parsed.command);
  return parsed.options.sequencerL1Confs;
}

Deno.test("--sequencer.l1-confs: any uint64, above 150 too; negatives and junk refused", () => {
  assertEquals(confs(), 4n);
  assertEquals(confs("--sequencer.l1-confs=150"), 150n);
  assertEquals(confs("--sequencer.l1-confs=151"), 151n);
  assertEquals(confs("--sequencer.l1-confs", "100000"), 100_000n);
  assertEquals(confs("--sequencer.l1-confs=18446744073709551615"), (1n << 64n) - 1n);
  const env = parseArgs(["node", "--network=op-mainnet"], { KEEL_SEQUENCER_L1_CONFS: "300" });
  assertEquals(env.command === "node" && env.options.sequencerL1Confs, 300n);
  for (const bad of ["-1", "1.5", "x", "18446744073709551616"]) {
    assertThrows(() => confs(`--sequencer.l1-confs=${bad}`), ConfigError, "sequencer.l1-confs");
  }
});

Deno.test("--sequencer.l1-confs: a warning when confs × 12 s exceed the max sequencer drift", () => {
  const cfg = rollupConfigFromPreset(getNetworkPreset("op-mainnet")!);
  const now = 2_000_000_000n; // Fjord active: the drift is 1800 s, 150 blocks of 12 s
  assertEquals(sequencerConfsWarning(cfg, 4n, now), undefined);
  assertEquals(sequencerConfsWarning(cfg, 150n, now), undefined);
  const w = sequencerConfsWarning(cfg, 151n, now);
  assert(w !== undefined);
  assertStringIncludes(w.message, "block production will stall");
  assertEquals(w.context, { confs: "151", seconds: "1812", drift: 1800, l1BlockTime: 12 });
  // Another L1 block time (a devnet's 2 s): 900 blocks fit in the drift.
  assertEquals(sequencerConfsWarning(cfg, 900n, now, 2n), undefined);
  assert(sequencerConfsWarning(cfg, 901n, now, 2n) !== undefined);
  // Before Fjord the config's own drift (600 s on OP Mainnet): 50 blocks.
  const preFjord = { ...cfg, forks: { ...cfg.forks, fjord: undefined, granite: undefined } };
  const old = { ...preFjord, maxSequencerDrift: 600n };
  assertEquals(sequencerConfsWarning(old, 50n, now), undefined);
  assertEquals(sequencerConfsWarning(old, 51n, now)?.context.drift, 600);
  // A value past 2^53 is reported exactly.
  assertEquals(sequencerConfsWarning(cfg, (1n << 64n) - 1n, now)?.context.confs, "18446744073709551615");
});
