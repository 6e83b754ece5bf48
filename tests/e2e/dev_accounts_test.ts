/**
 * `keel execution --dev` with anvil's options for a new dev chain: `--dev.accounts`, `--dev.balance`,
 * `--dev.mnemonic` (checked as BIP-39), `--dev.basefee`, `--dev.timestamp`, and geth's `--dev.gaslimit`, on a
 * real process.
 * The accounts are funded, unlocked (eth_sendTransaction signs with their keys), their balance, the gas
 * limit and the base fee are the genesis's; a restart on the same data dir keeps that genesis.
 * `--dev.hardfork` (anvil's `--hardfork`) makes a chain of any OP fork from Bedrock to Jovian, each sealing
 * blocks with that fork's header and receipt fields; `--dev.no-mining` (anvil's `--no-mining`) seals only
 * on evm_mine.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { rpcResult, sendAndWait, startKeelExecution } from "./helpers/mod.ts";

/** The BIP-44 test vector: m/44'/60'/0'/0/0 of "abandon ... about" is 0x9858…da94. */
const MNEMONIC =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const FIRST = "0x9858effd232b4033e47d90003d41ec34ecaeda94";
const ETHER = 10n ** 18n;

Deno.test({
  name:
    "keel execution --dev: --dev.accounts, --dev.balance, --dev.mnemonic, --dev.gaslimit, --dev.basefee and --dev.timestamp make the dev chain",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "keel-dev-accounts-" });
    const args = [
      "--dev.accounts=3",
      "--dev.balance=5",
      `--dev.mnemonic=${MNEMONIC}`,
      "--dev.gaslimit=40000000",
      "--dev.basefee=7",
      "--dev.timestamp=4000000000",
    ];
    try {
      let node = await startKeelExecution({ ws: false, dataDir, args });
      try {
        const accounts = await rpcResult(node.httpUrl, "eth_accounts", []) as string[];
        assertEquals(accounts.length, 3);
        assertEquals(accounts[0], FIRST);
        for (const a of accounts) {
          assertEquals(BigInt(await rpcResult(node.httpUrl, "eth_getBalance", [a, "latest"])), 5n * ETHER);
        }
        // The test mnemonic's account 0 is not funded on this chain.
        const testAccount0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
        assertEquals(BigInt(await rpcResult(node.httpUrl, "eth_getBalance", [testAccount0, "latest"])), 0n);
        // Unlocked: the node signs for them.
        const receipt = await sendAndWait(node.httpUrl, { from: accounts[1], to: accounts[2], value: "0x1" });
        assertEquals(receipt.status, "0x1");
        assertEquals(receipt.from, accounts[1]);
        const block = await rpcResult(node.httpUrl, "eth_getBlockByNumber", ["latest", false]) as {
          gasLimit: string;
          timestamp: string;
        };
        assertEquals(BigInt(block.gasLimit), 40_000_000n);
        const genesis = await rpcResult(node.httpUrl, "eth_getBlockByNumber", ["0x0", false]) as {
          baseFeePerGas: string;
          timestamp: string;
        };
        assertEquals(BigInt(genesis.baseFeePerGas), 7n);
        // A genesis in the future: the blocks go on from its timestamp.
        assertEquals(BigInt(genesis.timestamp), 4_000_000_000n);
        assertEquals(BigInt(block.timestamp), 4_000_000_001n);
      } finally {
        await node.stop();
      }
      // A restart keeps the chain (its genesis is in the data dir), whatever the account options say.
      node = await startKeelExecution({ ws: false, dataDir, args: ["--dev.balance=7"] });
      try {
        assertEquals(BigInt(await rpcResult(node.httpUrl, "eth_getBalance", [FIRST, "latest"])), 5n * ETHER);
      } finally {
        await node.stop();
      }
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "keel execution --dev: a --dev.mnemonic that is not BIP-39 stops the start with the reason",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const bad = await startKeelExecution({
      ws: false,
      inMemory: true,
      args: ["--dev.mnemonic=test test test test test test test test test test test test"],
    }).then(
      async (n) => {
        await n.stop();
        return undefined;
      },
      (e: Error) => e,
    );
    assert(bad !== undefined, "a bad mnemonic must stop the start");
    assertStringIncludes(bad.message, "Invalid mnemonic: its checksum does not match its words");
  },
});

