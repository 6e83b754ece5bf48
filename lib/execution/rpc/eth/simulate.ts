/** eth_simulateV1: blocks of calls on a block's state (../simulate.ts). */
import { defineMethod, RpcError, s, SchemaError } from "../../../rpc/mod.ts";
import { requireHeader } from "../backend.ts";
import type { EthContext } from "../backend.ts";
import { blockOverridesSchema, callArgsSchema, stateOverrideSchema } from "../call_args.ts";
import { type SimBlock, simulateV1 } from "../simulate.ts";

const blockStateCallSchema = s.object({
  blockOverrides: s.optional(blockOverridesSchema),
  stateOverrides: s.optional(stateOverrideSchema),
  calls: s.optional(s.array(callArgsSchema)),
});

/** What the node refuses rather than ignores (simulate.ts), spotted in the raw input. */
function rawChecks(raw: unknown): void {
  if (raw === null || typeof raw !== "object") return;
  const calls = (raw as { calls?: unknown }).calls;
  if (
    Array.isArray(calls) &&
    calls.some((c) => c !== null && typeof c === "object" && "blobVersionedHashes" in c)
  ) {
    throw new SchemaError("blob transactions are not supported by eth_simulateV1 here");
  }
  const b = (raw as { blockOverrides?: unknown }).blockOverrides as { withdrawals?: unknown } | undefined;
  if (b !== null && typeof b === "object" && Array.isArray(b.withdrawals) && b.withdrawals.length > 0) {
    throw new SchemaError("withdrawals are not supported in eth_simulateV1 blocks");
  }
}

const payloadSchema = s.object({
  blockStateCalls: s.array(
    s.custom<SimBlock>("BlockStateCall", (raw) => {
      rawChecks(raw);
      const b = blockStateCallSchema.parse(raw);
      return { blockOverrides: b.blockOverrides, stateOverrides: b.stateOverrides, calls: b.calls ?? [] };
    }),
  ),
  traceTransfers: s.optional(s.bool()),
  validation: s.optional(s.bool()),
  returnFullTransactions: s.optional(s.bool()),
});

export function ethSimulateV1(ctx: EthContext) {
  return defineMethod({
    name: "eth_simulateV1",
    params: [payloadSchema, s.optional(s.blockTag())] as const,
    handler: async ([payload, block]) => {
      if (payload.blockStateCalls.length === 0) throw RpcError.invalidParams("empty input");
      return await simulateV1(ctx, requireHeader(ctx.backend, block), payload.blockStateCalls, {
        validation: payload.validation === true,
        returnFullTransactions: payload.returnFullTransactions === true,
        traceTransfers: payload.traceTransfers === true,
      });
    },
  });
}
