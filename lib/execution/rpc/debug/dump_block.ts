/**
 * debug_dumpBlock(block), as geth serves it (eth/api_debug.go DumpBlock): the first
 * ACCOUNT_RANGE_MAX_RESULTS accounts of a block's state whose address the node knows, in hashed-key
 * order, with code and storage, and `next` when there are more (state_dump.ts has the shape; continue
 * with debug_accountRange). The block is a tag or a number (rpc.BlockNumber, no hash); `pending` is the
 * latest block, as op-geth serves it without a pending block.
 */
import { defineMethod, s } from "../../../rpc/mod.ts";
import { resolveBlock, type TraceBackend } from "./backend.ts";
import { ACCOUNT_RANGE_MAX_RESULTS, dumpableState } from "./account_range.ts";
import { type Dump, dumpState } from "./state_dump.ts";

export function dumpBlock(backend: TraceBackend) {
  return defineMethod({
    name: "debug_dumpBlock",
    params: [s.blockNumber()] as const,
    handler: async ([block]): Promise<Dump> => {
      const { header } = resolveBlock(backend, block);
      return await dumpState(await dumpableState(backend, header), {
        skipCode: false,
        skipStorage: false,
        onlyWithAddresses: true,
        start: new Uint8Array(32),
        max: ACCOUNT_RANGE_MAX_RESULTS,
      });
    },
  });
}
