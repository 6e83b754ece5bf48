/**
 * L2 chain derivation end to end, with anvil (the real binary) as L1: the sequencer and batcher of
 * helpers/op_chain.ts put 12 L2 blocks on anvil as Brotli calldata frames; a verifier that only reads
 * L1 derives the same chain on its own engine, block hash for block hash, reading each parent's system
 * config back from the parent block as a restarted node would.
 */
import { bytesToHex } from "../../lib/common/bytes.ts";
import { JsonRpcClient } from "../../lib/common/json_rpc_client.ts";
import { BeaconClient, L1Client } from "../../lib/rollup/l1/mod.ts";
import { kzgToVersionedHash } from "../../lib/protocol/blob_data.ts";
import { assertEquals, assertRejects } from "../assert.ts";
import { anvilForTest, type OpChain, opChainOnAnvil, startAnvil, verifyFromL1 } from "./helpers/mod.ts";

const tool = await anvilForTest("derivation_anvil_test");

const L2_BLOCKS = 12;

/**
 * A beacon node's blob API on 127.0.0.1 serving the chain's blob sidecars by slot (L1 block k is slot k:
 * its time is genesis + 12 k); `tamper` flips a byte of every blob served.
 */
function fakeBeacon(genesisTime: bigint, sidecars: OpChain["sidecars"], tamper = false) {
  const ac = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
    (req) => {
      const url = new URL(req.url);
      if (url.pathname === "/eth/v1/beacon/genesis") {
        return Response.json({
          data: { genesis_time: String(genesisTime) },
        });
      }
      if (url.pathname === "/eth/v1/config/spec") return Response.json({ data: { SECONDS_PER_SLOT: "12" } });
      const m = /^\/eth\/v1\/beacon\/blob_sidecars\/(\d+)$/.exec(url.pathname);
      if (m === null) return new Response("not found", { status: 404 });
      const bundle = sidecars.get(BigInt(m[1]));
      const indices = url.searchParams.getAll("indices").map(Number);
      const data = (bundle?.blobs ?? []).map((blob, i) => {
        const served = tamper ? blob.map((b, j) => (j === 1000 ? b ^ 1 : b)) : blob;
        return {
          index: String(i),
          blob: bytesToHex(served),
          kzg_commitment: bytesToHex(bundle!.commitments[i]),
          kzg_proof: bytesToHex(bundle!.proofs[i]),
        };
      }).filter((s) => indices.length === 0 || indices.includes(Number(s.index)));
      return Response.json({ data });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    async close() {
      ac.abort();
      await server.finished;
    },
  };
}

async function derive(da: "calldata" | "blobs") {
  const anvil = await startAnvil(tool.ok ? tool.binary : "", ["--hardfork", "prague"]);
  let beacon: ReturnType<typeof fakeBeacon> | undefined;
  try {
    const rpc = new JsonRpcClient(anvil.url);
    const l1 = new L1Client(rpc);
    const chain = await opChainOnAnvil(rpc, l1, L2_BLOCKS, da);
    if (da === "blobs") {
      assertEquals(chain.sidecars.size, 1);
      beacon = fakeBeacon(chain.cfg.genesis.l2Time, chain.sidecars);
      // A beacon node that serves altered blobs is caught by the KZG proof.
      const bad = fakeBeacon(chain.cfg.genesis.l2Time, chain.sidecars, true);
      try {
        const [[number, bundle]] = [...chain.sidecars];
        const block = await l1.blockRef(number);
        const hashes = bundle.commitments.map((c, index) => ({ index, hash: kzgToVersionedHash(c) }));
        await assertRejects(() => new BeaconClient(bad.url).blobs(block, hashes), Error, "KZG proof");
        assertEquals(await new BeaconClient(beacon.url).blobs(block, hashes), bundle.blobs);
      } finally {
        await bad.close();
      }
    }
    await verifyFromL1(l1, chain, beacon === undefined ? undefined : new BeaconClient(beacon.url));
    await chain.sequencer.close();
  } finally {
    await beacon?.close();
    await anvil.stop();
  }
}

Deno.test({
  name: "derivation: a verifier reading only anvil derives the sequencer's L2 chain (calldata)",
  ignore: !tool.ok,
  sanitizeResources: false,
  fn: () => derive("calldata"),
});

Deno.test({
  name: "derivation: the same from a blob, read from a beacon node and checked by KZG (Ecotone)",
  ignore: !tool.ok,
  sanitizeResources: false,
  fn: () => derive("blobs"),
});
