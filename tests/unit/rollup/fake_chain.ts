/**
 * A small fake chain for the rollup node's parts (driver, sequencer): the rollup fixture with a batcher,
 * L1 blocks 0, 1, 2, ... (12 s apart, hash-chained) and the L2 genesis.
 */
import { BaseError } from "../../../lib/common/errors.ts";
import type { L1BlockRef, L1Header, L2BlockRef } from "../../../lib/protocol/block_ref.ts";
import type { ExecutionPayload } from "../../../lib/protocol/engine.ts";
import type { RollupConfig } from "../../../lib/protocol/rollup_config.ts";
import { rollupFixture } from "./derive/rollup_fixture.ts";
import { testPayload } from "./p2p_helpers.ts";

export const BATCHER = new Uint8Array(20).fill(0xbb);
export const Z32 = new Uint8Array(32);

export function config(): RollupConfig {
  const cfg = rollupFixture();
  cfg.genesis.systemConfig = { batcherAddr: BATCHER, overhead: Z32, scalar: Z32, gasLimit: 30_000_000n };
  return cfg;
}

export const l1Ref = (n: bigint): L1BlockRef => ({
  hash: n === 0n ? new Uint8Array(32).fill(1) : new Uint8Array(32).fill(0x40 + Number(n)),
  number: n,
  parentHash: n === 0n ? Z32 : new Uint8Array(32).fill(n === 1n ? 1 : 0x40 + Number(n - 1n)),
  timestamp: n * 12n,
});

export const l1Header = (n: bigint): L1Header => ({ ...l1Ref(n), baseFeePerGas: 7n, mixHash: Z32 });

/** The L2 genesis block of `config()`. */
export const genesisPayload = (): ExecutionPayload => ({
  ...testPayload(0n, 0n),
  parentHash: Z32,
  blockHash: new Uint8Array(32).fill(2),
  transactions: [],
});

export const genesisRef = (): L2BlockRef => ({
  hash: new Uint8Array(32).fill(2),
  number: 0n,
  parentHash: Z32,
  timestamp: 0n,
  l1Origin: { hash: l1Ref(0n).hash, number: 0n },
  sequenceNumber: 0n,
});

export function notFound(what: unknown): never {
  throw new BaseError("L1_NOT_FOUND", `Cannot find L1 block ${String(what)}`);
}

/**
 * What a sequencer needs to build block 1 on the genesis of `config()`: an engine whose builds go through
 * `onBuild` (its rejection fails the build) and seal `built`, an L1 at block 100, the L2 at genesis.
 */
export function sequencerFakes(built: ExecutionPayload, onBuild: (attributes: unknown) => Promise<void>) {
  return {
    engine: {
      forkchoiceUpdated: async (_v: number, _state: unknown, attributes?: unknown) => {
        if (attributes === undefined) return { payloadStatus: { status: "VALID" }, payloadId: null };
        await onBuild(attributes);
        return { payloadStatus: { status: "VALID" }, payloadId: Uint8Array.of(1) };
      },
      getPayload: () => Promise.resolve({ executionPayload: built }),
      newPayload: () => Promise.resolve({ status: "VALID" }),
    },
    l1: {
      blockRef: (x: unknown) =>
        Promise.resolve(
          x === "latest" ? l1Ref(100n) : x instanceof Uint8Array || x === 0n ? l1Ref(0n) : l1Ref(x as bigint),
        ),
      header: () => Promise.resolve(l1Header(0n)),
      receipts: () => Promise.resolve([]),
    },
    l2: { headNumber: () => Promise.resolve(0n), payloadByNumber: () => Promise.resolve(genesisPayload()) },
    heads: () => ({ safe: genesisRef(), finalized: genesisRef() }),
  };
}
