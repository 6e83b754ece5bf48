/**
 * anvil_getBlobByHash / anvil_getBlobsByTransactionHash in L1 mode (plain Prague rules, the devnet's L1):
 * a blob transaction's blobs from the pool, and after it is mined from the blocks built here, also after
 * a restart; null for unknown hashes and for a transaction without blobs (anvil 1.7.1's answers).
 */
import { bytesToHex, hexToBytes } from "../../../../../lib/common/bytes.ts";
import { BeaconClient } from "../../../../../lib/rollup/l1/mod.ts";
import { versionedHashesOf } from "../../../../../lib/execution/txpool/mod.ts";
import { assertEquals } from "../../../../assert.ts";
import { ACCOUNTS, l1Genesis } from "../../engine/helpers.ts";
import { blobTx } from "../../txpool/fixtures.ts";
import { GWEI, open } from "./dev_node.ts";
import { devBeaconRoutes } from "../../../../../lib/execution/rpc/mod.ts";

const ZERO_HASH = `0x${"11".repeat(32)}`;

Deno.test("anvil_getBlobByHash / anvil_getBlobsByTransactionHash: pooled, kept once mined (also across a restart), null otherwise", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-dev-blobs-" });
  try {
    let node = await open(dir, undefined, true, { genesis: l1Genesis() });
    const blob = await blobTx(node.engine.config.chainId, {
      keyBytes: ACCOUNTS[0].privateKey,
      seeds: [7, 9],
      blobFeeCap: 100n,
      feeCap: 10n * GWEI,
    });
    const [first, second] = versionedHashesOf(blob.tx).map((h) => bytesToHex(h));
    const txHash = bytesToHex(blob.tx.hash());
    const blobs = blob.sidecar.blobs.map((b) => bytesToHex(b));
    try {
      node.miner.setAutomine(false);
      await node.engine.pool.add(blob.network);
      // In the pool.
      assertEquals(await node.call("anvil_getBlobByHash", [first]), blobs[0]);
      assertEquals(await node.call("anvil_getBlobsByTransactionHash", [txHash]), blobs);
      await node.call("evm_mine");
      const receipt = await node.call<{ status: string; blobGasUsed: string }>("eth_getTransactionReceipt", [
        txHash,
      ]);
      assertEquals([receipt.status, receipt.blobGasUsed], ["0x1", "0x40000"]);
      // Mined: the pool no longer has it, the chain does.
      assertEquals(node.engine.pool.blobSidecar(blob.tx.hash()), undefined);
      assertEquals(await node.call("anvil_getBlobByHash", [second]), blobs[1]);
      assertEquals(await node.call("anvil_getBlobsByTransactionHash", [txHash]), blobs);
      // With its KZG commitment and proof (for a beacon node's sidecars).
      const kept = node.engine.blobs.get(versionedHashesOf(blob.tx)[0])!;
      assertEquals([kept.commitment, kept.proof], [blob.sidecar.commitments[0], blob.sidecar.proofs[0]]);
      // A transaction without blobs, and unknown hashes.
      const plain = await node.call<string>("eth_sendTransaction", [{
        from: bytesToHex(ACCOUNTS[1].address),
        to: bytesToHex(ACCOUNTS[2].address),
        value: "0x1",
      }]);
      await node.call("evm_mine");
      assertEquals(await node.call("anvil_getBlobsByTransactionHash", [plain]), null);
      assertEquals(await node.call("anvil_getBlobsByTransactionHash", [ZERO_HASH]), null);
      assertEquals(await node.call("anvil_getBlobByHash", [ZERO_HASH]), null);
    } finally {
      await node.close();
    }
    // anvil's beacon API: the genesis time, a block's blobs by number or hash, chosen by versioned hash.
    node = await open(dir, undefined, true, { genesis: l1Genesis() });
    try {
      const engine = node.engine;
      const get = devBeaconRoutes(() => ({
        genesisHash: engine.genesisHash,
        chain: engine.chain,
        blobs: engine.blobs,
      }));
      const call = async (path: string, query = "") => {
        const res = (await get(path, new URLSearchParams(query)))!;
        return [res.status, await res.json()];
      };
      const genesis = engine.chain.getHeaderByHash(engine.genesisHash)!;
      assertEquals(await call("/eth/v1/beacon/genesis"), [200, {
        data: {
          genesis_time: genesis.timestamp.toString(),
          genesis_validators_root: `0x${"00".repeat(32)}`,
          genesis_fork_version: "0x00000000",
        },
      }]);
      const receipt = await node.call<{ blockNumber: string; blockHash: string }>(
        "eth_getTransactionReceipt",
        [txHash],
      );
      const all = { execution_optimistic: false, finalized: false, data: blobs };
      assertEquals(await call(`/eth/v1/beacon/blobs/${BigInt(receipt.blockNumber)}`), [200, all]);
      assertEquals(await call(`/eth/v1/beacon/blobs/${receipt.blockHash}`), [200, all]);
      assertEquals(
        await call(`/eth/v1/beacon/blobs/${BigInt(receipt.blockNumber)}`, `versioned_hashes=${second}`),
        [
          200,
          { ...all, data: [blobs[1]] },
        ],
      );
      // The block after it holds a transaction without blobs.
      assertEquals(await call(`/eth/v1/beacon/blobs/${BigInt(receipt.blockNumber) + 1n}`), [200, {
        ...all,
        data: [],
      }]);
      assertEquals(await call("/eth/v1/beacon/blobs/99999"), [404, {
        code: 404,
        message: "Block not found",
      }]);
      assertEquals(await call("/eth/v1/beacon/blobs/head"), [400, {
        code: 400,
        message: "Invalid block ID: head",
      }]);
      // Beyond anvil: Deneb's blob_sidecars by one-second slot, read and KZG-checked by the rollup
      // node's own beacon client over HTTP.
      const block = engine.chain.getHeaderByNumber(BigInt(receipt.blockNumber))!;
      const slot = block.timestamp - genesis.timestamp;
      const [status, body] = await call(`/eth/v1/beacon/blob_sidecars/${slot}`, "indices=1");
      assertEquals([status, body.data.length, body.data[0].index, body.data[0].blob], [
        200,
        1,
        "1",
        blobs[1],
      ]);
      assertEquals(await call("/eth/v1/config/spec"), [200, { data: { SECONDS_PER_SLOT: "1" } }]);
      assertEquals(await call("/eth/v1/node/version"), [200, { data: { version: "keel" } }]);
      assertEquals((await call(`/eth/v1/beacon/blob_sidecars/${slot + 100_000n}`))[0], 404);
      assertEquals((await call("/eth/v1/beacon/blob_sidecars/head"))[0], 400);
      const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
        const url = new URL(req.url);
        return (await get(url.pathname, url.searchParams)) ?? new Response("not found", { status: 404 });
      });
      try {
        const client = new BeaconClient(`http://127.0.0.1:${server.addr.port}`);
        const ref = {
          number: block.number,
          hash: hexToBytes(receipt.blockHash),
          parentHash: block.parentHash,
          timestamp: block.timestamp,
        };
        const read = await client.blobs(ref, [
          { index: 1, hash: versionedHashesOf(blob.tx)[1] },
          { index: 0, hash: versionedHashesOf(blob.tx)[0] },
        ]);
        assertEquals(read.map((b) => bytesToHex(b)), [blobs[1], blobs[0]]);
      } finally {
        await server.shutdown();
      }
    } finally {
      await node.close();
    }
    // Kept in the database with the block; its block reads back whole (the blob transaction decoded).
    node = await open(dir, undefined, true, { genesis: l1Genesis() });
    try {
      const receipt = await node.call<{ blockNumber: string }>("eth_getTransactionReceipt", [txHash]);
      const full = await node.call<{ transactions: { hash: string; type: string }[] }>(
        "eth_getBlockByNumber",
        [receipt.blockNumber, true],
      );
      assertEquals(full.transactions.map((t) => [t.hash, t.type]), [[txHash, "0x3"]]);
      assertEquals(await node.call("anvil_getBlobByHash", [first]), blobs[0]);
      assertEquals(await node.call("anvil_getBlobsByTransactionHash", [txHash]), blobs);
    } finally {
      await node.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
