/**
 * `keel execution export` and `keel execution import` as real processes (with keel's permission set) on
 * data dirs of a dev chain: the blocks written as geth's chain files (RLP one after another, gzip for .gz)
 * and read back into a fresh data dir with the same genesis, every block validated, the head the same;
 * blocks already known are skipped; a tampered block stops the import with the blocks before it kept;
 * bad arguments are refused.
 */
import { buildDevGenesis } from "../../lib/execution/genesis/mod.ts";
import { ExecutionEngine } from "../../lib/execution/engine/mod.ts";
import { decodeBlock, encodeBlock } from "../../lib/execution/chain/mod.ts";
import { rlpItemLength } from "../../lib/execution/engine/mod.ts";
import { bytesToHex } from "../../lib/common/bytes.ts";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { open, transfer } from "../unit/execution/rpc/dev/dev_node.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const ROOT = new URL("../../", import.meta.url).pathname;

async function keel(args: string[]): Promise<{ code: number; out: string }> {
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-P=keel", `--config=${ROOT}deno.json`, MAIN, ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: r.code, out: dec.decode(r.stdout) + dec.decode(r.stderr) };
}

/** A dev chain of four blocks in `dir`; answers its head's number and hash. */
async function devChain(dir: string): Promise<{ number: bigint; hash: string }> {
  const node = await open(dir);
  try {
    for (let i = 0n; i < 4n; i++) {
      await node.call("eth_sendRawTransaction", [bytesToHex(transfer(node, i, 3n))]);
      await node.miner.idle();
    }
    const head = node.engine.head();
    return { number: head.header.number, hash: bytesToHex(head.hash) };
  } finally {
    await node.close();
  }
}

/** A data dir holding only the dev genesis. */
async function fresh(dir: string): Promise<void> {
  const engine = await ExecutionEngine.open({ dataDir: dir, genesis: buildDevGenesis({}) });
  await engine.close();
}

async function headOf(dir: string): Promise<{ number: bigint; hash: string }> {
  const engine = await ExecutionEngine.open({ dataDir: dir });
  try {
    const head = engine.head();
    return { number: head.header.number, hash: bytesToHex(head.hash) };
  } finally {
    await engine.close();
  }
}

Deno.test({
  name: "keel execution export / import: a chain moved between data dirs, block by block validated",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "keel-chain-file-" });
    try {
      const head = await devChain(`${dir}/a`);
      assertEquals(head.number, 4n);
      for (const name of ["chain.rlp", "chain.rlp.gz"]) {
        const file = `${dir}/${name}`;
        const exported = await keel(["execution", "export", `--datadir=${dir}/a`, file]);
        assertEquals(exported.code, 0, exported.out);
        assertStringIncludes(exported.out, `exported 5 blocks to ${file}`);
        const target = `${dir}/b-${name}`;
        await fresh(target);
        const imported = await keel(["execution", "import", `--datadir=${target}`, file]);
        assertEquals(imported.code, 0, imported.out);
        assertStringIncludes(imported.out, "imported 4 blocks");
        assertStringIncludes(imported.out, "(1 already known)");
        assertEquals(await headOf(target), head);
        // Again: every block known, nothing changes.
        const again = await keel(["execution", "import", `--datadir=${target}`, file]);
        assertEquals(again.code, 0, again.out);
        assertStringIncludes(again.out, "imported 0 blocks");
      }
      // The plain file is the blocks' RLP one after another, as debug_getRawBlock gives each.
      const bytes = await Deno.readFile(`${dir}/chain.rlp`);
      const blocks = [];
      for (let at = 0; at < bytes.length;) {
        const len = rlpItemLength(bytes.subarray(at))!;
        blocks.push(decodeBlock(bytes.subarray(at, at + len)));
        at += len;
      }
      assertEquals(blocks.map((b) => b.header.number), [0n, 1n, 2n, 3n, 4n]);
      // Blocks 2 to 3 only.
      const part = await keel(["execution", "export", `--datadir=${dir}/a`, `${dir}/part.rlp`, "2", "3"]);
      assertEquals(part.code, 0, part.out);
      assertStringIncludes(part.out, "exported 2 blocks");
      // Block 3 tampered: blocks 1 and 2 go in, the import stops at 3 with the reason.
      blocks[3].header = { ...blocks[3].header, gasUsed: blocks[3].header.gasUsed + 1n };
      await Deno.writeFile(`${dir}/bad.rlp`, new Uint8Array(blocks.flatMap((b) => [...encodeBlock(b)])));
      await fresh(`${dir}/c`);
      const bad = await keel(["execution", "import", `--datadir=${dir}/c`, `${dir}/bad.rlp`]);
      assert(bad.code !== 0, bad.out);
      assertStringIncludes(bad.out, "Cannot import block 3");
      assertEquals((await headOf(`${dir}/c`)).number, 2n);
      // Bad arguments.
      const range = await keel(["execution", "export", `--datadir=${dir}/a`, `${dir}/x.rlp`, "3", "9"]);
      assert(range.code !== 0);
      assertStringIncludes(range.out, "Cannot export blocks 3 to 9: the chain has blocks 0 to 4");
      const word = await keel(["execution", "export", `--datadir=${dir}/a`, `${dir}/x.rlp`, "two"]);
      assertEquals(word.code, 2, word.out);
      assertStringIncludes(word.out, "invalid first block");
      const nowhere = await keel(["execution", "export", `--datadir=${dir}/nowhere`, `${dir}/x.rlp`]);
      assert(nowhere.code !== 0);
      assertStringIncludes(nowhere.out, "it holds no chain; run `keel execution init` first");
      assertEquals(await Deno.stat(`${dir}/nowhere`).then(() => true, () => false), false, "nothing created");
      const none = await keel(["execution", "import", `--datadir=${dir}/a`]);
      assertEquals(none.code, 2, none.out);
      await Deno.writeFile(`${dir}/cut.rlp`, bytes.subarray(0, bytes.length - 3));
      await fresh(`${dir}/d`);
      const cut = await keel(["execution", "import", `--datadir=${dir}/d`, `${dir}/cut.rlp`]);
      assert(cut.code !== 0);
      assertStringIncludes(cut.out, "the file ends inside the block");
      assertEquals((await headOf(`${dir}/d`)).number, 3n);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "keel execution prune: the last blocks' state kept, older ones gone, the chain intact",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "keel-prune-cli-" });
    try {
      const head = await devChain(dir);
      const r = await keel(["execution", "prune", `--datadir=${dir}`, "2"]);
      assertEquals(r.code, 0, r.out);
      assertStringIncludes(r.out, `pruned the state of ${dir} to blocks ${head.number - 1n}..${head.number}`);
      assertEquals(await headOf(dir), head);
      const engine = await ExecutionEngine.open({ dataDir: dir });
      try {
        const at = (n: bigint) => engine.chain.getHeaderByHash(engine.chain.getCanonicalHash(n)!)!;
        await engine.stateAt(at(head.number - 1n));
        let refused = "";
        await engine.stateAt(at(1n)).catch((e) => refused = (e as Error).message);
        assertStringIncludes(refused, "not in the database");
      } finally {
        await engine.close();
      }
      const bad = await keel(["execution", "prune", `--datadir=${dir}`, "0"]);
      assertEquals(bad.code === 0, false);
      assertStringIncludes(bad.out, "invalid number of recent blocks");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
