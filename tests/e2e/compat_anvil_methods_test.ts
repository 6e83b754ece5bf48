/**
 * anvil's dev methods on `keel execution --dev`, through viem's test client in anvil mode, unchanged:
 * the same scenario runs against the real anvil (npm @foundry-rs/anvil) and against keel, and both
 * must pass it: the node's accounts, impersonation, state changes without a block, snapshots and
 * reverts (the reverted blocks' transactions gone for good), state dumps loaded back, mining on request
 * with timestamps, time
 * travel (also anvil_setTime), rollback and reorg, the interval and gas limit switches, the txpool methods,
 * automine off and on.
 */
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  http,
  pad,
  parseEther,
  type PublicClient,
  toHex,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import {
  encodeAbiParameters,
  keccak256,
  parseAbi,
  parseAbiParameters,
  recoverMessageAddress,
  verifyTypedData,
} from "viem";
import solc from "solc";
import { assert, assertEquals } from "../assert.ts";
import {
  anvilForTest,
  DEV_ADDRESS,
  DEV_ADDRESS_1,
  DEV_CHAIN_ID,
  DEV_PRIVATE_KEY,
  startAnvil,
  startKeelExecution,
} from "./helpers/mod.ts";

/** Runtime code that returns the word 1: PUSH1 1 PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN. */
const RETURNS_ONE = "0x600160005260206000f3";

/** Creation code of a contract whose runtime reverts with Error("no"): CODECOPY the encoded error, REVERT. */
const REVERTS_NO =
  "0x607080600b6000396000f36064600c60003960646000fd08c379a0000000000000000000000000000000000000000000000000000000000000002000000000000000000000000000000000000000000000000000000000000000026e6f000000000000000000000000000000000000000000000000000000000000";

/**
 * A token whose views read a flag before the mapping (a `paused` check), so that the slot anvil_dealERC20
 * must find is not the first one read.
 */
