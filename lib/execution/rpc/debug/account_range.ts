/**
 * debug_accountRange(block, start, maxResults, nocode, nostorage, incompletes), as geth serves it
 * (eth/api_debug.go AccountRange): the accounts of a block's state in hashed-key order from `start`
 * (a hashed key, 0x-hex, left-padded to 32 bytes as geth's common.BytesToHash does), at most
 * `maxResults`, with `next` to continue from (state_dump.ts has the shape). The block is a tag, a number
 * or a hash (rpc.BlockNumberOrHash); `pending` is the latest block, as op-geth serves it without a
 * pending block. As geth, a `maxResults` of 0 or less, or above ACCOUNT_RANGE_MAX_RESULTS, gives
 * ACCOUNT_RANGE_MAX_RESULTS; `incompletes` lists the accounts whose address the node does not know too
 * (under `pre(<hashed key>)`). All six arguments are required, as geth's.
 */
import { setLengthLeft } from "@ethereumjs/util";
import { BaseError } from "../../../common/mod.ts";
import type { Header } from "../../../protocol/mod.ts";
import { defineMethod, RpcError, s } from "../../../rpc/mod.ts";
import { KeelStateManager } from "../../state/mod.ts";
import { resolveBlock, type TraceBackend } from "./backend.ts";
import { type Dump, dumpState } from "./state_dump.ts";

/** geth eth/api_debug.go AccountRangeMaxResults: the most accounts one call gives. */
export const ACCOUNT_RANGE_MAX_RESULTS = 256;

/** A Go `int` (a JSON number, integral), as geth decodes maxResults. */
const goInt = () =>
  s.custom("int", (v) => {
    if (typeof v !== "number") {
      throw new BaseError(
        "RPC_BAD_INT",
        `json: cannot unmarshal ${typeof v === "boolean" ? "bool" : typeof v} into Go value of type int`,
      );
    }
    if (!Number.isSafeInteger(v)) {
      throw new BaseError("RPC_BAD_INT", `json: cannot unmarshal number ${v} into Go value of type int`);
    }
    return v;
  });

/** A hashed account key: hexutil.Bytes of at most 32 bytes. */
const hashedKey = () =>
  s.custom("hashedKey", (v) => {
    const bytes = s.hex().parse(v);
    if (bytes.length > 32) {
      throw new BaseError("RPC_BAD_KEY", `start key has ${bytes.length} bytes, want at most 32`);
    }
    return setLengthLeft(bytes, 32);
  });

/** The state at `header` on the node's own database, or geth's kind of error. */
export async function dumpableState(backend: TraceBackend, header: Header): Promise<KeelStateManager> {
  const sm = await backend.stateAt(header);
  if (!(sm instanceof KeelStateManager) || sm.nodeDb === undefined) {
    throw RpcError.server("the state dump needs the node's own state database");
  }
  return sm;
}

export function accountRange(backend: TraceBackend) {
  return defineMethod({
    name: "debug_accountRange",
    params: [s.blockTag(), hashedKey(), goInt(), s.bool(), s.bool(), s.bool()] as const,
    handler: async ([block, start, maxResults, nocode, nostorage, incompletes]): Promise<Dump> => {
      const { header } = resolveBlock(backend, block);
      const sm = await dumpableState(backend, header);
      const max = maxResults <= 0 || maxResults > ACCOUNT_RANGE_MAX_RESULTS
        ? ACCOUNT_RANGE_MAX_RESULTS
        : maxResults;
      return await dumpState(sm, {
        skipCode: nocode,
        skipStorage: nostorage,
        onlyWithAddresses: !incompletes,
        start,
        max,
      });
    },
  });
}
