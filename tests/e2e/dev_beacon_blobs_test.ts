/**
 * A dev chain under plain Ethereum rules (`keel execution --dev --genesis <L1 genesis>`, as the devnet's
 * L1) and anvil 1.7.1 side by side: the same signed blob transaction mined on each, then its blobs through
 * anvil's beacon API on the HTTP port (`/eth/v1/beacon/genesis`, `/eth/v1/beacon/blobs/{block_id}` by
 * number, by hash, chosen by versioned hash; the errors) and through anvil_getBlobByHash /
 * anvil_getBlobsByTransactionHash: the same answers.
 */
import { bytesToHex } from "../../lib/common/bytes.ts";
import { buildL1DevGenesis } from "../../lib/execution/genesis/mod.ts";
import { versionedHashesOf } from "../../lib/execution/txpool/mod.ts";
import { assertEquals } from "../assert.ts";
import { blobTx } from "../unit/execution/txpool/fixtures.ts";
import { ACCOUNTS } from "../unit/execution/engine/helpers.ts";
import { anvilForTest, rpcResult, startAnvil, startKeelExecution } from "./helpers/mod.ts";

Deno.test({
  name: "L1 dev mode: a blob transaction's blobs through the beacon API and anvil_getBlob*, as anvil's",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const tool = await anvilForTest("dev_beacon_blobs_test");
    if (!tool.ok) return;
    const dir = await Deno.makeTempDir({ prefix: "keel-l1-blobs-" });
    const genesisPath = `${dir}/l1-genesis.json`;
    await Deno.writeTextFile(
      genesisPath,
      JSON.stringify(
        buildL1DevGenesis({ chainId: 31337n, timestamp: BigInt(Math.floor(Date.now() / 1000)) }),
      ),
    );
    const anvil = await startAnvil(tool.binary, ["--hardfork", "prague"]);
    const keel = await startKeelExecution({
      ws: false,
      dataDir: `${dir}/keel`,
      args: [`--genesis=${genesisPath}`],
    });
    try {
      const blob = await blobTx(31337n, {
        keyBytes: ACCOUNTS[0].privateKey,
        seeds: [3, 4],
        blobFeeCap: 10n ** 10n,
        feeCap: 10n ** 11n,
      });
      const txHash = bytesToHex(blob.tx.hash());
      const [first, second] = versionedHashesOf(blob.tx).map((h) => bytesToHex(h));
      const answers = [];
      for (const url of [anvil.url, keel.httpUrl]) {
        assertEquals(await rpcResult(url, "eth_sendRawTransaction", [bytesToHex(blob.network)]), txHash);
        await rpcResult(url, "evm_mine", []);
        const receipt = await rpcResult(url, "eth_getTransactionReceipt", [txHash]);
        const get = async (path: string) => {
          const res = await fetch(`${url}${path}`);
          return [res.status, await res.json()];
        };
        const genesis = await get("/eth/v1/beacon/genesis");
        const block = await rpcResult(url, "eth_getBlockByNumber", ["0x0", false]);
        assertEquals(genesis, [200, {
          data: {
            genesis_time: BigInt(block.timestamp).toString(),
            genesis_validators_root: `0x${"00".repeat(32)}`,
            genesis_fork_version: "0x00000000",
          },
        }]);
        answers.push({
          status: receipt.status,
          byNumber: await get(`/eth/v1/beacon/blobs/${BigInt(receipt.blockNumber)}`),
          byHash: await get(`/eth/v1/beacon/blobs/${receipt.blockHash}`),
          chosen: await get(`/eth/v1/beacon/blobs/${BigInt(receipt.blockNumber)}?versioned_hashes=${second}`),
          missing: await get("/eth/v1/beacon/blobs/99999"),
          invalid: await get("/eth/v1/beacon/blobs/head"),
          byVersionedHash: await rpcResult(url, "anvil_getBlobByHash", [first]),
          byTransaction: await rpcResult(url, "anvil_getBlobsByTransactionHash", [txHash]),
          unknown: await rpcResult(url, "anvil_getBlobByHash", [`0x01${"22".repeat(31)}`]),
        });
      }
      const [theirs, ours] = answers;
      assertEquals(ours, theirs);
      assertEquals(ours.status, "0x1");
      assertEquals(ours.byNumber[1].data, blob.sidecar.blobs.map((b) => bytesToHex(b)));
      assertEquals(ours.chosen[1].data, [bytesToHex(blob.sidecar.blobs[1])]);
    } catch (e) {
      console.error(keel.output().slice(-3000));
      throw e;
    } finally {
      await keel.stop();
      await anvil.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
