/**
 * trace_callMany, trace_rawTransaction and trace_get on `keel execution --dev` (reth's and erigon's
 * methods; anvil serves none of them): calls that see each other's writes, a signed transaction traced
 * without being sent, one trace of a mined transaction by its position; the chain untouched.
 */
import { assert, assertEquals } from "../assert.ts";
import { DEV_ADDRESS, rpcResult, sendAndWait, startKeelExecution } from "./helpers/mod.ts";

/** Creation code of a contract whose runtime stores calldata word 1 at the slot calldata word 0 names. */
const STORE = "0x600880600b6000396000f36020356000355500";
const word = (n: number) => "0x" + n.toString(16).padStart(64, "0");
const setSlot = (slot: number, value: number) => word(slot) + word(value).slice(2);

// deno-lint-ignore no-explicit-any
type Json = any;

Deno.test({
  name:
    "trace_callMany, trace_rawTransaction, trace_get: calls in sequence, a transaction not sent, one trace",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const node = await startKeelExecution({ ws: false });
    try {
      const url = node.httpUrl;
      const rpc = (method: string, params: unknown[]) => rpcResult(url, method, params);
      const send = (tx: Record<string, string>) => sendAndWait(url, { from: DEV_ADDRESS, ...tx });
      const contract: string = (await send({ data: STORE })).contractAddress;
      const mined = await send({ to: contract, data: setSlot(3, 9), gas: "0x20000" });

      // Two calls: the second sees the first's write (slot 1: 5, then 6).
      const many: Json[] = await rpc("trace_callMany", [[
        [{ from: DEV_ADDRESS, to: contract, data: setSlot(1, 5) }, ["trace", "stateDiff"]],
        [{ from: DEV_ADDRESS, to: contract, data: setSlot(1, 6) }, ["stateDiff"]],
      ], "latest"]);
      assertEquals(many.length, 2);
      assertEquals(many[0].trace[0].action.to, contract);
      assertEquals(many[0].stateDiff[contract].storage[word(1)], { "*": { from: word(0), to: word(5) } });
      assertEquals(many[1].stateDiff[contract].storage[word(1)], { "*": { from: word(5), to: word(6) } });
      assertEquals(many[1].trace, []);

      // A signed transaction traced, not sent.
      const nonce = await rpc("eth_getTransactionCount", [DEV_ADDRESS, "latest"]);
      const raw = await rpc("eth_signTransaction", [{
        from: DEV_ADDRESS,
        to: contract,
        data: setSlot(2, 7),
        nonce,
        gas: "0x20000",
        maxFeePerGas: "0x77359400",
        maxPriorityFeePerGas: "0x1",
      }]);
      const traced: Json = await rpc("trace_rawTransaction", [raw, ["trace", "stateDiff"]]);
      assertEquals(traced.trace[0].action.from, DEV_ADDRESS.toLowerCase());
      assertEquals(traced.stateDiff[contract].storage[word(2)], { "*": { from: word(0), to: word(7) } });
      assertEquals(await rpc("eth_getTransactionCount", [DEV_ADDRESS, "latest"]), nonce);
      for (const slot of ["0x1", "0x2"]) {
        assertEquals(await rpc("eth_getStorageAt", [contract, slot, "latest"]), word(0));
      }
      const bad = await rpc("trace_rawTransaction", ["0x02f8", ["trace"]]).then(
        () => "accepted",
        (e) => String(e),
      );
      assert(bad.includes("invalid raw transaction"), bad);

      // trace_get: trace_transaction's entry at that position; null past it, for several indices, unknown.
      const all: Json[] = await rpc("trace_transaction", [mined.transactionHash]);
      assertEquals(await rpc("trace_get", [mined.transactionHash, ["0x0"]]), all[0]);
      assertEquals(await rpc("trace_get", [mined.transactionHash, [all.length]]), null);
      assertEquals(await rpc("trace_get", [mined.transactionHash, [0, 0]]), null);
      assertEquals(await rpc("trace_get", ["0x" + "ab".repeat(32), [0]]), null);
    } catch (e) {
      console.error(node.output().slice(-4000));
      throw e;
    } finally {
      await node.stop();
    }
  },
});
