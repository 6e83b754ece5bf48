/**
 * debug_dbGet (geth hash-scheme keys: a trie node by hash, `c` ‖ code hash) and debug_setHead on a real
 * engine with dev blocks: the node under the state root hashes to it, a predeploy's code comes back by
 * its code hash, other keys are "not found"; setHead rewinds the chain, brings safe and finalized down,
 * and the dropped blocks' transactions return to the pool.
 */
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { Address } from "@ethereumjs/util";
import { bytesToHex, keccak256 } from "../../../../../lib/common/mod.ts";
import { DevMiner, ExecutionEngine } from "../../../../../lib/execution/engine/mod.ts";
import { forkRules } from "../../../../../lib/execution/evm/mod.ts";
import { buildDevGenesis, deriveDevAccounts } from "../../../../../lib/execution/genesis/mod.ts";
import { debugNamespace } from "../../../../../lib/execution/rpc/debug/mod.ts";
import { DEFAULT_ETH_RPC_OPTIONS } from "../../../../../lib/execution/rpc/mod.ts";
import { L1_BLOCK_ADDRESS } from "../../../../../lib/protocol/mod.ts";
import {
  DEFAULT_ENVELOPE_LIMITS,
  handleRpcValue,
  MethodRegistry,
  NOOP_LOGGER,
} from "../../../../../lib/rpc/mod.ts";
import { assert, assertEquals } from "../../../../assert.ts";

const [DEV] = deriveDevAccounts(1);

Deno.test("debug_dbGet and debug_setHead", async () => {
  const engine = await ExecutionEngine.open({ genesis: buildDevGenesis({}) });
  const miner = new DevMiner({}, { engine, now: () => 1_000_000 });
  try {
    const registry = new MethodRegistry([debugNamespace({
      config: engine.config,
      chain: engine.chain,
      stateAt: (h) => engine.stateAt(h),
      setHead: (n) => engine.setHead(n),
      options: DEFAULT_ETH_RPC_OPTIONS,
    })]);
    const dispatch = { registry, limits: DEFAULT_ENVELOPE_LIMITS, logger: NOOP_LOGGER };
    const rpc = async (method: string, params: unknown[]) =>
      JSON.parse((await handleRpcValue({ jsonrpc: "2.0", id: 1, method, params }, dispatch))!);
    const send = async (nonce: bigint) => {
      const common = forkRules(engine.config, engine.head().header.timestamp + 1n).common;
      const raw = createFeeMarket1559Tx({
        chainId: engine.config.chainId,
        nonce,
        to: new Uint8Array(20).fill(5),
        value: 1n,
        gasLimit: 21_000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 10n ** 9n,
      }, { common }).sign(DEV.privateKey).serialize();
      await engine.pool.add(raw, { local: true });
      await miner.mine();
    };
    for (let i = 0n; i < 4n; i++) await send(i);
    const head = engine.head();
    assertEquals(head.header.number, 4n);

    // The state root's node, and a predeploy's code by its code hash.
    const node = (await rpc("debug_dbGet", [bytesToHex(head.header.stateRoot)])).result as string;
    assertEquals(bytesToHex(keccak256(Uint8Array.fromHex(node.slice(2)))), bytesToHex(head.header.stateRoot));
    const sm = await engine.stateAt(head.header);
    const account = await sm.getAccount(new Address(L1_BLOCK_ADDRESS));
    const code = await sm.getCode(new Address(L1_BLOCK_ADDRESS));
    assert(code.length > 0);
    const got = (await rpc("debug_dbGet", [`0x63${bytesToHex(account!.codeHash).slice(2)}`])).result;
    assertEquals(got, bytesToHex(code));
    assertEquals(
      (await rpc("debug_dbGet", [bytesToHex(new Uint8Array(32).fill(7))])).error.message,
      "not found",
    );
    assertEquals((await rpc("debug_dbGet", ["0x6800"])).error.message, "not found");

    // Rewind to block 2: blocks 3 and 4 leave the chain, their transactions are pooled again.
    assertEquals((await rpc("debug_setHead", ["0x2"])).result, null);
    assertEquals(engine.head().header.number, 2n);
    assertEquals(engine.chain.getHead("safe")!.number, 2n);
    assertEquals(engine.chain.getHead("finalized")!.number, 2n);
    assertEquals(engine.pool.status().pending, 2);
    assertEquals((await rpc("debug_setHead", ["0x9"])).error.message.includes("the head is block 2"), true);
  } finally {
    await miner.stop();
    await engine.close();
  }
});