const DEAL_TOKEN_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract DealToken {
    string public name = "Deal";
    uint256 public totalSupply;
    mapping(address => uint256) private balances;
    mapping(address => mapping(address => uint256)) private allowances;
    bool public paused;
    function balanceOf(address a) external view returns (uint256) { require(!paused); return balances[a]; }
    function allowance(address o, address s) external view returns (uint256) {
        require(!paused);
        return allowances[o][s];
    }
}`;
const DEAL_TOKEN_ABI = parseAbi([
  "function balanceOf(address) view returns (uint256)",
  "function allowance(address, address) view returns (uint256)",
]);

function dealTokenBytecode(): `0x${string}` {
  const out = JSON.parse(solc.compile(JSON.stringify({
    language: "Solidity",
    sources: { "DealToken.sol": { content: DEAL_TOKEN_SOURCE } },
    settings: { evmVersion: "cancun", outputSelection: { "*": { "*": ["evm.bytecode.object"] } } },
  })));
  const errors = (out.errors ?? []).filter((e: { severity: string }) => e.severity === "error");
  if (errors.length > 0) throw new Error(`solc: ${JSON.stringify(errors)}`);
  return `0x${out.contracts["DealToken.sol"].DealToken.evm.bytecode.object}`;
}

/** The error a request fails with (viem's: its code and the node's message in `details`). */
function failure(request: Promise<unknown>): Promise<{ code: number; details: string }> {
  return request.then(
    (result) => {
      throw new Error(`did not fail: ${JSON.stringify(result)}`);
    },
    (e) => e,
  );
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function latest(client: PublicClient) {
  return await client.getBlock({ blockTag: "latest" });
}

/** The scenario both nodes must pass; `fields` collects the shapes of answers to compare between them. */
async function scenario(t: Deno.TestContext, url: string, fields: unknown[]): Promise<void> {
  const chain = defineChain({
    id: DEV_CHAIN_ID,
    name: "dev",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
  const client = createPublicClient({ chain, transport: http(url), cacheTime: 0 }) as PublicClient;
  const test = createTestClient({ chain, mode: "anvil", transport: http(url) });
  const dev = createWalletClient({
    account: privateKeyToAccount(DEV_PRIVATE_KEY),
    chain,
    transport: http(url),
  });
  /** A request outside viem's typed anvil schema. */
  const raw = (method: string, params: unknown[] = []) =>
    (test.request as (args: { method: string; params: unknown[] }) => Promise<unknown>)({ method, params });
  const fresh = privateKeyToAccount(generatePrivateKey());
  const contract = privateKeyToAccount(generatePrivateKey()).address;

  await t.step(
    "the node's accounts: eth_accounts, eth_sendTransaction, personal_sign, eth_signTypedData_v4",
    async () => {
      const unlocked = createWalletClient({ account: DEV_ADDRESS, chain, transport: http(url) });
      const addresses = (await unlocked.getAddresses()).map((a) => a.toLowerCase());
      assertEquals(addresses.length, 10);
      assertEquals(addresses[0], DEV_ADDRESS.toLowerCase());
      const hash = await unlocked.sendTransaction({ to: DEV_ADDRESS_1, value: 7n });
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      assertEquals(receipt.status, "success");
      assertEquals(receipt.from.toLowerCase(), DEV_ADDRESS.toLowerCase());
      const signature = await unlocked.signMessage({ message: "hello keel" });
      assertEquals(await recoverMessageAddress({ message: "hello keel", signature }), DEV_ADDRESS);
      const typed = {
        domain: { name: "Ether Mail", version: "1", chainId: DEV_CHAIN_ID },
        types: { Person: [{ name: "name", type: "string" }, { name: "wallet", type: "address" }] },
        primaryType: "Person",
        message: { name: "Bob", wallet: DEV_ADDRESS_1 },
      } as const;
      const typedSignature = await unlocked.signTypedData(typed);
      assert(await verifyTypedData({ ...typed, address: DEV_ADDRESS, signature: typedSignature }));
    },
  );

  await t.step("impersonateAccount: send from an address without its key; stop", async () => {
    // The SequencerFeeVault predeploy on keel (a contract: anvil lets impersonated contracts send).
    const vault = "0x4200000000000000000000000000000000000011";
    await test.setBalance({ address: vault, value: parseEther("1") });
    await test.impersonateAccount({ address: vault });
    const impersonated = createWalletClient({ account: vault, chain, transport: http(url) });
    const hash = await impersonated.sendTransaction({ to: DEV_ADDRESS_1, value: 11n });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    assertEquals(receipt.status, "success");
    assertEquals(receipt.from.toLowerCase(), vault);
    assertEquals((await client.getTransaction({ hash })).from.toLowerCase(), vault);
    await test.stopImpersonatingAccount({ address: vault });
    const refused = await impersonated.sendTransaction({ to: DEV_ADDRESS_1, value: 1n }).then(
      () => "sent",
      (e: Error) => e.message,
    );
    assert(refused !== "sent");
  });

  await t.step("setBalance, setNonce, setCode, setStorageAt: read at latest, no new block", async () => {
    const before = await client.getBlockNumber();
    await test.setBalance({ address: fresh.address, value: parseEther("2") });
    await test.setNonce({ address: fresh.address, nonce: 5 });
    await test.setCode({ address: contract, bytecode: RETURNS_ONE });
    await test.setStorageAt({ address: contract, index: 1, value: pad("0x07") });
    assertEquals(await client.getBalance({ address: fresh.address }), parseEther("2"));
    assertEquals(await client.getTransactionCount({ address: fresh.address }), 5);
    assertEquals(await client.getCode({ address: contract }), RETURNS_ONE);
    assertEquals(await client.getStorageAt({ address: contract, slot: toHex(1) }), pad("0x07"));
    assertEquals((await client.call({ to: contract })).data, pad("0x01"));
    assertEquals(await client.getBlockNumber(), before);
  });

  await t.step("dumpState / loadState: a dump loaded back restores the state it holds", async () => {
    const state = await test.dumpState();
    await test.setBalance({ address: fresh.address, value: 7n });
    // Loading raises a nonce to the dump's, never lowers one (anvil's rule).
    await test.setNonce({ address: fresh.address, nonce: 2 });
    await test.setCode({ address: contract, bytecode: "0x00" });
    await test.setStorageAt({ address: contract, index: 1, value: pad("0x08") });
    await test.loadState({ state });
    assertEquals(await client.getBalance({ address: fresh.address }), parseEther("2"));
    assertEquals(await client.getTransactionCount({ address: fresh.address }), 5);
    assertEquals(await client.getCode({ address: contract }), RETURNS_ONE);
    assertEquals(await client.getStorageAt({ address: contract, slot: toHex(1) }), pad("0x07"));
  });

  await t.step("the pool and the next block see the changed state", async () => {
    const wallet = createWalletClient({ account: fresh, chain, transport: http(url) });
    const hash = await wallet.sendTransaction({ to: DEV_ADDRESS_1, value: parseEther("1") });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    assertEquals(receipt.status, "success");
    const tx = await client.getTransaction({ hash });
    assertEquals(tx.nonce, 5);
    assert((await client.getBalance({ address: fresh.address })) < parseEther("1"));
  });

  await t.step(
    "snapshot and revert: blocks, state and transactions after the snapshot are gone",
    async () => {
      const head = await latest(client);
      const id = await test.snapshot();
      await test.setBalance({ address: fresh.address, value: 999n });
      const hash = await dev.sendTransaction({ to: DEV_ADDRESS_1, value: 1n });
      await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      await test.mine({ blocks: 3 });
      assert((await client.getBlockNumber()) >= head.number + 4n);
      await test.revert({ id });
      assertEquals((await latest(client)).hash, head.hash);
      assert((await client.getBalance({ address: fresh.address })) > 999n);
      // The transaction is gone, and does not come back with the next block.
      await test.mine({ blocks: 1 });
      assertEquals(await client.getTransactionReceipt({ hash }).catch(() => null), null);
      // A snapshot is used up by its revert.
      const again = await raw("evm_revert", [id]);
      assertEquals(again, false);
    },
  );

  await t.step("mine, with an interval between the blocks' timestamps", async () => {
    const start = await latest(client);
    await test.mine({ blocks: 2, interval: 10 });
    const end = await latest(client);
    assertEquals(end.number, start.number + 2n);
    assertEquals(end.timestamp, start.timestamp + 20n);
    assertEquals(await raw("evm_mine", []), "0x0");
  });

  await t.step("increaseTime and setNextBlockTimestamp", async () => {
    const start = await latest(client);
    await test.increaseTime({ seconds: 3600 });
    await test.mine({ blocks: 1 });
    assert((await latest(client)).timestamp >= start.timestamp + 3600n);
    const next = (await latest(client)).timestamp + 1000n;
    await test.setNextBlockTimestamp({ timestamp: next });
    await test.mine({ blocks: 1 });
    assertEquals((await latest(client)).timestamp, next);
    // Time goes on from there.
    await test.mine({ blocks: 1 });
    assert((await latest(client)).timestamp >= next);
    const past = await raw("evm_setNextBlockTimestamp", [toHex(5)]).then(
      () => "accepted",
      (e: Error) => e.message,
    );
    assert(/Timestamp error/.test(past), past);
  });

  await t.step(
    "anvil_setTime / evm_setTime: the clock moves there; the seconds moved, as a number",
    async () => {
      const start = await latest(client);
      const target = start.timestamp + 5000n;
      const moved = await raw("anvil_setTime", [Number(target)]);
      assertEquals(typeof moved, "number");
      assert((moved as number) > 4000 && (moved as number) <= 5000, `moved ${moved}`);
      await test.mine({ blocks: 1 });
      const mined = (await latest(client)).timestamp;
      assert(mined >= target && mined < target + 60n, `mined at ${mined}, set ${target}`);
      // Setting the time it already is moves nothing.
      assertEquals(await raw("evm_setTime", [toHex((await latest(client)).timestamp)]), 0);
      fields.push({ setTime: typeof moved });
    },
  );

  await t.step(
    "anvil_snapshot / anvil_revert, anvil_rollback, anvil_setBlockGasLimit, anvil_getIntervalMining",
    async () => {
      const head = await latest(client);
      const id = await raw("anvil_snapshot");
      await test.mine({ blocks: 2 });
      assertEquals(await raw("anvil_revert", [id]), true);
      assertEquals((await latest(client)).hash, head.hash);
      await test.mine({ blocks: 2 });
      assertEquals(await raw("anvil_rollback", [1]), null);
      assertEquals(await client.getBlockNumber(), head.number + 1n);
      assertEquals(await raw("anvil_rollback", [null]), null);
      assertEquals((await latest(client)).hash, head.hash);
      assertEquals(await raw("anvil_setBlockGasLimit", [toHex(25_000_000)]), true);
      await test.mine({ blocks: 1 });
      assertEquals((await latest(client)).gasLimit, 25_000_000n);
      assertEquals(await raw("anvil_getIntervalMining"), null);
      await test.setIntervalMining({ interval: 1000 });
      assertEquals(await raw("anvil_getIntervalMining"), 1000);
      await test.setIntervalMining({ interval: 0 });
      assertEquals(await raw("anvil_getIntervalMining"), null);
      await test.setAutomine(true);
      const minGasPrice = await raw("anvil_setMinGasPrice", [1]).then(
        () => "accepted",
        (e: { code?: number; cause?: { code?: number } }) => e.cause?.code ?? e.code,
      );
      assertEquals(minGasPrice, -32602);
    },
  );

  await t.step(
    "anvil_reorg: the last blocks replaced, with a JSON request and a raw transaction",
    async () => {
      for (const value of [1n, 2n]) {
        const hash = await dev.sendTransaction({ to: DEV_ADDRESS_1, value });
        await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      }
      const head = await latest(client);
      const common = head.number - 2n;
      const old = head.transactions as `0x${string}`[];
      const commonHash = (await client.getBlock({ blockNumber: common })).hash;
      const nonce = await client.getTransactionCount({ address: dev.account.address, blockNumber: common });
      const fees = { maxFeePerGas: parseEther("0.00000002"), maxPriorityFeePerGas: 1_000_000n };
      const rawTx = await dev.account.signTransaction({
        chainId: DEV_CHAIN_ID,
        type: "eip1559",
        to: DEV_ADDRESS_1,
        value: 13n,
        nonce: nonce + 1,
        gas: 21_000n,
        ...fees,
      });
      const tooDeep = await raw("anvil_reorg", [Number(head.number) + 1, []]).then(
        () => "accepted",
        (e: { code?: number; cause?: { code?: number } }) => e.cause?.code ?? e.code,
      );
      assertEquals(tooDeep, -32602);
      assertEquals((await latest(client)).hash, head.hash);
      assertEquals(
        await raw("anvil_reorg", [2, [[{ from: DEV_ADDRESS, to: DEV_ADDRESS_1, value: "0xb" }, 0], [
          rawTx,
          1,
        ]]]),
        null,
      );
      const now = await latest(client);
      assertEquals(now.number, head.number);
      assert(now.hash !== head.hash);
      assertEquals((await client.getBlock({ blockNumber: common })).hash, commonHash);
      const first = await client.getBlock({ blockNumber: common + 1n, includeTransactions: true });
      const second = await client.getBlock({ blockNumber: common + 2n, includeTransactions: true });
      const user = (b: typeof first) =>
        b.transactions.filter((x) => x.from.toLowerCase() !== "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001");
      assertEquals(user(first).map((x) => [x.from.toLowerCase(), x.value, x.nonce]), [
        [DEV_ADDRESS.toLowerCase(), 11n, nonce],
      ]);
      assertEquals(user(second).map((x) => [x.from.toLowerCase(), x.value, x.nonce]), [
        [DEV_ADDRESS.toLowerCase(), 13n, nonce + 1],
      ]);
      assertEquals(await client.getTransaction({ hash: old[old.length - 1] }).catch(() => null), null);
      assertEquals((await test.getTxpoolStatus()).pending, 0);
    },
  );

  await t.step(
    "evm_mine_detailed: the blocks mined, each transaction with its output and revert reason",
    async () => {
      // A contract whose every call reverts with Error("no").
      const deployed = await client.waitForTransactionReceipt({
        hash: await dev.sendTransaction({ data: REVERTS_NO }),
        pollingInterval: 50,
      });
      await test.setAutomine(false);
      const failing = await dev.sendTransaction({ to: deployed.contractAddress!, gas: 100_000n });
      const paying = await dev.sendTransaction({ to: DEV_ADDRESS_1, value: 5n });
      const blocks = await raw("evm_mine_detailed", []) as {
        number: string;
        transactions: { hash: string; output?: string; revertReason?: string }[];
      }[];
      await test.setAutomine(true);
      assertEquals(blocks.length, 1);
      assertEquals(BigInt(blocks[0].number), await client.getBlockNumber());
      const byHash = new Map(blocks[0].transactions.map((tx) => [tx.hash, tx]));
      const failed = byHash.get(failing)!;
      assertEquals(failed.revertReason, "no");
      assert(failed.output!.startsWith("0x08c379a0"), failed.output);
      assertEquals(byHash.get(paying)!.output, "0x");
      // anvil 1.7.1 wants the timestamp key present (null), keel takes it either way.
      const two = await raw("evm_mine_detailed", [{ timestamp: null, blocks: 2 }]) as unknown[];
      assertEquals(two.length, 2);
    },
  );

  await t.step("anvil_dealERC20, anvil_setERC20Allowance, eth_getStorageValues", async () => {
    const deployed = await client.waitForTransactionReceipt({
      hash: await dev.sendTransaction({ data: dealTokenBytecode() }),
    });
    const token = deployed.contractAddress!;
    const read = (functionName: "balanceOf" | "allowance", args: `0x${string}`[]) =>
      client.readContract({ address: token, abi: DEAL_TOKEN_ABI, functionName, args } as never) as Promise<
        bigint
      >;
    const block = await client.getBlockNumber();
    assertEquals(await raw("anvil_dealERC20", [fresh.address, token, "0x4d2"]), null);
    assertEquals(await read("balanceOf", [fresh.address]), 1234n);
    assertEquals(await raw("anvil_setERC20Balance", [fresh.address, token, toHex(5n)]), null);
    assertEquals(await read("balanceOf", [fresh.address]), 5n);
    assertEquals(await raw("anvil_setERC20Allowance", [fresh.address, DEV_ADDRESS_1, token, "0x37"]), null);
    assertEquals(await read("allowance", [fresh.address, DEV_ADDRESS_1]), 55n);
    assertEquals(await read("allowance", [DEV_ADDRESS_1, fresh.address]), 0n);
    assertEquals(
      await client.readContract({
        address: token,
        abi: parseAbi(["function paused() view returns (bool)"]),
        functionName: "paused",
      }),
      false,
    );
    assertEquals(await client.getBlockNumber(), block, "no block for a state change");
    // A contract whose every answer is 1: no slot it reads moves it (anvil's error).
    await test.setCode({ address: contract, bytecode: RETURNS_ONE });
    const noSlot = await failure(raw("anvil_dealERC20", [fresh.address, contract, "0x5"]));
    assertEquals(noSlot.code, -32603);
    assert(
      String(noSlot.details).includes("Unable to set ERC20 balance, no slot found"),
      String(noSlot.details),
    );
    await test.setCode({ address: contract, bytecode: "0x00" });
    // balances is the mapping at slot 2: keccak(account . 2).
    const balanceSlot = keccak256(
      encodeAbiParameters(parseAbiParameters("address, uint256"), [fresh.address, 2n]),
    );
    const one = pad("0x1");
    const values = await raw("eth_getStorageValues", [
      { [token]: [balanceSlot, one], [DEV_ADDRESS_1]: [] },
      "latest",
    ]) as Record<string, string[]>;
    assertEquals(values, {
      [token.toLowerCase()]: [pad(toHex(5n)), pad("0x0")],
      [DEV_ADDRESS_1.toLowerCase()]: [],
    });
    const tooMany = await failure(
      raw("eth_getStorageValues", [{ [token]: Array(1025).fill(one) }, "latest"]),
    );
    assertEquals(tooMany.code, -32602);
    assert(
      String(tooMany.details).includes("total slot count 1025 exceeds limit 1024"),
      String(tooMany.details),
    );
  });

  await t.step("eth_getAccount, eth_getAccountInfo, eth_sendTransactionSync", async () => {
    const account = await raw("eth_getAccount", [DEV_ADDRESS, "latest"]) as Record<string, string>;
    assertEquals(BigInt(account.balance), await client.getBalance({ address: DEV_ADDRESS }));
    assertEquals(Number(account.nonce), await client.getTransactionCount({ address: DEV_ADDRESS }));
    assertEquals(account.codeHash, "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
    const nobody = privateKeyToAccount(generatePrivateKey()).address;
    const absent = await raw("eth_getAccount", [nobody, "latest"]) as Record<string, string>;
    assertEquals([absent.balance, absent.nonce], ["0x0", "0x0"]);
    assertEquals(absent.storageRoot, "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421");
    const info = await raw("eth_getAccountInfo", [contract, "latest"]) as Record<string, string>;
    assertEquals(info.code, await client.getCode({ address: contract }) ?? "0x");
    const receipt = await raw("eth_sendTransactionSync", [{
      from: DEV_ADDRESS,
      to: DEV_ADDRESS_1,
      value: "0x9",
    }]) as {
      status: string;
      blockNumber: string;
    };
    assertEquals(receipt.status, "0x1");
    assertEquals(BigInt(receipt.blockNumber), await client.getBlockNumber());
    const shape = (v: Record<string, unknown>) => Object.keys(v).sort();
    fields.push({ getAccount: shape(account), getAccountInfo: shape(info) });
  });

  await t.step(
    "eth_pendingTransactions, anvil_getGenesisTime, debug_codeByHash, debug_getRawTransactions",
    async () => {
      // Methods newer than anvil 1.7.1 are checked on keel only (anvil answers "method not found").
      const isKeel = String(await raw("web3_clientVersion")).startsWith("keel");
      const MISSING = Symbol("missing");
      const optional = (method: string, params: unknown[]) =>
        raw(method, params).catch((e: { name?: string }) => {
          if (!isKeel && e.name === "MethodNotFoundRpcError") return MISSING;
          throw e;
        });
      await test.setAutomine(false);
      try {
        const hash = await dev.sendTransaction({ to: DEV_ADDRESS_1, value: 6n });
        const pending = await optional("eth_pendingTransactions", []);
        if (pending !== MISSING) {
          const list = pending as { hash: string; blockHash: unknown }[];
          assertEquals(list.map((tx) => [tx.hash, tx.blockHash]), [[hash, null]]);
        }
        await test.mine({ blocks: 1 });
      } finally {
        await test.setAutomine(true);
      }
      const none = await optional("eth_pendingTransactions", []);
      if (none !== MISSING) assertEquals(none, []);
      // eth_fillTransaction: filled as eth_sendTransaction fills, nothing sent.
      const nonce = await client.getTransactionCount({ address: DEV_ADDRESS });
      const filled = await optional("eth_fillTransaction", [{
        from: DEV_ADDRESS_1,
        to: DEV_ADDRESS,
        value: "0x3",
      }]);
      if (filled !== MISSING) {
        const { raw: encoded, tx } = filled as { raw: string; tx: Record<string, string> };
        assertEquals(tx.from.toLowerCase(), DEV_ADDRESS_1.toLowerCase());
        assertEquals(
          [tx.nonce, tx.gas, tx.value],
          [toHex(await client.getTransactionCount({ address: DEV_ADDRESS_1 })), "0x5208", "0x3"],
        );
        assert(encoded.startsWith("0x02"), encoded);
        assertEquals(await client.getTransactionCount({ address: DEV_ADDRESS }), nonce);
      }
      const genesis = await client.getBlock({ blockNumber: 0n });
      const time = await optional("anvil_getGenesisTime", []);
      if (time !== MISSING) assertEquals(time, Number(genesis.timestamp));
      const { codeHash } = await raw("eth_getAccount", [contract, "latest"]) as { codeHash: string };
      const code = await optional("debug_codeByHash", [codeHash]);
      if (code !== MISSING) {
        assertEquals(code, await client.getCode({ address: contract }) ?? "0x");
        assertEquals(await raw("debug_codeByHash", ["0x" + "12".repeat(32)]), "0x");
      }
      const latestBlock = await client.getBlock({ blockTag: "latest" });
      const raws = await optional("debug_getRawTransactions", [toHex(latestBlock.number)]);
      if (raws !== MISSING) {
        const expected = await Promise.all(
          latestBlock.transactions.map((h) => raw("eth_getRawTransactionByHash", [h])),
        );
        assertEquals(raws, expected);
        assert((raws as string[]).length > 0);
      }
    },
  );

  await t.step("txpool_status / txpool_content / txpool_inspect without --http.api", async () => {
    await test.setAutomine(false);
    const hash = await dev.sendTransaction({ to: DEV_ADDRESS_1, value: 4n });
    const status = await test.getTxpoolStatus();
    assertEquals(status.pending, 1);
    const content = await test.getTxpoolContent();
    const mine = content.pending[DEV_ADDRESS.toLowerCase() as `0x${string}`] ??
      content.pending[DEV_ADDRESS as `0x${string}`];
    assertEquals(Object.values(mine ?? {})[0]?.hash, hash);
    const inspect = await test.inspectTxpool();
    assertEquals(Object.keys(inspect.pending).length, 1);
    await test.mine({ blocks: 1 });
    await test.setAutomine(true);
    assertEquals((await test.getTxpoolStatus()).pending, 0);
  });

  await t.step("anvil_metadata, hardhat_metadata, anvil_nodeInfo: anvil's fields and types", async () => {
    const shape = (v: unknown): unknown =>
      v === null || typeof v !== "object"
        ? typeof v
        : Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, shape(x)]));
    const meta = await raw("anvil_metadata") as Record<string, unknown>;
    assertEquals(meta.chainId, DEV_CHAIN_ID);
    assertEquals(meta.latestBlockNumber, Number(await client.getBlockNumber()));
    const { snapshots: _, ...rest } = meta;
    const { snapshots: __, ...hardhat } = await raw("hardhat_metadata") as Record<string, unknown>;
    fields.push({ metadata: shape(rest), hardhat: shape(hardhat) });
    const info = await raw("anvil_nodeInfo") as Record<string, unknown>;
    assertEquals(info.currentBlockNumber, toHex(await client.getBlockNumber()));
    fields.push({ nodeInfo: shape(info) });
  });

  await t.step("automine off: transactions wait for evm_mine", async () => {
    await test.setAutomine(false);
    assertEquals(await raw("anvil_getAutomine", []), false);
    const before = await client.getBlockNumber();
    const hash = await dev.sendTransaction({ to: DEV_ADDRESS_1, value: 2n });
    await new Promise((r) => setTimeout(r, 300));
    assertEquals(await client.getBlockNumber(), before);
    assertEquals(await client.getTransactionReceipt({ hash }).catch(() => null), null);
    await test.mine({ blocks: 1 });
    assertEquals((await client.getTransactionReceipt({ hash })).blockNumber, before + 1n);
    await test.setAutomine(true);
    assertEquals(await raw("anvil_getAutomine", []), true);
    const next = await dev.sendTransaction({ to: DEV_ADDRESS_1, value: 3n });
    await until(
      "the automined block",
      async () => (await client.getTransactionReceipt({ hash: next }).catch(() => null)) !== null,
    );
  });
}

Deno.test({
  name: "anvil dev methods: the same viem test client scenario passes on anvil and on keel execution --dev",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const tool = await anvilForTest("compat_anvil_methods_test");
    const anvilFields: unknown[] = [];
    const keelFields: unknown[] = [];
    if (tool.ok) {
      const anvil = await startAnvil(tool.binary, ["--chain-id", String(DEV_CHAIN_ID)]);
      try {
        await t.step("anvil", (t) => scenario(t, anvil.url, anvilFields));
      } finally {
        await anvil.stop();
      }
    }
    const node = await startKeelExecution({ ws: false });
    try {
      await t.step("keel", (t) => scenario(t, node.httpUrl, keelFields));
    } catch (e) {
      console.error(node.output().slice(-4000));
      throw e;
    } finally {
      await node.stop();
    }
    // anvil_metadata and anvil_nodeInfo: the same fields with the same JSON types.
    if (tool.ok) assertEquals(keelFields, anvilFields);
  },
});

Deno.test({
  name: "anvil_dumpState / anvil_loadState: anvil loads keel's dump and keel loads anvil's",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const tool = await anvilForTest("compat_anvil_methods_test");
    if (!tool.ok) return;
    const anvil = await startAnvil(tool.binary, ["--chain-id", String(DEV_CHAIN_ID)]);
    const node = await startKeelExecution({ ws: false });
    try {
      const clients = [anvil.url, node.httpUrl].map((url) => {
        const chain = defineChain({
          id: DEV_CHAIN_ID,
          name: "dev",
          nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
          rpcUrls: { default: { http: [url] } },
        });
        return {
          client: createPublicClient({ chain, transport: http(url), cacheTime: 0 }) as PublicClient,
          test: createTestClient({ chain, mode: "anvil", transport: http(url) }),
        };
      });
      // Each node gets its own account, with a balance, a nonce, code and a slot.
      const accounts = [privateKeyToAccount(generatePrivateKey()), privateKeyToAccount(generatePrivateKey())];
      for (const [i, { test }] of clients.entries()) {
        const address = accounts[i].address;
        await test.setBalance({ address, value: BigInt(1000 + i) });
        await test.setNonce({ address, nonce: 3 + i });
        await test.setCode({ address, bytecode: RETURNS_ONE });
        await test.setStorageAt({ address, index: 2, value: pad(toHex(40 + i)) });
      }
      const [fromAnvil, fromKeel] = await Promise.all(clients.map(({ test }) => test.dumpState()));
      await clients[0].test.loadState({ state: fromKeel });
      await clients[1].test.loadState({ state: fromAnvil });
      for (const [i, { client }] of clients.entries()) {
        const address = accounts[1 - i].address;
        assertEquals(await client.getBalance({ address }), BigInt(1000 + 1 - i));
        assertEquals(await client.getTransactionCount({ address }), 3 + 1 - i);
        assertEquals(await client.getCode({ address }), RETURNS_ONE);
        assertEquals(await client.getStorageAt({ address, slot: toHex(2) }), pad(toHex(40 + 1 - i)));
      }
    } catch (e) {
      console.error(node.output().slice(-4000));
      throw e;
    } finally {
      await Promise.all([anvil.stop(), node.stop()]);
    }
  },
});
