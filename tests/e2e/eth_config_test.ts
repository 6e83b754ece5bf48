/**
 * eth_config (EIP-7910) on a dev chain under plain Ethereum rules (the devnet's L1 genesis, Prague from
 * genesis) and on anvil 1.7.1 at Prague, side by side: the same fork, activation time, blob schedule,
 * precompiles (geth's names) and system contracts. Two fields differ by design: anvil answers the fork
 * id 0x00000000 (keel computes EIP-2124's, as geth) and names mainnet's deposit contract on every chain
 * (keel, as geth, the one its config names, else the zero address).
 */
import { bytesToHex } from "../../lib/common/bytes.ts";
import { buildL1DevGenesis } from "../../lib/execution/genesis/mod.ts";
import { forkId } from "../../lib/protocol/fork_id.ts";
import { parseChainConfig } from "../../lib/protocol/chain_config.ts";
import { hexToBytes } from "../../lib/common/bytes.ts";
import { assertEquals } from "../assert.ts";
import { anvilForTest, rpcResult, startAnvil, startKeelExecution } from "./helpers/mod.ts";

Deno.test({
  name:
    "eth_config: an L1 dev chain at Prague answers as anvil at Prague (fork id and deposit contract aside)",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const tool = await anvilForTest("eth_config_test");
    if (!tool.ok) return;
    const dir = await Deno.makeTempDir({ prefix: "keel-eth-config-" });
    const genesisPath = `${dir}/l1-genesis.json`;
    const genesis = buildL1DevGenesis({ chainId: 31337n, timestamp: BigInt(Math.floor(Date.now() / 1000)) });
    await Deno.writeTextFile(genesisPath, JSON.stringify(genesis));
    const anvil = await startAnvil(tool.binary, ["--hardfork", "prague"]);
    const keel = await startKeelExecution({
      ws: false,
      dataDir: `${dir}/keel`,
      args: [`--genesis=${genesisPath}`],
    });
    try {
      const ours = await rpcResult(keel.httpUrl, "eth_config", []);
      const theirs = await rpcResult(anvil.url, "eth_config", []);
      const block0 = await rpcResult(keel.httpUrl, "eth_getBlockByNumber", ["0x0", false]);
      const config = parseChainConfig((genesis as { config: unknown }).config);
      const id = forkId(config, hexToBytes(block0.hash), BigInt(block0.timestamp), (1n << 64n) - 1n, 0n);
      assertEquals(ours.current.forkId, bytesToHex(id.hash));
      assertEquals(ours.current.systemContracts.DEPOSIT_CONTRACT_ADDRESS, `0x${"00".repeat(20)}`);
      const aside = (c: Record<string, unknown>) => {
        const contracts = { ...(c.systemContracts as Record<string, string>) };
        delete contracts.DEPOSIT_CONTRACT_ADDRESS;
        return { ...c, forkId: "aside", systemContracts: contracts };
      };
      assertEquals(
        { current: aside(ours.current), next: ours.next, last: ours.last },
        { current: aside(theirs.current), next: theirs.next, last: theirs.last },
      );
      assertEquals(Object.keys(ours.current.precompiles).length, 17);
    } finally {
      await keel.stop();
      await anvil.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
