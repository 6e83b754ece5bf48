/** State reads at a block (EIP-1898 tags), eth_getProof, chain id, net and web3. */
import { createMPTFromProof, verifyMerkleProof } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { Address } from "@ethereumjs/util";
import { bytesToHex, hexToBytes, keccak256 } from "../../../../lib/common/mod.ts";
import { assert, assertEquals } from "../../../assert.ts";
import { A, B, C, createDeployed, ETHER, LOGGER_RUNTIME } from "./fixture.ts";

const d = await createDeployed();
const f = d.fixture;
const hex = bytesToHex;

Deno.test("eth_blockNumber, eth_chainId, net_*, web3_*, eth_syncing, eth_accounts", async () => {
  assertEquals(await f.call("eth_blockNumber"), "0x2");
  assertEquals(await f.call("eth_chainId"), "0x385");
  assertEquals(await f.call("net_version"), "901");
  assertEquals(await f.call("net_listening"), true);
  assertEquals(await f.call("net_peerCount"), "0x0");
  assertEquals(await f.call("web3_clientVersion"), "keel/v0.1.0-test/linux-x64/deno2.9.6");
  assertEquals(
    await f.call("web3_sha3", ["0x68656c6c6f20776f726c64"]),
    "0x47173285a8d7341e5e972fc677286384f802f8ef42a5ec5f03bbfa254cb01fad",
  );
  assertEquals(await f.call("eth_syncing"), false);
  assertEquals(await f.call("eth_accounts"), []);
});

Deno.test("eth_getBalance at latest, a number, earliest, a hash object; unknown block errors", async () => {
  const latest = BigInt(await f.call<string>("eth_getBalance", [hex(B.address), "latest"]));
  const genesis = BigInt(await f.call<string>("eth_getBalance", [hex(B.address), "earliest"]));
  // Block 1: +1 ETH from A and +1 ETH (deposit value) from D; block 2: B pays 123 wei + fees.
  const atOne = BigInt(await f.call<string>("eth_getBalance", [hex(B.address), "0x1"]));
  assertEquals(atOne, genesis + 2n * ETHER);
  assert(latest < atOne);
  const byHash = await f.call("eth_getBalance", [hex(B.address), { blockHash: hex(d.block1.hash) }]);
  assertEquals(BigInt(byHash as string), atOne);
  const byNumberObj = await f.call("eth_getBalance", [hex(B.address), { blockNumber: "0x1" }]);
  assertEquals(byNumberObj, byHash);
  assertEquals(await f.call("eth_getBalance", [hex(B.address)]), `0x${latest.toString(16)}`);
  assertEquals((await f.rpc("eth_getBalance", [hex(B.address), "0x10"])).error, {
    code: -32000,
    message: "header not found",
  });
  assertEquals(
    (await f.rpc("eth_getBalance", [hex(B.address), { blockHash: hex(new Uint8Array(32)) }])).error?.message,
    "header for hash not found",
  );
  assertEquals((await f.rpc("eth_getBalance", ["0x12", "latest"])).error?.code, -32602);
  assertEquals(
    await f.call("eth_getBalance", ["0x3000000000000000000000000000000000000000", "latest"]),
    "0x0",
  );
});

Deno.test("eth_getCode and eth_getStorageAt of the deployed logger", async () => {
  const code = await f.call<string>("eth_getCode", [hex(d.logger), "latest"]);
  assertEquals(code, hex(LOGGER_RUNTIME));
  assertEquals(await f.call("eth_getCode", [hex(d.logger), "0x0"]), "0x");
  assertEquals(
    await f.call("eth_getStorageAt", [hex(d.logger), "0x0", "latest"]),
    hex(new Uint8Array(32).fill(7)),
  );
  assertEquals(await f.call("eth_getStorageAt", [hex(d.logger), "0x0", "0x1"]), hex(new Uint8Array(32)));
  assertEquals(
    await f.call("eth_getStorageAt", [hex(d.logger), hex(new Uint8Array(32)), "latest"]),
    hex(new Uint8Array(32).fill(7)),
  );
  assertEquals((await f.rpc("eth_getStorageAt", [hex(d.logger), "0xzz", "latest"])).error?.code, -32602);
});

Deno.test("eth_getTransactionCount: latest, historic, pending includes the pool", async () => {
  assertEquals(await f.call("eth_getTransactionCount", [hex(A.address), "latest"]), "0x6");
  assertEquals(await f.call("eth_getTransactionCount", [hex(A.address), "0x1"]), "0x4");
  assertEquals(await f.call("eth_getTransactionCount", [hex(C.address), "latest"]), "0x0");
  assertEquals(await f.call("eth_getTransactionCount", [hex(C.address), "pending"]), "0x1");
});

Deno.test("eth_getBlockByNumber safe/finalized follow the chain's labels; requireCanonical", async () => {
  f.chain.setSafeHead(d.block1.hash);
  f.chain.setFinalizedHead(d.block1.hash);
  assertEquals(
    (await f.call<Record<string, unknown>>("eth_getBlockByNumber", ["safe", false])).number,
    "0x1",
  );
  assertEquals(
    (await f.call<Record<string, unknown>>("eth_getBlockByNumber", ["finalized", false])).number,
    "0x1",
  );
  const r = await f.call("eth_getBalance", [hex(B.address), {
    blockHash: hex(d.block1.hash),
    requireCanonical: true,
  }]);
  assert(typeof r === "string");
});

