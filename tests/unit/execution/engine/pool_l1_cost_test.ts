import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { decodeDepositTx, encodeDepositTx } from "../../../../lib/protocol/deposit_tx.ts";
import { decodeL1InfoCalldata, encodeL1InfoCalldata } from "../../../../lib/protocol/l1_block_info.ts";
import { forkRules } from "../../../../lib/execution/evm/mod.ts";
import { ExecutionEngine } from "../../../../lib/execution/engine/mod.ts";
import { deriveDevAccounts } from "../../../../lib/execution/genesis/mod.ts";
import { assertEquals, assertRejects } from "../../../assert.ts";
import {
  buildPayload,
  DevMiner,
  ExecutionEngineApi,
  GWEI,
  isthmusGenesis,
  sendPayload,
  setHead,
} from "./helpers.ts";

// An account funded with exactly gas * maxFeePerGas + value: enough for L2 execution, not for the L1 fee.
const POOR = deriveDevAccounts(12)[11];
const VALUE = 1000n;
const GAS = 21000n;
const FEE_CAP = 10n * GWEI;

function poorGenesis() {
  const g = isthmusGenesis();
  g.alloc["0x" + [...POOR.address].map((b) => b.toString(16).padStart(2, "0")).join("")] = {
    balance: "0x" + (GAS * FEE_CAP + VALUE).toString(16),
  };
  return g;
}

Deno.test("engine pool: the L1 fee check follows the head's L1Block values", async () => {
  const engine = await ExecutionEngine.open({ genesis: poorGenesis() });
  const api = new ExecutionEngineApi({}, { engine });
  const miner = new DevMiner({}, { engine, now: () => 0 });
  try {
    const tx = () =>
      createFeeMarket1559Tx({
        chainId: engine.config.chainId,
        nonce: 0n,
        to: new Uint8Array(20).fill(0xaa),
        value: VALUE,
        gasLimit: GAS,
        maxFeePerGas: FEE_CAP,
        maxPriorityFeePerGas: GWEI,
      }, { common: forkRules(engine.config, engine.pendingRules().timestamp).common }).sign(POOR.privateKey);
    // The genesis L1Block holds a non-zero L1 base fee: the transaction cannot pay its L1 fee.
    await assertRejects(
      () => engine.pool.add(tx().serialize(), { local: true }),
      Error,
      "insufficient funds",
    );
    // A block whose L1-info deposit sets the L1 base fee and blob base fee to 0: the L1 fee is now 0.
    const { envelope } = await buildPayload(api, miner, (attrs) => {
      const dep = decodeDepositTx(attrs.transactions![0]);
      const { format, info } = decodeL1InfoCalldata(dep.data);
      info.baseFee = 0n;
      info.blobBaseFee = 0n;
      attrs.transactions![0] = encodeDepositTx({ ...dep, data: encodeL1InfoCalldata(format, info) });
    });
    assertEquals((await sendPayload(api, envelope)).status, "VALID");
    await setHead(api, envelope.executionPayload.blockHash);
    await engine.pool.add(tx().serialize(), { local: true });
    assertEquals(engine.pool.status().pending, 1);
  } finally {
    await miner.stop();
    await engine.close();
  }
});
