/**
 * The dev methods (evm_*, anvil_*, hardhat_*) over a real ExecutionEngine on a sqlite file and its
 * DevMiner, through the RPC core: state changes without a block kept across a restart, reads and the
 * next block on the changed state, snapshots and reverts, mining and time control, and the errors.
 */
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex } from "../../../../../lib/common/bytes.ts";
import { forkRules } from "../../../../../lib/execution/evm/mod.ts";
import { deriveDevAccounts } from "../../../../../lib/execution/genesis/mod.ts";
import { assert, assertEquals } from "../../../../assert.ts";
import { DEV, GWEI, type Node, open, OTHER, transfer, withNode } from "./dev_node.ts";

Deno.test("anvil_setBalance & co.: the head's state changes without a block and survives a restart", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-dev-methods-" });
  try {
    let node = await open(dir);
    const head = node.engine.head();
    assertEquals(await node.call("anvil_setBalance", [OTHER, "0x1234"]), null);
    assertEquals(await node.call("hardhat_setNonce", [OTHER, "0x7"]), null);
    assertEquals(await node.call("anvil_setCode", [OTHER, "0x600160005260206000f3"]), null);
    const word = "0x" + "00".repeat(31) + "2a";
    assertEquals(await node.call("anvil_setStorageAt", [OTHER, "0x3", word]), true);
    const check = async (n: Node) => {
      assertEquals(await n.call("eth_blockNumber"), "0x0");
      assertEquals(await n.call("eth_getBalance", [OTHER, "latest"]), "0x1234");
      assertEquals(await n.call("eth_getTransactionCount", [OTHER, "latest"]), "0x7");
      assertEquals(await n.call("eth_getCode", [OTHER, "latest"]), "0x600160005260206000f3");
      assertEquals(await n.call("eth_getStorageAt", [OTHER, "0x3", "latest"]), word);
      assertEquals(await n.call("eth_call", [{ to: OTHER }, "latest"]), "0x" + "00".repeat(31) + "01");
    };
    await check(node);
    // The header is the genesis' own; only the state under it changed.
    assertEquals(bytesToHex(node.engine.head().hash), bytesToHex(head.hash));
    assert(
      bytesToHex(node.engine.irregular.rootOf(head.header, head.hash)) !== bytesToHex(head.header.stateRoot),
    );
    await node.close();
    node = await open(dir);
    try {
      await check(node);
      // The next block is built on the changed state: the balance carries on.
      await node.call("evm_mine");
      assertEquals(await node.call("eth_getBalance", [OTHER, "latest"]), "0x1234");
      assertEquals(await node.call("eth_getStorageAt", [OTHER, "0x3", "latest"]), word);
    } finally {
      await node.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("anvil_setBalance: an account with no funds can pay once funded, and the pool sees it", () =>
  withNode(async (node) => {
    const poor = deriveDevAccounts(12)[11];
    await node.call("anvil_setBalance", [bytesToHex(poor.address), "0x0"]);
    const common = forkRules(node.engine.config, node.engine.head().header.timestamp + 1n).common;
    const raw = createFeeMarket1559Tx({
      chainId: node.engine.config.chainId,
      nonce: 0n,
      to: OTHER,
      value: 5n,
      gasLimit: 21_000n,
      maxFeePerGas: 10n * GWEI,
      maxPriorityFeePerGas: GWEI,
    }, { common }).sign(poor.privateKey).serialize();
    const refused = await node.error("eth_sendRawTransaction", [bytesToHex(raw)]);
    assert(/insufficient funds/.test(refused.message), refused.message);
    await node.call("anvil_setBalance", [bytesToHex(poor.address), "0xde0b6b3a7640000"]);
    const hash = await node.call<string>("eth_sendRawTransaction", [bytesToHex(raw)]);
    await node.miner.idle();
    for (let i = 0; i < 100 && (await node.call("eth_getTransactionReceipt", [hash])) === null; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert((await node.call("eth_getTransactionReceipt", [hash])) !== null);
  }));

Deno.test("evm_snapshot / evm_revert: back to the block and state; reverted transactions stay out", () =>
  withNode(async (node) => {
    await node.call("anvil_setBalance", [OTHER, "0x10"]);
    const id = await node.call<string>("evm_snapshot");
    assertEquals(id, "0x0");
    assertEquals(await node.call("evm_snapshot"), "0x1");
    await node.call("anvil_setBalance", [OTHER, "0x20"]);
    await node.call("eth_sendRawTransaction", [bytesToHex(transfer(node, 0n))]);
    await node.call("anvil_mine", ["0x2"]);
    await node.miner.idle();
    assert(BigInt(await node.call<string>("eth_blockNumber")) >= 2n);
    assertEquals(await node.call("evm_revert", [id]), true);
    assertEquals(await node.call("eth_blockNumber"), "0x0");
    assertEquals(await node.call("eth_getBalance", [OTHER, "latest"]), "0x10");
    assertEquals(await node.call("eth_getTransactionCount", [bytesToHex(DEV.address), "latest"]), "0x0");
    // Snapshot 1 was taken after 0: reverting 0 forgets it; 0 is used up too.
    assertEquals(await node.call("evm_revert", ["0x1"]), false);
    assertEquals(await node.call("evm_revert", [id]), false);
    // The next block does not bring the reverted transaction back.
    await node.call("evm_mine");
    assertEquals(await node.call("eth_getTransactionCount", [bytesToHex(DEV.address), "latest"]), "0x0");
    assertEquals(node.engine.pool.status().pending, 0);
  }));

Deno.test("evm_mine, anvil_mine, evm_setNextBlockTimestamp, evm_increaseTime: timestamps as asked", () =>
  withNode(async (node) => {
    // The wall clock stands at 1,000,000 in this test.
    assertEquals(await node.call("evm_mine", [2_000]), "0x0");
    let head = node.engine.head().header;
    assertEquals(head.number, 1n);
    assertEquals(head.timestamp, 2_000n);
    assertEquals(await node.call("anvil_mine", ["0x3", "0x10"]), null);
    head = node.engine.head().header;
    assertEquals([head.number, head.timestamp], [4n, 2_048n]);
    await node.call("evm_mine", [{ timestamp: "0x1000", blocks: 2 }]);
    head = node.engine.head().header;
    assertEquals(head.number, 6n);
    assertEquals(head.timestamp > 0x1000n, true);
    assertEquals(await node.call("evm_setNextBlockTimestamp", [1_000_000_000]), null);
    await node.call("evm_mine");
    assertEquals(node.engine.head().header.timestamp, 1_000_000_000n);
    const offset = await node.call<number>("evm_increaseTime", ["0x64"]);
    assertEquals(offset, 1_000_000_000 - 1_000_000 + 100);
    await node.call("evm_mine");
    assertEquals(node.engine.head().header.timestamp, 1_000_000_100n);
    await node.call("anvil_setBlockTimestampInterval", [7]);
    await node.call("evm_mine");
    assertEquals(node.engine.head().header.timestamp, 1_000_000_107n);
    assertEquals(await node.call("anvil_removeBlockTimestampInterval"), true);
    assertEquals(await node.call("anvil_removeBlockTimestampInterval"), false);
    const past = await node.error("evm_setNextBlockTimestamp", [5]);
    assertEquals(past.code, -32602);
    assert(/Timestamp error: 5 is lower than or equal to previous block's timestamp/.test(past.message));
    const pastMine = await node.error("evm_mine", [5]);
    assertEquals(pastMine.code, -32602);
  }));

Deno.test("evm_setAutomine, evm_setIntervalMining and hardhat_intervalMine: how transactions are sealed", () =>
  withNode(async (node) => {
    assertEquals(await node.call("anvil_getAutomine"), true);
    assertEquals(await node.call("evm_setAutomine", [false]), null);
    assertEquals(await node.call("hardhat_getAutomine"), false);
    await node.call("eth_sendRawTransaction", [bytesToHex(transfer(node, 0n))]);
    await new Promise((r) => setTimeout(r, 50));
    await node.miner.idle();
    assertEquals(node.engine.head().header.number, 0n);
    // Turning automine back on seals what waits.
    await node.call("evm_setAutomine", [true]);
    for (let i = 0; i < 100 && node.engine.head().header.number === 0n; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assertEquals(node.engine.head().header.number, 1n);
    // hardhat_intervalMine: one block as interval mining seals it, with what the pool holds.
    assertEquals(await node.call("evm_setAutomine", [false]), null);
    await node.call("eth_sendRawTransaction", [bytesToHex(transfer(node, 1n))]);
    assertEquals(await node.call("hardhat_intervalMine"), true);
    assertEquals(node.engine.head().header.number, 2n);
    const sealed = await node.call<{ transactions: string[] }>("eth_getBlockByNumber", ["0x2", false]);
    assertEquals(sealed.transactions.length, 2, "the L1-info deposit and the transfer");
    assertEquals(await node.call("evm_setIntervalMining", [1]), null);
    assertEquals(await node.call("anvil_getAutomine"), false);
    assertEquals(node.miner.period, 1);
    assertEquals(await node.call("evm_setIntervalMining", [0]), null);
    assertEquals(node.miner.period, 0);
  }));

Deno.test("anvil_rollback: the head goes back, later snapshots go too; deeper than the chain is refused", () =>
  withNode(async (node) => {
    await node.call("anvil_mine", [3]);
    const one = node.engine.chain.getCanonicalHash(1n)!;
    const early = await node.call<string>("evm_snapshot");
    await node.call("anvil_mine", [1]);
    const late = await node.call<string>("anvil_snapshot");
    assertEquals(await node.call("anvil_rollback", [3]), null);
    assertEquals(node.engine.head().hash, one);
    // The snapshot taken on a block that left the chain is gone; the one before it still works.
    assertEquals(await node.call("anvil_revert", [late]), false);
    const deep = await node.error("anvil_rollback", [2]);
    assertEquals(deep.code, -32602);
    assert(/head is block 1/.test(deep.message), deep.message);
    assertEquals(await node.call("anvil_rollback", []), null);
    assertEquals(node.engine.head().header.number, 0n);
    assertEquals(await node.call("evm_revert", [early]), false);
  }));

Deno.test("anvil_setTime: the clock reads the time set; a block never goes back before its parent", () =>
  withNode(async (node) => {
    // The test clock's wall time is 1,000,000.
    assertEquals(await node.call("anvil_setTime", [1_000_500]), 500);
    assertEquals(node.clock.now(), 1_000_500);
    await node.call("evm_setNextBlockTimestamp", [1_000_900]);
    // Setting the time drops a next timestamp set by hand.
    assertEquals(await node.call("evm_setTime", ["0xf4628"]), 500); // 1,001,000: the clock is at 1,000,500
    await node.call("evm_mine");
    assertEquals(node.engine.head().header.timestamp, 1_001_000n);
    assertEquals(await node.call("anvil_setTime", [10]), 0);
    await node.call("evm_mine");
    assertEquals(node.engine.head().header.timestamp, 1_001_001n);
    assertEquals((await node.error("anvil_setTime", ["0x1" + "0".repeat(20)])).code, -32602);
  }));

Deno.test("anvil_setLoggingEnabled / hardhat_setLoggingEnabled switch the dev miner's block log", () =>
  withNode(async (node) => {
    assertEquals(await node.call("anvil_setLoggingEnabled", [false]), null);
    assertEquals(node.miner.logging, false);
    assertEquals(await node.call("hardhat_setLoggingEnabled", [true]), true);
    assertEquals(node.miner.logging, true);
    assertEquals((await node.error("anvil_setLoggingEnabled", ["yes"])).code, -32602);
  }));

Deno.test("dev methods refuse bad input with a clear error", () =>
  withNode(async (node) => {
    const short = await node.error("anvil_setStorageAt", [OTHER, "0x1", "0x01"]);
    assertEquals(short.code, -32602);
    assert(/32 bytes/.test(short.message), short.message);
    assertEquals((await node.error("anvil_setBalance", [OTHER])).code, -32602);
    assertEquals((await node.error("anvil_setBalance", ["0x12", "0x1"])).code, -32602);
    assertEquals((await node.error("evm_mine", [[1]])).code, -32602);
    assertEquals(await node.call("evm_revert", ["0x99"]), false);
  }));

Deno.test("anvil_dropTransaction, anvil_dropAllTransactions: pooled transactions leave the pool", () =>
  withNode(async (node) => {
    await node.call("evm_setAutomine", [false]);
    const first = await node.call<string>("eth_sendRawTransaction", [bytesToHex(transfer(node, 0n))]);
    await node.call("eth_sendRawTransaction", [bytesToHex(transfer(node, 1n))]);
    assertEquals(node.engine.pool.size, 2);
    assertEquals(await node.call("anvil_dropTransaction", [first]), first);
    assertEquals(await node.call("anvil_dropTransaction", [first]), null);
    assertEquals(node.engine.pool.size, 1);
    assertEquals(await node.call("anvil_dropAllTransactions"), null);
    assertEquals(node.engine.pool.size, 0);
    await node.call("evm_mine");
    assertEquals(await node.call("eth_getTransactionCount", [bytesToHex(DEV.address), "latest"]), "0x0");
  }));

Deno.test("evm_setBlockGasLimit: the next blocks get the gas limit", () =>
  withNode(async (node) => {
    assertEquals(await node.call("evm_setBlockGasLimit", ["0x2000000"]), true);
    await node.call("anvil_mine", ["0x2"]);
    assertEquals(node.engine.head().header.gasLimit, 0x2000000n);
    assertEquals(node.engine.chain.getBlockByNumber(1n)!.header.gasLimit, 0x2000000n);
    assertEquals((await node.error("evm_setBlockGasLimit", ["0x10"])).code, -32602);
  }));

Deno.test("anvil_reset: back to the genesis block and state; pool, snapshots and time changes gone", () =>
  withNode(async (node) => {
    const genesis = node.engine.head();
    // The dev genesis gives the addresses below 0x100 one wei, as geth's does.
    const balance = await node.call("eth_getBalance", [OTHER, "latest"]);
    await node.call("anvil_setBalance", [OTHER, "0x99"]);
    const id = await node.call<string>("evm_snapshot");
    await node.call("evm_increaseTime", [86_400]);
    await node.call("anvil_mine", ["0x3"]);
    await node.call("evm_setAutomine", [false]);
    await node.call("eth_sendRawTransaction", [bytesToHex(transfer(node, 0n))]);
    assertEquals(await node.call("anvil_reset"), null);
    assertEquals(await node.call("eth_blockNumber"), "0x0");
    assertEquals(bytesToHex(node.engine.head().hash), bytesToHex(genesis.hash));
    assertEquals(await node.call("eth_getBalance", [OTHER, "latest"]), balance);
    assertEquals(node.engine.pool.size, 0);
    assertEquals(await node.call("evm_revert", [id]), false);
    assertEquals(node.clock.offset, 0);
    await node.call("evm_mine");
    assertEquals(node.engine.head().header.timestamp, 1_000_000n);
    const fork = await node.error("anvil_reset", [{ forking: { jsonRpcUrl: "http://127.0.0.1:1" } }]);
    assertEquals(fork.code, -32602);
  }));

Deno.test("anvil_impersonateAccount: eth_sendTransaction from an address without a key, its sender kept", () =>
  withNode(async (node) => {
    const vault = "0x4200000000000000000000000000000000000011";
    await node.call("anvil_setBalance", [vault, "0xde0b6b3a7640000"]);
    const send = (from: string, method = "eth_sendTransaction") =>
      node.rpc(method, [{ from, to: OTHER, value: "0x5" }]);
    const refused = await send(vault);
    assertEquals(refused.error?.message, "unknown account");
    assertEquals(await node.call("anvil_impersonateAccount", [vault]), null);
    const hash = (await send(vault)).result as string;
    let receipt: { from: string; status: string } | null = null;
    for (let i = 0; i < 200 && receipt === null; i++) {
      await node.miner.idle();
      receipt = await node.call("eth_getTransactionReceipt", [hash]);
      if (receipt === null) await new Promise((r) => setTimeout(r, 10));
    }
    assertEquals(receipt?.status, "0x1");
    assertEquals(receipt?.from, vault);
    assertEquals((await node.call<{ from: string }>("eth_getTransactionByHash", [hash])).from, vault);
    assertEquals(await node.call("eth_getTransactionCount", [vault, "latest"]), "0x1");
    // The placeholder signature is no signature to hand out.
    assertEquals(
      (await node.rpc("eth_signTransaction", [{ from: vault, to: OTHER }])).error?.message,
      "unknown account",
    );
    assertEquals(await node.call("hardhat_stopImpersonatingAccount", [vault]), true);
    assertEquals((await send(vault)).error?.message, "unknown account");
    // Auto-impersonation: any address; eth_sendUnsignedTransaction: any address, always.
    const other = "0x00000000000000000000000000000000000000bb";
    await node.call("anvil_setBalance", [other, "0xde0b6b3a7640000"]);
    assertEquals(await node.call("anvil_autoImpersonateAccount", [true]), null);
    assert(typeof (await send(other)).result === "string");
    await node.call("anvil_autoImpersonateAccount", [false]);
    assertEquals((await send(other)).error?.message, "unknown account");
    assert(typeof (await send(other, "eth_sendUnsignedTransaction")).result === "string");
  }));

Deno.test("anvil_setNextBlockBaseFeePerGas, anvil_addBalance, anvil_metadata, anvil_nodeInfo", () =>
  withNode(async (node) => {
    assertEquals(await node.call("anvil_setNextBlockBaseFeePerGas", ["0x0"]), null);
    await node.call("evm_mine");
    assertEquals(node.engine.head().header.baseFeePerGas, 0n);
    // Only the next block: the one after follows EIP-1559 from it.
    const predicted = node.engine.pendingRules().nextBaseFee;
    await node.call("evm_mine");
    assertEquals(node.engine.head().header.baseFeePerGas, predicted);
    assertEquals(await node.call("hardhat_setNextBlockBaseFeePerGas", ["0x7"]), true);
    await node.call("evm_mine");
    assertEquals(node.engine.head().header.baseFeePerGas, 7n);

    await node.call("anvil_setBalance", [OTHER, "0x10"]);
    assertEquals(await node.call("anvil_addBalance", [OTHER, "0x5"]), null);
    assertEquals(await node.call("eth_getBalance", [OTHER, "latest"]), "0x15");

    await node.call("evm_snapshot");
    type Meta = {
      clientVersion: string;
      chainId: number;
      instanceId: string;
      latestBlockNumber: number;
      latestBlockHash: string;
      forkedNetwork: null;
      snapshots: Record<string, [number, string]>;
    };
    const meta = await node.call<Meta>("anvil_metadata");
    assertEquals(meta.clientVersion, "keel/test");
    assertEquals(meta.chainId, 901);
    assertEquals(meta.latestBlockNumber, 3);
    assertEquals(meta.latestBlockHash, bytesToHex(node.engine.head().hash));
    assertEquals(meta.forkedNetwork, null);
    assertEquals(meta.snapshots, { "0x0": [3, bytesToHex(node.engine.head().hash)] });
    assertEquals((await node.call<Meta>("hardhat_metadata")).instanceId, meta.instanceId);
    await node.call("anvil_reset");
    assert((await node.call<Meta>("anvil_metadata")).instanceId !== meta.instanceId);

    const info = await node.call<
      {
        currentBlockNumber: string;
        currentBlockTimestamp: number;
        hardFork: string;
        environment: { chainId: number; gasPrice: string; baseFee: string };
      }
    >("anvil_nodeInfo");
    assertEquals(info.currentBlockNumber, "0x0");
    assertEquals(info.hardFork, "isthmus");
    assertEquals(info.environment.chainId, 901);
    assertEquals(info.environment.gasPrice, "0x7");
    assertEquals(info.environment.baseFee, `0x${node.engine.pendingRules().nextBaseFee.toString(16)}`);
  }));

Deno.test("anvil_removePoolTransactions, hardhat_dropTransaction, hardhat_reset", () =>
  withNode(async (node) => {
    await node.call("evm_setAutomine", [false]);
    const first = await node.call<string>("eth_sendRawTransaction", [bytesToHex(transfer(node, 0n))]);
    await node.call("eth_sendRawTransaction", [bytesToHex(transfer(node, 1n))]);
    assertEquals(await node.call("hardhat_dropTransaction", [first]), true);
    assertEquals(await node.call("hardhat_dropTransaction", [first]), false);
    await node.call("eth_sendRawTransaction", [bytesToHex(transfer(node, 0n))]);
    assertEquals(node.engine.pool.size, 2);
    // Another sender's transactions stay.
    assertEquals(await node.call("anvil_removePoolTransactions", [OTHER]), null);
    assertEquals(node.engine.pool.size, 2);
    assertEquals(await node.call("anvil_removePoolTransactions", [bytesToHex(DEV.address)]), null);
    assertEquals(node.engine.pool.size, 0);
    await node.call("evm_mine");
    assertEquals(node.engine.head().header.number, 1n);
    assertEquals(await node.call("hardhat_reset", []), true);
    assertEquals(node.engine.head().header.number, 0n);
  }));

Deno.test("anvil_setCoinbase, hardhat_setPrevRandao: the next blocks' coinbase and the next prevRandao", () =>
  withNode(async (node) => {
    const coinbase = "0x00000000000000000000000000000000000000cb";
    const randao = `0x${"ab".repeat(32)}`;
    assertEquals(await node.call("anvil_setCoinbase", [coinbase]), null);
    assertEquals(await node.call("hardhat_setPrevRandao", [randao]), true);
    await node.call("anvil_mine", ["0x2"]);
    const [b1, b2] = [1n, 2n].map((n) => node.engine.chain.getBlockByNumber(n)!.header);
    assertEquals(bytesToHex(b1.coinbase), coinbase);
    assertEquals(bytesToHex(b2.coinbase), coinbase);
    assertEquals(bytesToHex(b1.mixHash), randao);
    assert(bytesToHex(b2.mixHash) !== randao, "prevRandao is set for the next block only");
    // The priority fee of a transaction goes to the coinbase set.
    await node.call("eth_sendRawTransaction", [bytesToHex(transfer(node, 0n))]);
    await node.miner.idle();
    assert(BigInt(await node.call<string>("eth_getBalance", [coinbase, "latest"])) > 0n);
    assertEquals(await node.call("hardhat_setCoinbase", [coinbase]), true);
  }));

Deno.test("ganache's evm_setAccountBalance / Nonce / Code / StorageAt change the state and answer true", () =>
  withNode(async (node) => {
    assertEquals(await node.call("evm_setAccountBalance", [OTHER, "0x64"]), true);
    assertEquals(await node.call("evm_setAccountNonce", [OTHER, "0x3"]), true);
    assertEquals(await node.call("evm_setAccountCode", [OTHER, "0x6001"]), true);
    assertEquals(await node.call("evm_setAccountStorageAt", [OTHER, "0x0", `0x${"00".repeat(31)}07`]), true);
    assertEquals(await node.call("eth_getBalance", [OTHER, "latest"]), "0x64");
    assertEquals(await node.call("eth_getTransactionCount", [OTHER, "latest"]), "0x3");
    assertEquals(await node.call("eth_getCode", [OTHER, "latest"]), "0x6001");
    assertEquals(await node.call("eth_getStorageAt", [OTHER, "0x0", "latest"]), `0x${"00".repeat(31)}07`);
  }));

Deno.test("anvil_setNextBlockBaseFeePerGas is priced in: eth_gasPrice and eth_sendTransaction's fee cap pay it, the transaction is mined", () =>
  withNode(async (node) => {
    const fee = 100n * GWEI;
    await node.call("anvil_setNextBlockBaseFeePerGas", [`0x${fee.toString(16)}`]);
    assertEquals(node.engine.pendingRules().nextBaseFee, fee);
    assert(BigInt(await node.call<string>("eth_gasPrice")) > fee);
    const hash = await node.call<string>("eth_sendTransaction", [{
      from: bytesToHex(DEV.address),
      to: OTHER,
      value: "0x1",
    }]);
    let receipt: { status: string } | null = null;
    for (let i = 0; i < 100 && receipt === null; i++) {
      receipt = await node.call("eth_getTransactionReceipt", [hash]);
      if (receipt === null) await new Promise((r) => setTimeout(r, 20));
    }
    assertEquals(receipt?.status, "0x1");
    assertEquals(node.engine.head().header.baseFeePerGas, fee);
  }));

Deno.test("dev methods read integers as anvil: JSON numbers, decimal strings, 32-byte slots with leading zeros", () =>
  withNode(async (node) => {
    const before = node.engine.head().header.number;
    assertEquals(await node.call("anvil_mine", [2]), null);
    assertEquals(node.engine.head().header.number, before + 2n);
    await node.call("anvil_setBalance", [OTHER, 1000]);
    assertEquals(await node.call("eth_getBalance", [OTHER, "latest"]), "0x3e8");
    await node.call("anvil_setBalance", [OTHER, "2000"]);
    assertEquals(await node.call("eth_getBalance", [OTHER, "latest"]), "0x7d0");
    await node.call("anvil_setNonce", [OTHER, 5]);
    assertEquals(await node.call("eth_getTransactionCount", [OTHER, "latest"]), "0x5");
    const slot = "0x00" + "ab".repeat(31);
    const word = "0x" + "00".repeat(31) + "2a";
    assertEquals(await node.call("anvil_setStorageAt", [OTHER, slot, word]), true);
    assertEquals(await node.call("eth_getStorageAt", [OTHER, slot, "latest"]), word);
    assertEquals((await node.error("anvil_setBalance", [OTHER, -1])).code, -32602);
    // anvil_addBalance saturates at 2^256 - 1.
    const max = "0x" + "ff".repeat(32);
    await node.call("anvil_setBalance", [OTHER, max]);
    await node.call("anvil_addBalance", [OTHER, "0x1"]);
    assertEquals(await node.call("eth_getBalance", [OTHER, "latest"]), max);
  }));

Deno.test("dev timing: anvil_mine keeps a timestamp set by hand for its first block; evm_revert drops it and restores the gas limit", () =>
  withNode(async (node) => {
    const head = node.engine.head().header.timestamp;
    await node.call("evm_setNextBlockTimestamp", [`0x${(head + 500n).toString(16)}`]);
    await node.call("anvil_mine", ["0x2", "0xa"]);
    const t1 = node.engine.chain.getBlockByNumber(node.engine.head().header.number - 1n)!.header.timestamp;
    assertEquals([t1 - head, node.engine.head().header.timestamp - head], [500n, 510n]);
    const snap = await node.call<string>("evm_snapshot");
    const now = node.engine.head().header.timestamp;
    await node.call("evm_setNextBlockTimestamp", [`0x${(now + 50_000n).toString(16)}`]);
    await node.call("evm_setBlockGasLimit", ["0x2000000"]);
    assertEquals(await node.call("evm_revert", [snap]), true);
    await node.call("evm_mine");
    // The block takes the clock's time, not the timestamp set for the abandoned branch.
    assert(
      node.engine.head().header.timestamp !== now + 50_000n,
      "the next timestamp went with the reverted branch",
    );
    assert(node.engine.head().header.gasLimit !== 0x2000000n, "the gas limit is the snapshot's");
    // On an OP chain a block holds the L1-info deposit's 1,000,000 gas.
    const low = await node.error("evm_setBlockGasLimit", ["0x186a0"]);
    assert(low.message.includes("L1-info deposit"), low.message);
  }));

Deno.test("eth_sendTransaction from an account at nonce 2^64-1 is geth's nonce has max value (EIP-2681)", () =>
  withNode(async (node) => {
    const from = bytesToHex(DEV.address);
    await node.call("anvil_setNonce", [from, "0xffffffffffffffff"]);
    const err = await node.error("eth_sendTransaction", [{ from, to: OTHER, value: "0x1" }]);
    assertEquals(err.code, -32000);
    assert(err.message.startsWith("nonce has max value: address 0x"), err.message);
  }));
