/**
 * Receipt fields that depend on the block: Jovian's daFootprintGasScalar and the transaction's DA
 * footprint as blobGasUsed (jovian/exec-engine.md, op-geth receipts), stored with the block and
 * served by the RPC formatter.
 */
import { estimatedDaSize, flzCompressLen } from "../../../../lib/protocol/mod.ts";
import { buildDevGenesis } from "../../../../lib/execution/genesis/mod.ts";
import { ExecutionEngine } from "../../../../lib/execution/engine/mod.ts";
import { decodeReceipts, encodeReceipts } from "../../../../lib/execution/chain/mod.ts";
import { formatReceipt } from "../../../../lib/execution/rpc/mod.ts";
import { assert, assertEquals } from "../../../assert.ts";
import { DevMiner, transfer } from "./helpers.ts";

Deno.test("engine: a Jovian user receipt carries daFootprintGasScalar and its DA footprint as blobGasUsed", async () => {
  const engine = await ExecutionEngine.open({ genesis: buildDevGenesis({ upTo: "jovian" }) });
  const miner = new DevMiner({}, { engine, now: () => 0 });
  try {
    const tx = transfer(engine, 0, 0n);
    await engine.pool.add(tx.serialize(), { local: true });
    const built = await miner.mine();
    assert(built !== undefined, "a block was sealed");
    const receipts = engine.chain.getReceipts(engine.head().hash)!;
    const user = receipts.find((r) => r.type === 2)!;
    const deposit = receipts.find((r) => r.type === 0x7e)!;
    assert(user.daFootprintGasScalar !== undefined && user.daFootprintGasScalar > 0n, "the scalar is set");
    // jovian/exec-engine.md "DA Footprint Block Limit": max(minSize, intercept + coef * fastlzSize) * scalar.
    const footprint = estimatedDaSize(BigInt(flzCompressLen(tx.serialize()))) * user.daFootprintGasScalar;
    assertEquals(user.blobGasUsed, footprint);
    assertEquals(
      engine.head().header.blobGasUsed,
      footprint,
      "the header sums the user transactions' footprints",
    );
    assertEquals(deposit.daFootprintGasScalar, undefined);
    assertEquals(deposit.blobGasUsed, undefined);
    // Stored and read back, then served.
    assertEquals(decodeReceipts(encodeReceipts(receipts)), receipts);
    const json = formatReceipt(user, engine.head(), receipts.indexOf(user));
    assertEquals(json.daFootprintGasScalar, "0x" + user.daFootprintGasScalar.toString(16));
    assertEquals(json.blobGasUsed, "0x" + footprint.toString(16));
  } finally {
    await miner.stop();
    await engine.close();
  }
});
