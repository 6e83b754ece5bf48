/**
 * evm_snapshot and evm_revert (anvil, hardhat; anvil_snapshot and anvil_revert the same): a snapshot records the head (and its state, the dev
 * clock); reverting makes that block the head again, drops the blocks after it (their transactions do
 * not return to the pool) and forgets this snapshot and every later one. An unknown id answers false.
 */
import { defineMethod } from "../../../rpc/mod.ts";
import type { DevContext } from "./backend.ts";
import { q } from "../format.ts";
import { devQuantity } from "./quantity.ts";

export function evmSnapshot(ctx: DevContext, name = "evm_snapshot") {
  return defineMethod({
    name,
    params: [],
    handler: () =>
      ctx.miner.exclusive(() => {
        const head = ctx.chain.head();
        const id = ctx.nextSnapshot++;
        ctx.snapshots.set(id, {
          hash: head.hash,
          number: Number(head.header.number),
          root: ctx.chain.irregular.get(head.hash),
          offset: ctx.miner.clock.offset,
          timestampInterval: ctx.miner.timestampInterval,
          gasLimit: ctx.miner.gasLimit,
        });
        return Promise.resolve(q(id));
      }),
  });
}

export function evmRevert(ctx: DevContext, name = "evm_revert") {
  return defineMethod({
    name,
    params: [devQuantity()],
    handler: ([id]) =>
      ctx.miner.exclusive(async () => {
        const snap = ctx.snapshots.get(id);
        if (snap === undefined) return false;
        for (const k of [...ctx.snapshots.keys()]) if (k >= id) ctx.snapshots.delete(k);
        await ctx.chain.revertTo(snap.hash, snap.root);
        ctx.miner.clock.offset = snap.offset;
        ctx.miner.setTimestampInterval(snap.timestampInterval);
        ctx.miner.restoreAfterRevert(snap.gasLimit);
        return true;
      }),
  });
}
