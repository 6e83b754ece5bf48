/**
 * Foundry's cast (npm @foundry-rs/cast, the real binary), unchanged, against a real
 * `keel execution --dev` (issue 4, "Tested with real clients"): chain-id, rpc, block-number,
 * balance, send (value and contract creation and call; --unlocked with the node's dev key), receipt, tx --raw,
 * call, logs, block, and the anvil methods through `cast rpc`.
 *
 * The binary is installed into node_modules/.cache/keel-e2e on first use; the test is skipped
 * (with the reason printed) only when the npm registry cannot be reached.
 */
import { assert, assertEquals } from "../assert.ts";
import {
  BENCH_TOKEN_BYTECODE,
  BENCH_TOKEN_SUPPLY,
  DEV_ADDRESS,
  DEV_ADDRESS_1,
  DEV_CHAIN_ID,
  DEV_PRIVATE_KEY,
  installNpmTool,
  startKeelExecution,
  TRANSFER_TOPIC,
} from "./helpers/mod.ts";

const CAST_VERSION = "1.7.1";
const tool = await installNpmTool("@foundry-rs/cast", CAST_VERSION);
if (!tool.ok && !tool.registryUnreachable) throw new Error(tool.message);
if (!tool.ok) console.warn(`compat_cast_test: skipped, the npm registry is unreachable: ${tool.message}`);

