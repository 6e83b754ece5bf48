/**
 * admin_exportChain / admin_importChain (geth AdminAPI) over two real dev engines: one node's blocks
 * exported to a chain file (gzip too) and imported by another with the same genesis, which ends on the
 * same head; geth's refusals (an existing file, `last` without `first`) and an import error's message.
 */
import { bytesToHex } from "../../../../lib/common/bytes.ts";
import { exportChain, importChain } from "../../../../lib/execution/engine/mod.ts";
import { adminNamespace } from "../../../../lib/execution/rpc/mod.ts";
import {
  DEFAULT_ENVELOPE_LIMITS,
  handleRpcValue,
  MethodRegistry,
  NOOP_LOGGER,
} from "../../../../lib/rpc/mod.ts";
import { assertEquals } from "../../../assert.ts";
import { type Node, open, transfer } from "./dev/dev_node.ts";

function admin(node: Node, datadir: string) {
  const engine = node.engine;
  const registry = new MethodRegistry([adminNamespace({
    clientVersion: "keel/test",
    chainId: engine.config.chainId,
    genesisHash: engine.genesisHash,
    chainConfigJson: () => undefined,
    headHash: () => engine.head().hash,
    datadir,
    exportChain: (path, first, last) => exportChain(engine, path, first, last),
    importChain: (path) => importChain(engine, path),
  })]);
  return async (method: string, params: unknown[]) =>
    JSON.parse(
      (await handleRpcValue({ jsonrpc: "2.0", id: 1, method, params }, {
        registry,
        limits: DEFAULT_ENVELOPE_LIMITS,
        logger: NOOP_LOGGER,
      }))!,
    );
}

Deno.test("admin_exportChain / admin_importChain: a node's chain into another, geth's refusals", async () => {
  const dirA = await Deno.makeTempDir({ prefix: "keel-admin-a-" });
  const dirB = await Deno.makeTempDir({ prefix: "keel-admin-b-" });
  const a = await open(dirA);
  const b = await open(dirB);
  try {
    for (let i = 0n; i < 3n; i++) {
      await a.call("eth_sendRawTransaction", [bytesToHex(transfer(a, i, 1n))]);
      await a.miner.idle();
    }
    const rpcA = admin(a, dirA);
    const rpcB = admin(b, dirB);
    const file = `${dirA}/chain.rlp.gz`;
    assertEquals((await rpcA("admin_exportChain", [file])).result, true);
    assertEquals(
      (await rpcA("admin_exportChain", [file])).error.message,
      "location would overwrite an existing export",
    );
    assertEquals(
      (await rpcA("admin_exportChain", [`${dirA}/x.rlp`, null, "0x2"])).error.message,
      "last cannot be specified without first",
    );
    assertEquals((await rpcA("admin_exportChain", [`${dirA}/part.rlp`, "0x1", "0x2"])).result, true);
    assertEquals((await rpcB("admin_importChain", [file])).result, true);
    assertEquals(b.engine.head().header.number, 3n);
    assertEquals(bytesToHex(b.engine.head().hash), bytesToHex(a.engine.head().hash));
    // Known blocks are skipped, and the head stays where it is (geth: a chain it has is not inserted).
    assertEquals((await rpcB("admin_importChain", [`${dirA}/part.rlp`])).result, true);
    assertEquals(b.engine.head().header.number, 3n);
    const missing = await rpcB("admin_importChain", [`${dirA}/none.rlp`]);
    assertEquals(missing.error.code, -32000);
    assertEquals(missing.error.message.includes("none.rlp"), true, missing.error.message);
  } finally {
    await a.close();
    await b.close();
    await Deno.remove(dirA, { recursive: true });
    await Deno.remove(dirB, { recursive: true });
  }
});
