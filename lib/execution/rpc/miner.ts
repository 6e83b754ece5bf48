/**
 * The miner namespace as op-geth serves it to op-batcher (eth/api_miner.go): `miner_setMaxDASize
 * [maxTxSize, maxBlockSize]` sets the sequencer's data-availability limits (engine/pool_link.ts DaLimits:
 * estimated DA bytes, 0 for none) and answers true. op-batcher's throttling calls it on the sequencer's
 * execution client and stops when the method is missing. Served with `--http.api miner` (or `--ws.api`).
 */
import { defineMethod, type Namespace, s } from "../../rpc/mod.ts";

/** What the miner methods change: the engine's DA limits (ExecutionEngine.daLimits). */
export interface MinerBackend {
  daLimits: { maxTxSize: bigint; maxBlockSize: bigint };
}

function setMaxDASize(backend: MinerBackend) {
  return defineMethod({
    name: "miner_setMaxDASize",
    params: [s.quantity(), s.quantity()],
    handler: ([maxTxSize, maxBlockSize]) => {
      backend.daLimits.maxTxSize = maxTxSize;
      backend.daLimits.maxBlockSize = maxBlockSize;
      return true;
    },
  });
}

export function minerNamespace(backend: MinerBackend): Namespace {
  const defs = [setMaxDASize(backend)];
  return Object.fromEntries(defs.map((d) => [d.name, d]));
}
