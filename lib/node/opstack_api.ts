/**
 * The experimental `opstack` block-building namespace of the rollup node (`--experimental.sequencer-api`),
 * method for method op-node's `opstackAPI` (op-node/node/api.go, op-node/rollup/engine/api.go) with the
 * error codes of op-service/apis/opstack.go, for an external test sequencer that builds, commits and
 * publishes blocks itself:
 * - `opstack_openBlockV1(parent {hash, number}, attributes)`: a build on `parent` (forkchoiceUpdated with
 *   the attributes, the driver's safe and finalized blocks) → `{id, timestamp}`;
 * - `opstack_cancelBlockV1(info)` and `opstack_sealBlockV1(info)`: the job dropped, or its payload
 *   (engine_getPayload) as `{executionPayload, parentBeaconBlockRoot}`;
 * - `opstack_commitBlockV1({envelope, signature})`: the block inserted (engine_newPayload) and made the
 *   unsafe head (forkchoiceUpdated);
 * - `opstack_publishBlockV1({envelope, signature})`: the block gossiped with the given signature.
 * Codes: -40100 temporary, -40101 pre-state (needs a reset; also invalid attributes, as op-node), -40110
 * invalid input, -40120 unknown payload, -40199 other.
 */
import { bytesToHex, hexToBytes } from "../common/bytes.ts";
import { BaseError } from "../common/errors.ts";
import {
  executionPayloadToJson,
  parseExecutionPayload,
  parsePayloadAttributes,
  payloadIdSchema,
  toEngineRpcError,
} from "../execution/engine/mod.ts";
import type { L2BlockRef } from "../protocol/block_ref.ts";
import type { EngineApi, ExecutionPayload } from "../protocol/engine.ts";
import type { RollupConfig } from "../protocol/rollup_config.ts";
import { engineVersions } from "../rollup/driver/mod.ts";
import { defineMethod, type Namespace, RpcError, s } from "../rpc/mod.ts";

/** op-service/apis/opstack.go. */
export const OPSTACK_ERRORS = {
  TEMPORARY: -40100,
  PRESTATE: -40101,
  INVALID_INPUT: -40110,
  UNKNOWN_PAYLOAD: -40120,
  OTHER: -40199,
} as const;

export interface OpstackBackend {
  cfg: RollupConfig;
  engine: EngineApi;
  /** The driver's safe and finalized blocks (kept in every forkchoice update). */
  heads(): { safe: L2BlockRef; finalized: L2BlockRef };
  /** Gossips a block with the given signature (the p2p host); undefined without p2p. */
  publish?(
    payload: ExecutionPayload,
    parentBeaconBlockRoot: Uint8Array | undefined,
    signature: Uint8Array,
  ): Promise<void>;
}

/** Go's uint64 in JSON: a plain number (eth.BlockID.Number, eth.PayloadInfo.Timestamp). */
const uint64 = s.custom("uint64", (v) => {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) {
    throw new BaseError(
      "INVALID_PARAMS",
      `json: cannot unmarshal ${JSON.stringify(v)} into Go value of type uint64`,
    );
  }
  return BigInt(v);
});
const blockId = s.object({ hash: s.hash(), number: uint64 });
const payloadInfo = s.object({ id: payloadIdSchema, timestamp: uint64 });
const signedEnvelope = s.object({
  envelope: s.object({
    executionPayload: s.custom("ExecutionPayload", parseExecutionPayload),
    parentBeaconBlockRoot: s.optional(s.hash()),
  }),
  signature: s.custom("eth.Bytes65", (v) => {
    const b = typeof v === "string" ? hexToBytes(v) : undefined;
    if (b?.length !== 65) throw new BaseError("INVALID_PARAMS", "signature: expected 65 bytes of hex");
    return b;
  }),
});

