/**
 * Blocks outside the canonical chain over a real dev node: the block RLP codec (a block's consensus
 * encoding decodes back to the same block and hash; malformed ones are refused), invalid imports kept as
 * bad blocks (the ten highest, across reopening the database), and debug_getBadBlocks,
 * debug_traceBadBlock, debug_traceBlock (a block as RLP) and debug_intermediateRoots.
 */
import { bytesToHex, hexToBytes } from "../../../../../lib/common/bytes.ts";
import { rlpEncode } from "../../../../../lib/common/rlp.ts";
import { decodeBlock, encodeBlock } from "../../../../../lib/execution/chain/mod.ts";
import { BAD_BLOCKS_KEPT, BadBlocks } from "../../../../../lib/execution/engine/mod.ts";
import { MemoryStore } from "../../../../../lib/db/mod.ts";
import { type Block, hashHeader } from "../../../../../lib/protocol/mod.ts";
import { assert, assertEquals, assertThrows } from "../../../../assert.ts";
import { type Node, open, transfer, withNode } from "../dev/dev_node.ts";

/** Two blocks with a deposit and a transfer each; answers the last one. */
async function twoBlocks(node: Node): Promise<{ block: Block; hash: Uint8Array }> {
  for (let i = 0n; i < 2n; i++) {
    await node.call("eth_sendRawTransaction", [bytesToHex(transfer(node, i, 5n))]);
    await node.miner.idle();
  }
  const { hash } = node.engine.head();
  return { block: node.engine.chain.getBlockByHash(hash)!, hash };
}

/** `block` with another state root: a block an import must refuse. */
function tampered(block: Block, byte: number): Block {
  const stateRoot = block.header.stateRoot.slice();
  stateRoot[0] ^= byte;
  return { ...block, header: { ...block.header, stateRoot } };
}

Deno.test("block RLP: a block decodes back to itself; malformed encodings are refused", () =>
  withNode(async (node) => {
    const { block, hash } = await twoBlocks(node);
    const rlp = encodeBlock(block);
    const back = decodeBlock(rlp);
    assertEquals(back, block);
    assertEquals(hashHeader(back.header), hash);
    assertEquals(bytesToHex(rlp), await node.call("debug_getRawBlock", ["latest"]));
    const refused = (bytes: Uint8Array) =>
      assertThrows(() => decodeBlock(bytes), Error, "Cannot decode block");
    refused(hexToBytes("0x80"));
    refused(rlpEncode([[], []]));
    refused(rlp.subarray(0, rlp.length - 1));
    const header = rlpEncode(block.header.parentHash); // not a header list
    refused(rlpEncode([header, [], []]));
  }));

Deno.test("bad blocks: the ten highest are kept", () => {
  const bad = new BadBlocks(new MemoryStore());
  const header = (n: number) => ({
    parentHash: new Uint8Array(32),
    ommersHash: new Uint8Array(32),
    coinbase: new Uint8Array(20),
    stateRoot: new Uint8Array(32).fill(n),
    transactionsRoot: new Uint8Array(32),
    receiptsRoot: new Uint8Array(32),
    logsBloom: new Uint8Array(256),
    difficulty: 0n,
    number: BigInt(n),
    gasLimit: 30_000_000n,
    gasUsed: 0n,
    timestamp: BigInt(n),
    extraData: new Uint8Array(),
    mixHash: new Uint8Array(32),
    nonce: new Uint8Array(8),
    baseFeePerGas: 7n,
  });
  for (const n of [5, 1, 12, 3, 9, 7, 2, 11, 4, 8, 10, 6]) {
    bad.record({ header: header(n), transactions: [] });
  }
  bad.record({ header: header(12), transactions: [] }); // kept once
  const kept = bad.list().map((b) => Number(b.block.header.number));
  assertEquals(kept, [12, 11, 10, 9, 8, 7, 6, 5, 4, 3]);
  assertEquals(kept.length, BAD_BLOCKS_KEPT);
  assertEquals(bad.get(hashHeader(header(1))), undefined);
  assertEquals(bad.get(hashHeader(header(9)))?.header.number, 9n);
});