Deno.test({
  name:
    "keel execution --dev --dev.hardfork: a dev chain on an earlier or later OP fork seals blocks of that fork",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    // Per fork: the header fields and receipt fields that fork has (exec-engine.md of each fork).
    const cases = [
      { fork: "bedrock", withdrawals: false, beacon: false, extraDataBytes: 0, ecotoneFee: false },
      { fork: "regolith", withdrawals: false, beacon: false, extraDataBytes: 0, ecotoneFee: false },
      { fork: "canyon", withdrawals: true, beacon: false, extraDataBytes: 0, ecotoneFee: false },
      { fork: "delta", withdrawals: true, beacon: false, extraDataBytes: 0, ecotoneFee: false },
      { fork: "fjord", withdrawals: true, beacon: true, extraDataBytes: 0, ecotoneFee: true },
      { fork: "granite", withdrawals: true, beacon: true, extraDataBytes: 0, ecotoneFee: true },
      { fork: "isthmus", withdrawals: true, beacon: true, extraDataBytes: 9, ecotoneFee: true },
      { fork: "ecotone", withdrawals: true, beacon: true, extraDataBytes: 0, ecotoneFee: true },
      { fork: "holocene", withdrawals: true, beacon: true, extraDataBytes: 9, ecotoneFee: true },
      { fork: "jovian", withdrawals: true, beacon: true, extraDataBytes: 17, ecotoneFee: true },
    ];
    for (const c of cases) {
      const node = await startKeelExecution({
        ws: false,
        inMemory: true,
        args: [`--dev.hardfork=${c.fork}`],
      });
      try {
        const [from, to] = await rpcResult(node.httpUrl, "eth_accounts", []) as string[];
        const receipt = await sendAndWait(node.httpUrl, { from, to, value: "0x1" });
        assertEquals(receipt.status, "0x1", c.fork);
        assertEquals("l1BaseFeeScalar" in receipt, c.ecotoneFee, `${c.fork}: l1BaseFeeScalar`);
        assertEquals("l1FeeScalar" in receipt, !c.ecotoneFee, `${c.fork}: l1FeeScalar`);
        const block = await rpcResult(node.httpUrl, "eth_getBlockByNumber", [
          receipt.blockNumber,
          false,
        ]) as Record<
          string,
          string
        >;
        assertEquals("withdrawalsRoot" in block, c.withdrawals, `${c.fork}: withdrawalsRoot`);
        assertEquals("parentBeaconBlockRoot" in block, c.beacon, `${c.fork}: parentBeaconBlockRoot`);
        assertEquals((block.extraData.length - 2) / 2, c.extraDataBytes, `${c.fork}: extraData`);
      } finally {
        await node.stop();
      }
    }
  },
});

Deno.test({
  name: "keel execution --dev --dev.no-mining: transactions wait in the pool until evm_mine",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const node = await startKeelExecution({ ws: false, inMemory: true, args: ["--dev.no-mining"] });
    try {
      assertEquals(await rpcResult(node.httpUrl, "anvil_getAutomine", []), false);
      const [from, to] = await rpcResult(node.httpUrl, "eth_accounts", []) as string[];
      const hash = await rpcResult(node.httpUrl, "eth_sendTransaction", [{ from, to, value: "0x1" }]);
      await new Promise((r) => setTimeout(r, 1500));
      assertEquals(await rpcResult(node.httpUrl, "eth_blockNumber", []), "0x0");
      assertEquals(await rpcResult(node.httpUrl, "eth_getTransactionReceipt", [hash]), null);
      await rpcResult(node.httpUrl, "evm_mine", []);
      const receipt = await rpcResult(node.httpUrl, "eth_getTransactionReceipt", [hash]) as {
        blockNumber: string;
      };
      assertEquals(receipt.blockNumber, "0x1");
    } finally {
      await node.stop();
    }
  },
});
