/**
 * eth_sendRawTransactionConditional [raw, conditional] (op-geth internal/sequencerapi, served with
 * `--rollup.sequencertxconditionalenabled`): a signed transaction with preconditions (txpool/
 * tx_conditional.ts). Refused with -32005 when the conditional asks for more than 1,000 lookups, -32003
 * when its ranges are malformed, when the head's header fails them or when the head's parent's state
 * fails the known accounts (the parent's, as op-geth: no advantage over eth_sendRawTransaction in racing
 * the head). Then forwarded to the sequencer (`--rollup.sequencerhttp`), or put in the pool with its
 * conditional, checked again when a block takes it.
 */
import { bytesToHex, type Hex, keccak256 } from "../../../common/mod.ts";
import { defineMethod, RpcError, s, SchemaError } from "../../../rpc/mod.ts";
import {
  conditionalCost,
  conditionalRangeError,
  headerConditionalError,
  type KnownAccount,
  stateConditionalError,
  TX_CONDITIONAL_COST_EXCEEDED,
  TX_CONDITIONAL_MAX_COST,
  TX_CONDITIONAL_REJECTED,
  type TxConditional,
} from "../../txpool/mod.ts";
import { type EthContext, requireHeader } from "../backend.ts";
import { submitRawTransaction } from "./send_raw_transaction.ts";

const HASH = /^0x[0-9a-fA-F]{64}$/;

function hash32(v: unknown, what: string): Uint8Array {
  if (typeof v !== "string" || !HASH.test(v)) throw new SchemaError(`${what}: want a 32-byte hex string`);
  return s.hash().parse(v);
}

/** A number as Go's math.HexOrDecimal: a hex or decimal string (or a JSON number). */
function hexOrDecimal(v: unknown, what: string): bigint | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === "string" && /^(0[xX][0-9a-fA-F]+|[0-9]+)$/.test(v)) return BigInt(v);
  throw new SchemaError(`${what}: want a hex or decimal number`);
}

/** The conditional object (op-geth TransactionConditional JSON). */
export const conditionalSchema = s.custom<TxConditional>("conditional", (v) => {
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    throw new SchemaError("want a conditional object");
  }
  const o = v as Record<string, unknown>;
  const known = o.knownAccounts ?? {};
  if (typeof known !== "object" || known === null || Array.isArray(known)) {
    throw new SchemaError("knownAccounts: want an object of address to storage root or slots");
  }
  const knownAccounts: KnownAccount[] = Object.entries(known).map(([a, want]) => {
    const address = s.address().parse(a);
    if (typeof want === "string") return { address, storageRoot: hash32(want, `knownAccounts ${a}`) };
    if (typeof want !== "object" || want === null || Array.isArray(want)) {
      throw new SchemaError(`knownAccounts ${a}: want a storage root or an object of slot to value`);
    }
    const slots = Object.entries(want).map(([k, value]): [Uint8Array, Uint8Array] => [
      hash32(k, `knownAccounts ${a} slot`),
      hash32(value, `knownAccounts ${a} slot ${k}`),
    ]);
    return { address, slots };
  });
  return {
    knownAccounts,
    blockNumberMin: hexOrDecimal(o.blockNumberMin, "blockNumberMin"),
    blockNumberMax: hexOrDecimal(o.blockNumberMax, "blockNumberMax"),
    timestampMin: hexOrDecimal(o.timestampMin, "timestampMin"),
    timestampMax: hexOrDecimal(o.timestampMax, "timestampMax"),
  };
});

const rejected = (message: string) => new RpcError(TX_CONDITIONAL_REJECTED, message);

export function ethSendRawTransactionConditional(ctx: EthContext) {
  return defineMethod({
    name: "eth_sendRawTransactionConditional",
    params: [s.hex(), s.unknown()],
    handler: async ([raw, json]): Promise<Hex> => {
      let cond: TxConditional;
      try {
        cond = conditionalSchema.parse(json);
      } catch (e) {
        throw RpcError.invalidParams(`invalid argument 1: ${(e as Error).message}`);
      }
      const cost = conditionalCost(cond);
      if (cost > TX_CONDITIONAL_MAX_COST) {
        throw new RpcError(
          TX_CONDITIONAL_COST_EXCEEDED,
          `conditional cost, ${cost}, exceeded max: ${TX_CONDITIONAL_MAX_COST}`,
        );
      }
      const range = conditionalRangeError(cond);
      if (range !== undefined) throw rejected(`failed conditional validation: ${range}`);
      const backend = ctx.backend;
      const head = requireHeader(backend, undefined).header;
      const headerFailure = headerConditionalError(cond, head);
      if (headerFailure !== undefined) throw rejected(`failed header check: ${headerFailure}`);
      const parent = backend.chain.getHeaderByHash(head.parentHash) ?? head;
      const stateFailure = await stateConditionalError(cond, await ctx.states.read(parent));
      if (stateFailure !== undefined) {
        throw rejected(`failed parent block ${bytesToHex(head.parentHash)} state check: ${stateFailure}`);
      }
      if (backend.sequencer !== undefined) return await backend.sequencer.forwardConditional(raw, json);
      const registry = backend.txConditionals!;
      const hash = bytesToHex(keccak256(raw));
      // Registered first: a block built before the pool call returns already checks it.
      registry.set(hash, cond);
      try {
        return await submitRawTransaction(ctx, raw);
      } catch (e) {
        registry.delete(hash);
        throw e;
      }
    },
  });
}
