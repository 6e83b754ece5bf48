/** A small rollup config for derivation tests: 2-second blocks, 3,600-block window, 600 s drift, 300-block channel timeout. */
import type { RollupConfig } from "../../../../lib/protocol/rollup_config.ts";

export function rollupFixture(forks: RollupConfig["forks"] = {}): RollupConfig {
  return {
    genesis: {
      l1: { hash: new Uint8Array(32).fill(1), number: 0n },
      l2: { hash: new Uint8Array(32).fill(2), number: 0n },
      l2Time: 0n,
      systemConfig: {} as RollupConfig["genesis"]["systemConfig"],
    },
    blockTime: 2n,
    maxSequencerDrift: 600n,
    seqWindowSize: 3600n,
    channelTimeoutBedrock: 300n,
    l1ChainId: 1n,
    l2ChainId: 10n,
    forks: { regolith: 0n, ...forks },
    batchInboxAddress: new Uint8Array(20),
    depositContractAddress: new Uint8Array(20),
    l1SystemConfigAddress: new Uint8Array(20),
    protocolVersionsAddress: new Uint8Array(20),
  };
}
