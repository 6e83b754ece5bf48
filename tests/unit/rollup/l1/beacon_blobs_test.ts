/**
 * The rollup node's beacon client reads blobs through Fulu's getBlobs (`/eth/v1/beacon/blobs/{slot}`,
 * blobs only: each recognised by the versioned hash of its computed KZG commitment) and through Deneb's
 * blob_sidecars (commitment and proof checked), whichever the beacon node serves, remembering the one
 * that answered; an altered blob is refused on either route.
 */
import { bytesToHex } from "../../../../lib/common/bytes.ts";
import { blobSidecar, kzgToVersionedHash, loadKzg } from "../../../../lib/execution/evm/mod.ts";
import { BeaconClient } from "../../../../lib/rollup/l1/mod.ts";
import { assertEquals, assertRejects } from "../../../assert.ts";
import { testBlob } from "../../execution/txpool/fixtures.ts";

const GENESIS_TIME = 1_000n;
const SLOT = 7n;
const BLOCK = {
  number: 3n,
  hash: new Uint8Array(32),
  parentHash: new Uint8Array(32),
  timestamp: GENESIS_TIME + SLOT * 12n,
};

/** A beacon node with one slot of blobs, serving the routes named (the others 404), blobs altered if asked. */
function beacon(bundle: Awaited<ReturnType<typeof blobSidecar>>, routes: Set<string>, alter = false) {
  const served = bundle.blobs.map((b) => alter ? b.map((x, i) => (i === 500 ? x ^ 1 : x)) : b);
  const asked: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const url = new URL(req.url);
    asked.push(url.pathname.split("/").slice(0, 5).join("/"));
    if (url.pathname === "/eth/v1/beacon/genesis") {
      return Response.json({ data: { genesis_time: String(GENESIS_TIME) } });
    }
    if (url.pathname === "/eth/v1/config/spec") return Response.json({ data: { SECONDS_PER_SLOT: "12" } });
    if (routes.has("blobs") && url.pathname === `/eth/v1/beacon/blobs/${SLOT}`) {
      const wanted = url.searchParams.getAll("versioned_hashes").flatMap((v) => v.split(","));
      const data = served.filter((_, i) =>
        wanted.length === 0 || wanted.includes(bytesToHex(kzgToVersionedHash(bundle.commitments[i])))
      );
      return Response.json({ execution_optimistic: false, finalized: true, data: data.map(bytesToHex) });
    }
    if (routes.has("sidecars") && url.pathname === `/eth/v1/beacon/blob_sidecars/${SLOT}`) {
      return Response.json({
        data: served.map((blob, i) => ({
          index: String(i),
          blob: bytesToHex(blob),
          kzg_commitment: bytesToHex(bundle.commitments[i]),
          kzg_proof: bytesToHex(bundle.proofs[i]),
        })),
      });
    }
    return new Response("not found", { status: 404 });
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, asked, close: () => server.shutdown() };
}

Deno.test("beacon client: blobs through getBlobs or blob_sidecars, whichever is served; altered blobs refused", async () => {
  const bundle = blobSidecar(await loadKzg(), [testBlob(3), testBlob(4)]);
  const wanted = [1, 0].map((index) => ({ index, hash: kzgToVersionedHash(bundle.commitments[index]) }));
  const want = [bundle.blobs[1], bundle.blobs[0]].map(bytesToHex);

  // A Fulu beacon node: getBlobs only.
  const fulu = beacon(bundle, new Set(["blobs"]));
  try {
    const client = new BeaconClient(fulu.url);
    assertEquals((await client.blobs(BLOCK, wanted)).map(bytesToHex), want);
    assertEquals(client.route, "blobs");
    assertEquals(fulu.asked.filter((p) => p.includes("blob_sidecars")), []);
  } finally {
    await fulu.close();
  }
  // A Deneb beacon node: blob_sidecars only; the client turns to it and asks it first from then on.
  const deneb = beacon(bundle, new Set(["sidecars"]));
  try {
    const client = new BeaconClient(deneb.url);
    assertEquals((await client.blobs(BLOCK, wanted)).map(bytesToHex), want);
    assertEquals(client.route, "sidecars");
    deneb.asked.length = 0;
    assertEquals((await client.blobs(BLOCK, wanted.slice(0, 1))).map(bytesToHex), want.slice(0, 1));
    assertEquals(deneb.asked, ["/eth/v1/beacon/blob_sidecars"]);
  } finally {
    await deneb.close();
  }
  // Altered blobs: on getBlobs they match no committed versioned hash, on blob_sidecars their proof fails.
  const bad = beacon(bundle, new Set(["blobs", "sidecars"]), true);
  try {
    await assertRejects(() => new BeaconClient(bad.url).blobs(BLOCK, wanted), Error, "KZG proof");
  } finally {
    await bad.close();
  }
  const badFulu = beacon(bundle, new Set(["blobs"]), true);
  try {
    await assertRejects(() => new BeaconClient(badFulu.url).blobs(BLOCK, wanted), Error, "beacon");
  } finally {
    await badFulu.close();
  }
});
