/**
 * The rest of the Parity trace namespace as reth and erigon serve it: trace_callMany (calls run one
 * after the other on a block's state, each seeing what the ones before it wrote), trace_rawTransaction
 * (a signed transaction traced as a call from its sender, not sent), and trace_get (one trace of a
 * mined transaction by its position).
 */
import type { TypedTransaction } from "@ethereumjs/tx";
import { defineMethod, RpcError, s, SchemaError } from "../../../rpc/mod.ts";
import { authorizationSchema } from "../call_authorizations.ts";
import {
  callArgsSchema,
  type CallMessage,
  replayCall,
  resolveBlock,
  toCallMessage,
  type TraceBackend,
} from "../debug/mod.ts";
import { authorizationsJson, decodeTx, isDepositTx } from "../format.ts";
import { runWithTypes, type TraceResults, traceTypesSchema } from "./replay_results.ts";
import type { LocalizedTrace } from "./parity.ts";
import { transactionTraces } from "./trace_transaction.ts";

const latest = { kind: "tag", tag: "latest" } as const;

/** One entry of trace_callMany: `[call, traceTypes]`. */
const callAndTypes = s.custom("[call, traceTypes]", (v) => {
  if (!Array.isArray(v) || v.length !== 2) throw new SchemaError("want [call, traceTypes]");
  return [callArgsSchema.parse(v[0]), traceTypesSchema.parse(v[1])] as const;
});

/** trace_callMany [[call, types], ...] [block]: the calls in order on one state. */
export function traceCallMany(backend: TraceBackend) {
  return defineMethod({
    name: "trace_callMany",
    params: [s.array(callAndTypes), s.optional(s.blockTag())] as const,
    handler: async ([calls, tag]): Promise<TraceResults[]> => {
      const { header } = resolveBlock(backend, tag ?? latest);
      // One state for all: each call's changes stay (uncommitted, never written) for the next.
      const sm = await backend.stateAt(header);
      const shared = { ...backend, stateAt: () => Promise.resolve(sm) };
      const out: TraceResults[] = [];
      for (const [call, types] of calls) {
        const msg = toCallMessage(call);
        out.push(
          await runWithTypes(
            types,
            (options) => replayCall(shared, header, msg, options),
            backend.options.evmTimeoutMs,
          ),
        );
      }
      return out;
    },
  });
}

/** The call a signed transaction makes: its sender, fields and fees. */
function callOf(tx: TypedTransaction): CallMessage {
  const msg: CallMessage = {
    from: tx.getSenderAddress().bytes,
    to: tx.to?.bytes ?? null,
    gas: tx.gasLimit,
    value: tx.value,
    data: tx.data,
  };
  if ("maxFeePerGas" in tx) {
    msg.maxFeePerGas = tx.maxFeePerGas;
    msg.maxPriorityFeePerGas = tx.maxPriorityFeePerGas;
  } else msg.gasPrice = (tx as { gasPrice: bigint }).gasPrice;
  if ("accessList" in tx) {
    msg.accessList = (tx.accessList as [Uint8Array, Uint8Array[]][]).map(([address, storageKeys]) => ({
      address,
      storageKeys,
    }));
  }
  if (tx.type === 4) msg.authorizationList = authorizationsJson(tx).map((a) => authorizationSchema.parse(a));
  return msg;
}

/** trace_rawTransaction rawTx types [block]: the transaction traced on the block's state (latest), not sent. */
export function traceRawTransaction(backend: TraceBackend) {
  return defineMethod({
    name: "trace_rawTransaction",
    params: [s.hex(), traceTypesSchema, s.optional(s.blockTag())] as const,
    handler: async ([raw, types, tag]): Promise<TraceResults> => {
      let tx;
      try {
        tx = decodeTx(raw, backend.config.chainId);
      } catch (e) {
        throw RpcError.invalidParams(`invalid raw transaction: ${(e as Error).message}`);
      }
      if (isDepositTx(tx)) throw RpcError.invalidParams("a deposit transaction cannot be traced as a call");
      const { header } = resolveBlock(backend, tag ?? latest);
      const msg = callOf(tx);
      return await runWithTypes(
        types,
        (options) => replayCall(backend, header, msg, options),
        backend.options.evmTimeoutMs,
      );
    },
  });
}

/**
 * trace_get txHash [index]: the trace at that position of trace_transaction's list; null when the
 * transaction is unknown, the position past the list, or more than one index is given (reth).
 */
export function traceGet(backend: TraceBackend) {
  return defineMethod({
    name: "trace_get",
    params: [s.hash(), s.array(s.hexOrDecimal())] as const,
    handler: async ([hash, indices]): Promise<LocalizedTrace | null> => {
      if (indices.length !== 1) return null;
      const traces = await transactionTraces(backend, hash);
      return traces?.[Number(indices[0])] ?? null;
    },
  });
}