Deno.test("eth_getProof: account and storage proofs verify against the state root", async () => {
  const header = f.chain.getHeadHeader("latest")!;
  const slot = "0x0";
  const proof = await f.call<Record<string, unknown>>("eth_getProof", [hex(d.logger), [slot], "latest"]);
  assertEquals(proof.address, hex(d.logger));
  assertEquals(proof.nonce, "0x1");
  assertEquals(proof.balance, "0x0");
  assertEquals(
    proof.codeHash,
    hex(keccak256(hexToBytes(await f.call<string>("eth_getCode", [hex(d.logger)])))),
  );
  const accountProof = (proof.accountProof as string[]).map(hexToBytes);
  const key = keccak256(d.logger);
  const value = await verifyMerkleProof(
    key,
    accountProof,
    { useKeyHashing: false, root: header.stateRoot } as never,
  );
  assert(value !== null, "the account is in the state trie");
  const [nonce, balance, storageRoot, codeHash] = RLP.decode(value!) as Uint8Array[];
  assertEquals(hex(storageRoot), proof.storageHash);
  assertEquals(hex(codeHash), proof.codeHash);
  assertEquals(nonce.length === 0 ? 0n : BigInt(hex(nonce)), 1n);
  assertEquals(balance.length, 0);
  const sp = (proof.storageProof as { key: string; value: string; proof: string[] }[])[0];
  assertEquals(sp.key, slot);
  assertEquals(sp.value, "0x" + "07".repeat(32).replace(/^0+/, ""));
  const trie = await createMPTFromProof(sp.proof.map(hexToBytes), { useKeyHashing: true });
  assertEquals(hex(trie.root()), proof.storageHash);
  const stored = await trie.get(new Uint8Array(32));
  assertEquals(hex(RLP.decode(stored!) as Uint8Array), hex(new Uint8Array(32).fill(7)));
  // An absent account: zero fields and a proof of absence.
  const absent = await f.call<Record<string, unknown>>("eth_getProof", [
    "0x4000000000000000000000000000000000000000",
    [],
    "latest",
  ]);
  assertEquals([absent.balance, absent.nonce], ["0x0", "0x0"]);
  const none = await verifyMerkleProof(
    keccak256(new Address(hexToBytes("0x4000000000000000000000000000000000000000")).bytes),
    (absent.accountProof as string[]).map(hexToBytes),
    { useKeyHashing: false, root: header.stateRoot } as never,
  );
  assertEquals(none, null);
});

Deno.test("eth_getProof: storage keys named as geth names them; an absent account keeps one entry per key", async () => {
  const q = (address: string, keys: string[]) =>
    f.call<{ storageProof: { key: string; value: string; proof: string[] }[] }>("eth_getProof", [
      address,
      keys,
      "latest",
    ]);
  const full = `0x${"0".repeat(63)}0`;
  const p = await q(hex(d.logger), ["0x00", "0X0", "0", "0x", full, full.toUpperCase().replace("0X", "0x")]);
  assertEquals(p.storageProof.map((e) => e.key), ["0x0", "0x0", "0x0", "0x0", full, full]);
  const seven = "0x" + "07".repeat(32).replace(/^0+/, "");
  assertEquals(p.storageProof.map((e) => e.value), Array(6).fill(seven));
  const upper = await q(hex(d.logger), ["0x" + "AB".repeat(32)]);
  assertEquals(upper.storageProof[0].key, "0x" + "ab".repeat(32));
  // geth GetProof: no storage trie, so each key answers 0 with no proof nodes.
  const absent = await q("0x4000000000000000000000000000000000000000", ["0x1", full]);
  assertEquals(absent.storageProof, [{ key: "0x1", value: "0x0", proof: [] }, {
    key: full,
    value: "0x0",
    proof: [],
  }]);
  const tooLong = await f.rpc("eth_getProof", [hex(d.logger), ["0x" + "00".repeat(33)], "latest"]);
  assertEquals(tooLong.error?.message.includes("hex string too long, want at most 32 bytes"), true);
  const bad = await f.rpc("eth_getProof", [hex(d.logger), ["0xzz"], "latest"]);
  assertEquals(bad.error?.message.includes("hex string invalid"), true);
});

Deno.test("pending: the nonce counts the pool's executable txs (not a gapped one); the pending block is the latest", async () => {
  const g = (await createDeployed()).fixture;
  const a = hex(A.address);
  assertEquals(await g.call("eth_getTransactionCount", [a, "pending"]), "0x6");
  await g.pool.add(g.sign(A, 6n, { to: B.address, value: 1n, gas: 21_000n }).serialize());
  await g.pool.add(g.sign(A, 7n, { to: B.address, value: 1n, gas: 21_000n }).serialize());
  // Nonce 9 leaves a gap at 8: queued, not counted.
  await g.pool.add(g.sign(A, 9n, { to: B.address, value: 1n, gas: 21_000n }).serialize());
  assertEquals(await g.call("eth_getTransactionCount", [a, "pending"]), "0x8");
  assertEquals(await g.call("eth_getTransactionCount", [a, "latest"]), "0x6");
  // op-geth without --rollup.computependingblock: "pending" is the latest block, pool txs are not in it.
  const pending = await g.call<Record<string, unknown>>("eth_getBlockByNumber", ["pending", false]);
  const latest = await g.call<Record<string, unknown>>("eth_getBlockByNumber", ["latest", false]);
  assertEquals(pending, latest);
  assertEquals(await g.call("eth_getBlockTransactionCountByNumber", ["pending"]), "0x3");
  assertEquals(await g.call("eth_getBalance", [a, "pending"]), await g.call("eth_getBalance", [a, "latest"]));
});
