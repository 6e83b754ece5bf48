/**
 * Block signers (lib/rollup/p2p/block_signer.ts): the sequencer key, and a remote op-signer asked as
 * op-node asks it (`health_status` at start, `opsigner_signBlockPayload` with Go's JSON of the V1
 * arguments), over HTTP and over TLS checked against the configured CA; a block signed remotely is
 * published and accepted by a peer that expects the signer's address.
 */
import { assert, assertEquals, assertRejects } from "../../assert.ts";
import { bytesToHex } from "../../../lib/common/bytes.ts";
import { isErrorCode } from "../../../lib/common/errors.ts";
import { keccak256 } from "../../../lib/common/hash.ts";
import type { GossipBlock } from "../../../lib/protocol/gossip_block.ts";
import {
  blockSigner,
  blockSigningHash,
  blocksTopic,
  gossipSignedBytes,
  signBlockHash,
} from "../../../lib/protocol/gossip_block.ts";
import type { RollupConfig } from "../../../lib/protocol/rollup_config.ts";
import { LocalBlockSigner, RemoteBlockSigner } from "../../../lib/rollup/p2p/block_signer.ts";
import { P2pHost } from "../../../lib/rollup/p2p/mod.ts";
import { testPayload, until } from "./p2p_helpers.ts";
import { ADDRESS, fakeSigner, KEY, TLS } from "./fake_signer.ts";

const PAYLOAD_HASH = keccak256(new TextEncoder().encode("a block"));

Deno.test("remote signer: health_status at open, then op-node's V1 arguments; the signature is the key's", async () => {
  const fake = fakeSigner();
  const signer = await RemoteBlockSigner.open({
    endpoint: fake.endpoint,
    address: ADDRESS,
    headers: ["X-Auth=secret=1", "X-Other=two"],
  });
  try {
    assertEquals(fake.requests.map((r) => r.method), ["health_status"]);
    const big = (1n << 60n) + 7n; // above 2^53: the chain id is a JSON number written exactly
    for (const chainId of [901n, big]) {
      const sig = await signer.sign(chainId, PAYLOAD_HASH);
      assertEquals(bytesToHex(sig), bytesToHex(await new LocalBlockSigner(KEY).sign(chainId, PAYLOAD_HASH)));
      assertEquals(
        bytesToHex(blockSigner(blockSigningHash(chainId, PAYLOAD_HASH), sig)),
        bytesToHex(ADDRESS),
      );
      const req = fake.requests.at(-1)!;
      assertEquals(req.method, "opsigner_signBlockPayload");
      assertEquals(req.params.length, 1);
      const args = req.params[0] as Record<string, unknown>;
      assertEquals(args.domain, new Array(32).fill(0));
      assertEquals(args.payloadHash, btoa(String.fromCharCode(...PAYLOAD_HASH)));
      assertEquals(args.senderAddress, bytesToHex(ADDRESS));
      assert(req.text.includes(`"chainId":${chainId}`), req.text);
      assertEquals(req.headers.get("x-auth"), "secret=1");
      assertEquals(req.headers.get("x-other"), "two");
    }
  } finally {
    signer.close();
    await fake.server.shutdown();
  }
});

Deno.test("remote signer: a signature of another key, or not 65 bytes, is refused; no signer, no start", async () => {
  for (
    const bad of [
      bytesToHex(signBlockHash(blockSigningHash(901n, PAYLOAD_HASH), new Uint8Array(32).fill(8))),
      "0x1234",
    ]
  ) {
    const fake = fakeSigner({ bad });
    const signer = await RemoteBlockSigner.open({ endpoint: fake.endpoint, address: ADDRESS, headers: [] });
    try {
      const e = await assertRejects(() => signer.sign(901n, PAYLOAD_HASH));
      assert(isErrorCode(e, "SIGNER_BAD_SIGNATURE"), String(e));
    } finally {
      signer.close();
      await fake.server.shutdown();
    }
  }
  const closed = fakeSigner();
  await closed.server.shutdown();
  const e = await assertRejects(() =>
    RemoteBlockSigner.open({ endpoint: closed.endpoint, address: ADDRESS, headers: [] })
  );
  assert(isErrorCode(e, "SIGNER_UNREACHABLE"), String(e));
  assert((e as Error).message.includes(closed.endpoint), (e as Error).message);
  const h = await assertRejects(() =>
    RemoteBlockSigner.open({ endpoint: closed.endpoint, address: ADDRESS, headers: ["novalue"] })
  );
  assert(isErrorCode(h, "SIGNER_CONFIG"), String(h));
});