async function cast(cwd: string, ...args: string[]): Promise<string> {
  if (!tool.ok) throw new Error("cast is not installed");
  const out = await new Deno.Command(tool.binary, {
    args,
    cwd,
    env: { FOUNDRY_DISABLE_NIGHTLY_WARNING: "1", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  if (!out.success) {
    throw new Error(
      `cast ${args.join(" ")} failed (exit ${out.code}): ${dec.decode(out.stderr)}${dec.decode(out.stdout)}`,
    );
  }
  return dec.decode(out.stdout).trim();
}

Deno.test({
  name: `cast ${CAST_VERSION} drives keel execution --dev unchanged`,
  ignore: !tool.ok,
  fn: async (t) => {
    const node = await startKeelExecution({ ws: false });
    const cwd = await Deno.makeTempDir({ prefix: "keel-cast-" });
    const rpc = ["--rpc-url", node.httpUrl];
    try {
      await t.step("chain-id, rpc eth_chainId, block-number, balance", async () => {
        assertEquals(await cast(cwd, "chain-id", ...rpc), String(DEV_CHAIN_ID));
        assertEquals(await cast(cwd, "rpc", ...rpc, "eth_chainId"), `"0x${DEV_CHAIN_ID.toString(16)}"`);
        assert(/^\d+$/.test(await cast(cwd, "block-number", ...rpc)));
        assert(BigInt(await cast(cwd, "balance", ...rpc, DEV_ADDRESS)) > 10n ** 21n);
      });

      await t.step("send a value transfer with --private-key; receipt; block", async () => {
        const before = BigInt(await cast(cwd, "balance", ...rpc, DEV_ADDRESS_1));
        const sent = JSON.parse(
          await cast(
            cwd,
            "send",
            ...rpc,
            "--private-key",
            DEV_PRIVATE_KEY,
            "--json",
            DEV_ADDRESS_1,
            "--value",
            "4242",
          ),
        );
        assertEquals(sent.status, "0x1");
        assertEquals(BigInt(await cast(cwd, "balance", ...rpc, DEV_ADDRESS_1)), before + 4242n);
        const receipt = JSON.parse(await cast(cwd, "receipt", ...rpc, "--json", sent.transactionHash));
        assertEquals(receipt.transactionHash, sent.transactionHash);
        assertEquals(receipt.blockHash, sent.blockHash);
        assertEquals(BigInt(receipt.gasUsed), 21000n);
        assertEquals(receipt.status, "0x1");
        assertEquals(await cast(cwd, "receipt", ...rpc, sent.transactionHash, "gasUsed"), "21000");
        // `cast tx --raw` asks eth_getRawTransactionByHash: the signed encoding, which hashes to the tx.
        const raw = await cast(cwd, "tx", ...rpc, "--raw", sent.transactionHash);
        assertEquals(await cast(cwd, "keccak", raw), sent.transactionHash);
        const block = JSON.parse(
          await cast(cwd, "block", ...rpc, "--json", BigInt(sent.blockNumber).toString()),
        );
        assertEquals(block.hash, sent.blockHash);
        assert((block.transactions as string[]).includes(sent.transactionHash));
        const latest = JSON.parse(await cast(cwd, "block", ...rpc, "--json", "latest"));
        assert(BigInt(latest.number) >= BigInt(sent.blockNumber));
        // The first block's L1 attributes deposit (type 0x7e) in full form.
        const full = JSON.parse(await cast(cwd, "block", ...rpc, "--json", "--full", "1"));
        assertEquals(full.transactions[0].type, "0x7e");
      });

      await t.step(
        "send --unlocked (the node's dev key); rpc evm_snapshot / anvil_setBalance / evm_revert",
        async () => {
          const before = BigInt(await cast(cwd, "balance", ...rpc, DEV_ADDRESS_1));
          const sent = JSON.parse(
            await cast(
              cwd,
              "send",
              ...rpc,
              "--unlocked",
              "--from",
              DEV_ADDRESS,
              "--json",
              DEV_ADDRESS_1,
              "--value",
              "99",
            ),
          );
          assertEquals(sent.status, "0x1");
          assertEquals(sent.from.toLowerCase(), DEV_ADDRESS.toLowerCase());
          assertEquals(BigInt(await cast(cwd, "balance", ...rpc, DEV_ADDRESS_1)), before + 99n);
          const id = JSON.parse(await cast(cwd, "rpc", ...rpc, "evm_snapshot"));
          await cast(cwd, "rpc", ...rpc, "anvil_setBalance", DEV_ADDRESS_1, "0x1");
          assertEquals(await cast(cwd, "balance", ...rpc, DEV_ADDRESS_1), "1");
          assertEquals(await cast(cwd, "rpc", ...rpc, "evm_revert", id), "true");
          assertEquals(BigInt(await cast(cwd, "balance", ...rpc, DEV_ADDRESS_1)), before + 99n);
        },
      );

      await t.step("deploy with send --create; call; send a contract call; logs", async () => {
        const created = JSON.parse(
          await cast(
            cwd,
            "send",
            ...rpc,
            "--private-key",
            DEV_PRIVATE_KEY,
            "--json",
            "--create",
            BENCH_TOKEN_BYTECODE,
          ),
        );
        assertEquals(created.status, "0x1");
        const token = created.contractAddress as string;
        assert(/^0x[0-9a-fA-F]{40}$/.test(token), `contractAddress ${token}`);
        const supply = await cast(cwd, "call", ...rpc, token, "balanceOf(address)(uint256)", DEV_ADDRESS);
        assertEquals(supply.split(" ")[0], BENCH_TOKEN_SUPPLY.toString());
        const sent = JSON.parse(
          await cast(
            cwd,
            "send",
            ...rpc,
            "--private-key",
            DEV_PRIVATE_KEY,
            "--json",
            token,
            "transfer(address,uint256)",
            DEV_ADDRESS_1,
            "31",
          ),
        );
        assertEquals(sent.status, "0x1");
        assertEquals(
          await cast(cwd, "call", ...rpc, token, "balanceOf(address)(uint256)", DEV_ADDRESS_1),
          "31",
        );
        const logs = JSON.parse(
          await cast(
            cwd,
            "logs",
            ...rpc,
            "--json",
            "--from-block",
            "0",
            "--address",
            token,
            "Transfer(address indexed from,address indexed to,uint256 value)",
          ),
        );
        assertEquals(logs.length, 2);
        assertEquals(logs[1].topics[0], TRANSFER_TOPIC);
        assertEquals(logs[1].transactionHash, sent.transactionHash);
        assertEquals(BigInt(logs[1].data), 31n);
        assertEquals(logs[1].removed, false);
      });
    } finally {
      await node.stop();
      await Deno.remove(cwd, { recursive: true }).catch(() => {});
    }
  },
});
