/**
 * The rollup node's `admin` namespace (interfaces.md 4.4; registered only with --rpc.enable-admin):
 * admin_startSequencer, admin_stopSequencer, admin_sequencerActive (3.1 "Sequencer"),
 * admin_resetDerivationPipeline, admin_setLogLevel (the running log level), admin_postUnsafePayload (an
 * execution payload envelope inserted as the next unsafe block, as a gossiped one; one that does not extend
 * the unsafe head is refused, where op-node queues it), and op-node's admin_setRecoverMode (the sequencer's recover mode, as
 * --sequencer.recover), admin_conductorEnabled and admin_overrideLeader (op-conductor, --conductor.enabled). Without a sequencer (--sequencer.enabled false) the sequencer methods
 * answer -32000, as op-node's do on a verifier.
 */
import { BaseError } from "../../common/errors.ts";
import { setLogLevel } from "../../common/logger.ts";
import type { Namespace } from "../../rpc/mod.ts";
import { defineMethod, RpcError, s } from "../../rpc/mod.ts";

export interface AdminBackend {
  sequencer?: {
    readonly active: boolean;
    start(): Promise<void>;
    stop(): Promise<Uint8Array>;
    setRecoverMode(on: boolean): void;
    readonly conductorEnabled: boolean;
    overrideLeader(): void;
  };
  driver?: { requestReset(): void };
  /** Inserts an execution payload envelope as an unsafe block (admin_postUnsafePayload); throws why not. */
  postUnsafePayload?: (envelope: unknown) => Promise<void>;
}

function fail(e: unknown): never {
  if (e instanceof BaseError) throw RpcError.server(e.message);
  throw e;
}

export function adminNamespace(backend: AdminBackend): Namespace {
  const sequencer = () => {
    if (backend.sequencer === undefined) {
      throw RpcError.server("sequencer is not enabled (--sequencer.enabled)");
    }
    return backend.sequencer;
  };
  return {
    startSequencer: defineMethod({
      name: "admin_startSequencer",
      params: [],
      handler: async () => {
        await sequencer().start().catch(fail);
        return null;
      },
    }),
    stopSequencer: defineMethod({
      name: "admin_stopSequencer",
      params: [],
      handler: async () => {
        await sequencer().stop().catch(fail);
        return null;
      },
    }),
    sequencerActive: defineMethod({
      name: "admin_sequencerActive",
      params: [],
      handler: () => backend.sequencer?.active ?? false,
    }),
    setRecoverMode: defineMethod({
      name: "admin_setRecoverMode",
      params: [s.bool()],
      handler: ([on]) => {
        sequencer().setRecoverMode(on);
        return null;
      },
    }),
    conductorEnabled: defineMethod({
      name: "admin_conductorEnabled",
      params: [],
      handler: () => backend.sequencer?.conductorEnabled ?? false,
    }),
    overrideLeader: defineMethod({
      name: "admin_overrideLeader",
      params: [],
      handler: () => {
        sequencer().overrideLeader();
        return null;
      },
    }),
    resetDerivationPipeline: defineMethod({
      name: "admin_resetDerivationPipeline",
      params: [],
      handler: () => {
        if (backend.driver === undefined) {
          throw RpcError.server("derivation is not running: start the node with --l1");
        }
        backend.driver.requestReset();
        return null;
      },
    }),
    postUnsafePayload: defineMethod({
      name: "admin_postUnsafePayload",
      params: [s.unknown()],
      handler: async ([envelope]) => {
        if (backend.postUnsafePayload === undefined) {
          throw RpcError.server("derivation is not running: start the node with --l1");
        }
        try {
          await backend.postUnsafePayload(envelope);
        } catch (e) {
          fail(e);
        }
        return null;
      },
    }),
    setLogLevel: defineMethod({
      name: "admin_setLogLevel",
      params: [s.string()],
      handler: ([level]) => {
        // op-node: trace, debug, info, warn, error, crit (and keel's names and 0-5).
        try {
          setLogLevel(level);
        } catch (e) {
          fail(e);
        }
        return null;
      },
    }),
  };
}