Deno.test("debug_getBadBlocks and debug_traceBadBlock: an invalid import is kept and can be traced", () =>
  withNode(async (node) => {
    const { block } = await twoBlocks(node);
    const parent = node.engine.chain.getBlockByHash(block.header.parentHash)!;
    // The last block again on its parent, with a wrong state root: refused as INVALID, and kept.
    const bad = tampered(block, 0xff);
    const badHash = hashHeader(bad.header);
    let failed = false;
    try {
      await node.engine.importPayload(bad);
    } catch (e) {
      failed = true;
      assert((e as Error).message.includes("stateRoot"), (e as Error).message);
    }
    assert(failed, "the tampered block was imported");
    const list = await node.call<
      { hash: string; block: { number: string; transactions: unknown[] }; rlp: string }[]
    >(
      "debug_getBadBlocks",
    );
    assertEquals(list.map((b) => b.hash), [bytesToHex(badHash)]);
    assertEquals(list[0].rlp, bytesToHex(encodeBlock(bad)));
    assertEquals(list[0].block.number, `0x${bad.header.number.toString(16)}`);
    assertEquals(list[0].block.transactions.length, bad.transactions.length);
    // Traced as the good block it copies: the same transactions on the same parent.
    const good = await node.call("debug_traceBlockByHash", [bytesToHex(hashHeader(block.header)), {
      tracer: "callTracer",
    }]);
    assertEquals(
      await node.call("debug_traceBadBlock", [bytesToHex(badHash), { tracer: "callTracer" }]),
      good,
    );
    const missing = await node.error("debug_traceBadBlock", [bytesToHex(hashHeader(parent.header))]);
    assertEquals(missing.message, `bad block ${bytesToHex(hashHeader(parent.header))} not found`);
    // debug_intermediateRoots takes bad blocks too: its last root is the good block's state root.
    const roots = await node.call<string[]>("debug_intermediateRoots", [bytesToHex(badHash)]);
    assertEquals(roots.at(-1), bytesToHex(block.header.stateRoot));
  }));

Deno.test("debug_traceBlock and debug_intermediateRoots on a canonical block", () =>
  withNode(async (node) => {
    const { block, hash } = await twoBlocks(node);
    const rlp = await node.call<string>("debug_getRawBlock", ["latest"]);
    const byHash = await node.call("debug_traceBlockByHash", [bytesToHex(hash), { tracer: "callTracer" }]);
    assertEquals(await node.call("debug_traceBlock", [rlp, { tracer: "callTracer" }]), byHash);
    assertEquals(
      await node.call("debug_traceBlock", [rlp]),
      await node.call("debug_traceBlockByHash", [bytesToHex(hash)]),
    );
    const undecodable = await node.error("debug_traceBlock", ["0xc180"]);
    assert(undecodable.message.startsWith("could not decode block: "), undecodable.message);
    const orphan = tampered(block, 0); // same block, then a parent nobody has
    orphan.header = { ...orphan.header, parentHash: new Uint8Array(32).fill(9) };
    const noParent = await node.error("debug_traceBlock", [bytesToHex(encodeBlock(orphan))]);
    assertEquals(noParent.message, `parent ${bytesToHex(new Uint8Array(32).fill(9))} not found`);
    // One root per transaction (the L1-info deposit and the transfer); the last is the block's own.
    const roots = await node.call<string[]>("debug_intermediateRoots", [bytesToHex(hash)]);
    assertEquals(roots.length, block.transactions.length);
    assertEquals(roots.at(-1), bytesToHex(block.header.stateRoot));
    assert(roots[0] !== roots[1]);
    const genesis = await node.error("debug_intermediateRoots", [bytesToHex(node.engine.genesisHash)]);
    assertEquals(genesis.message, "genesis is not traceable");
  }));

Deno.test("bad blocks survive a restart (kept in the node's database)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-bad-blocks-" });
  try {
    let node = await open(dir);
    const { block } = await twoBlocks(node);
    const bad = tampered(block, 0x0f);
    await node.engine.importPayload(bad).then(() => assert(false, "imported"), () => {});
    await node.close();
    node = await open(dir);
    try {
      const list = await node.call<{ hash: string }[]>("debug_getBadBlocks");
      assertEquals(list.map((b) => b.hash), [bytesToHex(hashHeader(bad.header))]);
    } finally {
      await node.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
