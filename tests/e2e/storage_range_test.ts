/**
 * debug_storageRangeAt on `keel execution --dev` (geth's method; anvil has none): a contract's storage
 * before a given transaction of a block, in hashed-key order, paged with nextKey, the slots named (a dev
 * chain records them), and the database left as it was.
 */
import { keccak256 } from "../../lib/common/hash.ts";
import { bytesToHex, hexToBytes } from "../../lib/common/bytes.ts";
import { assert, assertEquals } from "../assert.ts";
import { DEV_ADDRESS, rpcCall, rpcResult, sendAndWait, startKeelExecution } from "./helpers/mod.ts";

/** Creation code of a contract whose runtime stores calldata word 1 at the slot calldata word 0 names. */
const STORE = "0x600880600b6000396000f36020356000355500";

const word = (n: number) => "0x" + n.toString(16).padStart(64, "0");
const hashed = (n: number) => bytesToHex(keccak256(hexToBytes(word(n) as `0x${string}`)));

Deno.test({
  name: "debug_storageRangeAt: a contract's storage before a transaction, paged in hashed-key order",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const node = await startKeelExecution({ ws: false });
    try {
      const url = node.httpUrl;
      const send = (tx: Record<string, string>) => sendAndWait(url, { from: DEV_ADDRESS, ...tx });
      const store = (slot: number, value: number) =>
        send({ to: contract, data: word(slot) + word(value).slice(2), gas: "0x20000" });
      const deployed = await send({ data: STORE });
      const contract: string = deployed.contractAddress;
      await store(1, 0x11);
      const second = await store(2, 0x22);
      const third = await store(1, 0);
      const range = (block: string, index: number, start: string, max: number) =>
        rpcResult(url, "debug_storageRangeAt", [block, index, contract, start, max]);

      // Before the second store (index 1: after the block's L1-info deposit): slot 1 only.
      const before = await range(second.blockHash, 1, "0x00", 10);
      assertEquals(before, {
        storage: { [hashed(1)]: { key: word(1), value: word(0x11) } },
        nextKey: null,
      });
      // After it (the index past the block's last transaction): both, in hashed-key order.
      const after = await range(second.blockHash, 2, "0x", 10);
      const keys = [hashed(1), hashed(2)].sort();
      assertEquals(Object.keys(after.storage), keys);
      assertEquals(after.storage[hashed(2)], { key: word(2), value: word(0x22) });
      assertEquals(after.nextKey, null);
      // One at a time: the first page names the next key; it starts the second.
      const first = await range(second.blockHash, 2, "0x00", 1);
      assertEquals([Object.keys(first.storage), first.nextKey], [[keys[0]], keys[1]]);
      const rest = await range(second.blockHash, 2, first.nextKey, 1);
      assertEquals([Object.keys(rest.storage), rest.nextKey], [[keys[1]], null]);
      // Slot 1 cleared by the third store.
      const cleared = await range(third.blockHash, 2, "0x00", 10);
      assertEquals(Object.keys(cleared.storage), [hashed(2)]);
      // An account without storage.
      assertEquals(
        await rpcResult(url, "debug_storageRangeAt", [second.blockHash, 1, DEV_ADDRESS, "0x00", 10]),
        { storage: {}, nextKey: null },
      );
      // Errors: an unknown block, an index past the block.
      const unknown = await rpcCall(url, "debug_storageRangeAt", [
        "0x" + "11".repeat(32),
        0,
        contract,
        "0x",
        1,
      ]);
      assert((unknown as { error?: { message: string } }).error?.message.includes("not found"));
      const past = await rpcCall(url, "debug_storageRangeAt", [second.blockHash, 9, contract, "0x", 1]);
      assert((past as { error?: { message: string } }).error?.message.includes("out of range"));
      // The replays ran on a throwaway layer: the head's storage is as the chain left it.
      assertEquals(await rpcResult(url, "eth_getStorageAt", [contract, "0x1", "latest"]), word(0));
      assertEquals(await rpcResult(url, "eth_getStorageAt", [contract, "0x2", "latest"]), word(0x22));
    } catch (e) {
      console.error(node.output().slice(-4000));
      throw e;
    } finally {
      await node.stop();
    }
  },
});
