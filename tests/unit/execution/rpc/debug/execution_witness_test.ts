/**
 * debug_executionWitness / debug_executionWitnessByBlockHash over a real dev node (sqlite): the witness of
 * a block that clears a slot, writes two and reads BLOCKHASH three blocks back is enough to import the
 * block statelessly (a memory store holding the witness nodes and codes alone, BLOCKHASH answered from the
 * witness headers, the full import validation and roots); without one of its nodes the import fails.
 */
import { bytesToHex, concatBytes, hexToBytes } from "../../../../../lib/common/bytes.ts";
import { keccak256 } from "../../../../../lib/common/hash.ts";
import { MemoryStore, PREFIXES } from "../../../../../lib/db/mod.ts";
import { decodeHeader } from "../../../../../lib/execution/chain/mod.ts";
import { importBlock } from "../../../../../lib/execution/evm/mod.ts";
import { createStateManager } from "../../../../../lib/execution/state/mod.ts";
import { type Block, hashHeader, type Header } from "../../../../../lib/protocol/block.ts";
import { assert, assertEquals, assertRejects } from "../../../../assert.ts";
import { DEV, type Node, OTHER, transfer, withNode } from "../dev/dev_node.ts";

/** W: sstore(1, 0); sstore(2, number); sstore(3, blockhash(number - 3)). */
const W_RUNTIME = hexToBytes("0x600060015543600255600343034060035500");
/** Sets slots 1, 4, 5 and 6 to 1, then returns W_RUNTIME (copied from offset 0x20). */
const W_INIT = concatBytes(
  hexToBytes("0x6001600155600160045560016005556001600655601260206000396012600" + "0f3"),
  W_RUNTIME,
);

interface Witness {
  state: string[];
  codes: string[];
  keys: string[];
  headers: string[];
}

async function mine(node: Node, tx: Record<string, string>): Promise<string> {
  const hash = await node.call<string>("eth_sendTransaction", [{ from: bytesToHex(DEV.address), ...tx }]);
  await node.miner.idle();
  return hash;
}

/** Imports `block` on `parent`'s state root with nothing but the witness. */
async function importStateless(node: Node, parent: Header, block: Block, w: Witness): Promise<void> {
  const store = new MemoryStore();
  for (const n of w.state) {
    const rlp = hexToBytes(n as `0x${string}`);
    store.put(concatBytes(new Uint8Array([PREFIXES.trieNode]), keccak256(rlp)), rlp);
  }
  for (const c of w.codes) {
    const code = hexToBytes(c as `0x${string}`);
    // The code rows as the state manager keeps them: `c` ‖ code hash under the trie-node prefix.
    store.put(concatBytes(new Uint8Array([PREFIXES.trieNode, 0x63]), keccak256(code)), code);
  }
  const headers = w.headers.map((r) => decodeHeader(hexToBytes(r as `0x${string}`)));
  const byNumber = new Map(headers.map((h) => [h.number, h]));
  const sm = await createStateManager(store, parent.stateRoot);
  await importBlock(node.engine.config, parent, block, {
    stateManager: sm,
    getBlockHash: (n) => {
      const h = byNumber.get(n);
      return Promise.resolve(h === undefined ? undefined : hashHeader(h));
    },
  });
}

Deno.test("debug_executionWitness: a block imports statelessly from its witness alone", () =>
  withNode(async (node) => {
    for (let i = 0n; i < 4n; i++) {
      await node.call("eth_sendRawTransaction", [bytesToHex(transfer(node, i, 1n + i))]);
      await node.miner.idle();
    }
    const deployed = await mine(node, { data: bytesToHex(W_INIT), gas: "0x30000" });
    const w = (await node.call<{ contractAddress: string }>("eth_getTransactionReceipt", [deployed]))
      .contractAddress;
    await mine(node, { to: w, gas: "0x20000" });
    const number = node.engine.head().header.number;
    const block = node.engine.chain.getBlockByHash(node.engine.head().hash)!;
    const parent = node.engine.chain.getHeaderByHash(block.header.parentHash)!;
    // The call did what the witness must cover: slot 1 cleared, slot 3 = blockhash(number - 3).
    const slot = (n: number) => "0x" + n.toString(16).padStart(64, "0");
    assertEquals(BigInt(await node.call<string>("eth_getStorageAt", [w, slot(1), "latest"])), 0n);
    const old = await node.call<{ hash: string }>("eth_getBlockByNumber", [
      `0x${(number - 3n).toString(16)}`,
      false,
    ]);
    assertEquals(await node.call("eth_getStorageAt", [w, slot(3), "latest"]), old.hash);

    const witness = await node.call<Witness>("debug_executionWitness", [`0x${number.toString(16)}`]);
    assertEquals(
      await node.call("debug_executionWitnessByBlockHash", [bytesToHex(node.engine.head().hash)]),
      witness,
    );
    assertEquals(await node.call("debug_executionWitness", ["latest"]), witness);
    // Headers from blockhash(number - 3) to the parent, oldest first.
    assertEquals(
      witness.headers.map((r) => decodeHeader(hexToBytes(r as `0x${string}`)).number),
      [number - 3n, number - 2n, number - 1n],
    );
    assert(witness.codes.includes(bytesToHex(W_RUNTIME)), "W's code");
    for (const k of [bytesToHex(DEV.address), w.toLowerCase(), slot(1), slot(2), slot(3)]) {
      assert(witness.keys.includes(k), `key ${k}`);
    }
    assert(witness.keys.includes(OTHER) === false, "the recipient of earlier blocks is not used");
    for (const n of witness.state) {
      assertEquals(n.length % 2, 0);
    }

    await importStateless(node, parent, block, witness);
    // Without any one of these nodes the block cannot be imported.
    for (const i of [0, Math.floor(witness.state.length / 2), witness.state.length - 1]) {
      const less = { ...witness, state: witness.state.filter((_, j) => j !== i) };
      await assertRejects(() => importStateless(node, parent, block, less));
    }
    // Without W's code neither.
    const noCode = { ...witness, codes: witness.codes.filter((c) => c !== bytesToHex(W_RUNTIME)) };
    await assertRejects(() => importStateless(node, parent, block, noCode));

    // A block without BLOCKHASH carries its parent's header alone.
    await node.call("eth_sendRawTransaction", [bytesToHex(transfer(node, 6n, 1n))]);
    await node.miner.idle();
    const plain = await node.call<Witness>("debug_executionWitness", ["latest"]);
    assertEquals(plain.headers.length, 1);
    assertEquals(
      hashHeader(decodeHeader(hexToBytes(plain.headers[0] as `0x${string}`))),
      node.engine.chain.getBlockByHash(node.engine.head().hash)!.header.parentHash,
    );
    assert(plain.keys.includes(OTHER));

    assertEquals(
      (await node.error("debug_executionWitness", ["0x0"])).message,
      "cannot make a witness for the genesis block",
    );
    assertEquals((await node.error("debug_executionWitness", ["0x99"])).message, "block #153 not found");
    const unknown = "0x" + "ab".repeat(32);
    assertEquals(
      (await node.error("debug_executionWitnessByBlockHash", [unknown])).message,
      `block ${unknown} not found`,
    );
  }));