/** The Engine API error code of `e` (thrown by the embedded engine or answered by an external one). */
function engineCode(e: unknown): number | undefined {
  if (e instanceof BaseError && e.code === "RPC_ERROR") {
    return (e.meta as { code?: number } | undefined)?.code;
  }
  const rpc = toEngineRpcError(e);
  return rpc instanceof RpcError ? rpc.code : undefined;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export function opstackNamespace(b: OpstackBackend): Namespace {
  const seal = async (info: { id: Uint8Array; timestamp: bigint }, what: string) => {
    try {
      return await b.engine.getPayload(engineVersions(b.cfg, info.timestamp).get, info.id);
    } catch (e) {
      if (engineCode(e) === -38001) throw new RpcError(OPSTACK_ERRORS.UNKNOWN_PAYLOAD, "unknown payload");
      throw new RpcError(OPSTACK_ERRORS.OTHER, `failed to ${what} payload: ${message(e)}`);
    }
  };
  return {
    openBlockV1: defineMethod({
      name: "opstack_openBlockV1",
      params: [blockId, s.custom("PayloadAttributes", parsePayloadAttributes)] as const,
      handler: async ([parent, attributes]) => {
        const { safe, finalized } = b.heads();
        const v = engineVersions(b.cfg, attributes.timestamp);
        let r;
        try {
          r = await b.engine.forkchoiceUpdated(v.fcu, {
            headBlockHash: parent.hash,
            safeBlockHash: safe.hash,
            finalizedBlockHash: finalized.hash,
          }, attributes);
        } catch (e) {
          const code = engineCode(e);
          if (code === -38003 || code === -38005 || code === -38002) {
            throw new RpcError(OPSTACK_ERRORS.PRESTATE, `invalid payload attributes: ${message(e)}`);
          }
          throw new RpcError(
            OPSTACK_ERRORS.TEMPORARY,
            `temporarily cannot insert new safe block: ${message(e)}`,
          );
        }
        const status = r.payloadStatus;
        if (status.status === "SYNCING" || status.status === "ACCEPTED") {
          throw RpcError.server(
            `failed to retrieve parent block ${bytesToHex(parent.hash)}:${parent.number}`,
          );
        }
        if (status.status !== "VALID" || r.payloadId === null) {
          throw new RpcError(
            OPSTACK_ERRORS.PRESTATE,
            `need reset to resolve pre-state problem: ${status.status} ${status.validationError ?? ""}`
              .trim(),
          );
        }
        return { id: bytesToHex(r.payloadId), timestamp: Number(attributes.timestamp) };
      },
    }),
    cancelBlockV1: defineMethod({
      name: "opstack_cancelBlockV1",
      params: [payloadInfo] as const,
      handler: async ([info]) => {
        await seal(info, "cancel");
        return null;
      },
    }),
    sealBlockV1: defineMethod({
      name: "opstack_sealBlockV1",
      params: [payloadInfo] as const,
      handler: async ([info]) => {
        const envelope = await seal(info, "seal");
        const out: Record<string, unknown> = {
          executionPayload: executionPayloadToJson(envelope.executionPayload),
        };
        if (envelope.parentBeaconBlockRoot !== undefined) {
          out.parentBeaconBlockRoot = bytesToHex(envelope.parentBeaconBlockRoot);
        }
        return out;
      },
    }),
    commitBlockV1: defineMethod({
      name: "opstack_commitBlockV1",
      params: [signedEnvelope] as const,
      handler: async ([signed]) => {
        const p = signed.envelope.executionPayload;
        const root = signed.envelope.parentBeaconBlockRoot;
        const v = engineVersions(b.cfg, p.timestamp);
        let status;
        try {
          status = v.newPayload === 2
            ? await b.engine.newPayload(2, p)
            : await b.engine.newPayload(v.newPayload, p, [], root, v.newPayload === 4 ? [] : undefined);
        } catch (e) {
          throw RpcError.server(`failed to insert payload: ${message(e)}`);
        }
        if (status.status !== "VALID" && status.status !== "SYNCING" && status.status !== "ACCEPTED") {
          throw new RpcError(
            OPSTACK_ERRORS.INVALID_INPUT,
            `block ${bytesToHex(p.blockHash)}:${p.blockNumber} is ${status.status}: ${
              status.validationError ?? ""
            }`,
          );
        }
        const { safe, finalized } = b.heads();
        try {
          await b.engine.forkchoiceUpdated(v.fcu, {
            headBlockHash: p.blockHash,
            safeBlockHash: safe.hash,
            finalizedBlockHash: finalized.hash,
          });
        } catch (e) {
          throw RpcError.server(`failed to update engine forkchoice: ${message(e)}`);
        }
        return null;
      },
    }),
    publishBlockV1: defineMethod({
      name: "opstack_publishBlockV1",
      params: [signedEnvelope] as const,
      handler: async ([signed]) => {
        if (b.publish === undefined) {
          throw RpcError.server("p2p is disabled (--p2p.disable): nothing to publish on");
        }
        try {
          await b.publish(
            signed.envelope.executionPayload,
            signed.envelope.parentBeaconBlockRoot,
            signed.signature,
          );
        } catch (e) {
          throw RpcError.server(`failed to publish block: ${message(e)}`);
        }
        return null;
      },
    }),
  };
}