Deno.test("remote signer over TLS: the server is checked against --signer.tls.ca; the client files must load", async () => {
  const fake = fakeSigner({ tls: true });
  try {
    const tls = { ca: `${TLS}ca.crt`, cert: `${TLS}tls.crt`, key: `${TLS}tls.key` };
    const signer = await RemoteBlockSigner.open({
      endpoint: fake.endpoint,
      address: ADDRESS,
      headers: [],
      tls,
    });
    try {
      const sig = await signer.sign(901n, PAYLOAD_HASH);
      assertEquals(bytesToHex(blockSigner(blockSigningHash(901n, PAYLOAD_HASH), sig)), bytesToHex(ADDRESS));
    } finally {
      signer.close();
    }
    const untrusted = await assertRejects(() =>
      RemoteBlockSigner.open({
        endpoint: fake.endpoint,
        address: ADDRESS,
        headers: [],
        tls: { ...tls, ca: `${TLS}other_ca.crt` },
      })
    );
    assert(isErrorCode(untrusted, "SIGNER_UNREACHABLE"), String(untrusted));
    const missing = await assertRejects(() =>
      RemoteBlockSigner.open({
        endpoint: fake.endpoint,
        address: ADDRESS,
        headers: [],
        tls: { ...tls, key: `${TLS}missing.key` },
      })
    );
    assert(isErrorCode(missing, "SIGNER_CONFIG"), String(missing));
    assert((missing as Error).message.includes("--signer.tls.key"), (missing as Error).message);
  } finally {
    await fake.server.shutdown();
  }
});

Deno.test("remote signer: a block it signs is published and accepted by a peer expecting its address", async () => {
  const cfg = { l2ChainId: 901n, blockTime: 2n, forks: {} } as unknown as RollupConfig;
  const received: GossipBlock[] = [];
  const a = new P2pHost({ listenIp: "127.0.0.1", listenTcp: 0, staticPeers: [], redialMs: 60_000 }, {
    cfg,
    now: () => 1000,
    unsafeBlockSigner: () => ADDRESS,
    onBlock: (block) => received.push(block),
  });
  await a.start();
  const fake = fakeSigner();
  const signer = await RemoteBlockSigner.open({ endpoint: fake.endpoint, address: ADDRESS, headers: [] });
  const b = new P2pHost({
    listenIp: "127.0.0.1",
    listenTcp: 0,
    staticPeers: [a.selfInfo().addresses[0]],
    redialMs: 500,
    signer,
  }, { cfg, now: () => 1000, unsafeBlockSigner: () => ADDRESS, onBlock: () => {} });
  try {
    await b.start();
    // deno-lint-ignore no-explicit-any
    const pubsub = b.node.services.pubsub as any;
    const topic = blocksTopic(901n, 0);
    await until(
      "b seeing a's subscription",
      () => pubsub.getSubscribers(topic).some((p: unknown) => String(p) === a.selfInfo().peerID),
    );
    await b.publish(testPayload(5n, 1000n));
    await until("a accepting the block", () => received.length === 1);
    assertEquals(received[0].payload.blockNumber, 5n);
    assertEquals(a.stats.accepted, 1);
    assert(fake.requests.some((r) => r.method === "opsigner_signBlockPayload"));
    // A block signed elsewhere (opstack_publishBlockV1) goes out with its signature as given.
    const next = testPayload(6n, 1000n);
    const signature = await new LocalBlockSigner(KEY).sign(
      901n,
      keccak256(gossipSignedBytes(next, undefined, 0)),
    );
    const asked = fake.requests.length;
    await b.publishSigned(next, undefined, signature);
    await until("a accepting the second block", () => received.length === 2);
    assertEquals(bytesToHex(received[1].signature), bytesToHex(signature));
    assertEquals(fake.requests.length, asked);
  } finally {
    await b.stop();
    await a.stop();
    signer.close();
    await fake.server.shutdown();
  }
});

Deno.test("remote signer over TLS: rotated client certificate files are read again; broken ones keep the current client", async () => {
  const fake = fakeSigner({ tls: true });
  const dir = await Deno.makeTempDir({ prefix: "keel-signer-tls-" });
  const signer = await (async () => {
    await Deno.copyFile(`${TLS}tls.crt`, `${dir}/tls.crt`);
    await Deno.copyFile(`${TLS}tls.key`, `${dir}/tls.key`);
    return await RemoteBlockSigner.open({
      endpoint: fake.endpoint,
      address: ADDRESS,
      headers: [],
      tls: { ca: `${TLS}ca.crt`, cert: `${dir}/tls.crt`, key: `${dir}/tls.key` },
    });
  })();
  try {
    const signs = async () =>
      bytesToHex(blockSigner(blockSigningHash(901n, PAYLOAD_HASH), await signer.sign(901n, PAYLOAD_HASH)));
    assertEquals(await signs(), bytesToHex(ADDRESS));
    // A rotation: both files replaced.
    await Deno.copyFile(`${TLS}tls2.crt`, `${dir}/tls.crt`);
    await Deno.copyFile(`${TLS}tls2.key`, `${dir}/tls.key`);
    await until("the reload", () => signer.reloads.done === 1, 5_000);
    assertEquals(await signs(), bytesToHex(ADDRESS));
    // A broken key: the current client stays.
    await Deno.writeTextFile(`${dir}/tls.key`, "not a key");
    await until("the failed reload", () => signer.reloads.failed === 1, 5_000);
    assertEquals(signer.reloads.done, 1);
    assertEquals(await signs(), bytesToHex(ADDRESS));
  } finally {
    signer.close();
    await fake.server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
