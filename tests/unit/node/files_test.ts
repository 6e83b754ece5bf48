/**
 * The node's file reads and folders name the file and what it is for: a data dir that is a file, a
 * missing or unreadable config, a JSON syntax error; permission errors pass through for the launcher
 * to word (permissions.ts). Through the callers too: `--rollup.config` (loadRollupConfig) and
 * `--genesis` (resolveGenesis).
 */
import { assertEquals, assertRejects } from "../../assert.ts";
import { isErrorCode } from "../../../lib/common/errors.ts";
import { parseArgs } from "../../../lib/config/mod.ts";
import { parseJsonExact } from "../../../lib/execution/mod.ts";
import { resolveGenesis } from "../../../lib/node/execution_chain.ts";
import { ensureDir, readJsonFile } from "../../../lib/node/files.ts";
import { loadRollupConfig } from "../../../lib/node/node_role.ts";

async function rejectsWith(p: () => Promise<unknown>, code: string, message: string): Promise<void> {
  const e = await assertRejects(p);
  assertEquals(isErrorCode(e, code), true, String(e));
  assertEquals((e as Error).message, message);
}

Deno.test("ensureDir: makes the folder and its parents; a file in the way is named", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel_files_" });
  try {
    await ensureDir(`${dir}/a/b`, "--datadir");
    assertEquals((await Deno.stat(`${dir}/a/b`)).isDirectory, true);
    await ensureDir(`${dir}/a/b`, "--datadir"); // already there: fine
    await Deno.writeTextFile(`${dir}/f`, "x");
    await rejectsWith(
      () => ensureDir(`${dir}/f`, "the data dir (--datadir)"),
      "NOT_A_DIRECTORY",
      `Cannot use ${dir}/f as the data dir (--datadir): it, or a folder above it, is a file and not a directory`,
    );
    await rejectsWith(
      () => ensureDir(`${dir}/f/sub`, "--datadir"),
      "NOT_A_DIRECTORY",
      `Cannot use ${dir}/f/sub as --datadir: it, or a folder above it, is a file and not a directory`,
    );
    assertEquals(await Deno.readTextFile(`${dir}/f`), "x"); // nothing lost
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readJsonFile: a missing file, a folder, bad JSON each named; the parser is the caller's", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel_files_" });
  try {
    await rejectsWith(
      () => readJsonFile(`${dir}/none.json`, "rollup config (--rollup.config)"),
      "CANNOT_READ_FILE",
      `Cannot read rollup config (--rollup.config) ${dir}/none.json: no such file`,
    );
    await rejectsWith(
      () => readJsonFile(dir, "genesis"),
      "CANNOT_READ_FILE",
      `Cannot read genesis ${dir}: it is a directory`,
    );
    await Deno.writeTextFile(`${dir}/bad.json`, "{bad");
    const e = await assertRejects(() => readJsonFile(`${dir}/bad.json`, "genesis"));
    assertEquals(isErrorCode(e, "CANNOT_READ_FILE"), true);
    assertEquals(
      (e as Error).message.startsWith(`Cannot read genesis ${dir}/bad.json: not valid JSON: `),
      true,
    );
    await Deno.writeTextFile(`${dir}/big.json`, '{"n": 123456789012345678901}');
    assertEquals(await readJsonFile(`${dir}/big.json`, "genesis", parseJsonExact), {
      n: 123456789012345678901n,
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "readJsonFile: a read the permissions refuse is thrown as it is (the launcher words it)",
  permissions: { read: false },
  async fn() {
    const e = await assertRejects(() => readJsonFile("/etc/hostname", "genesis"));
    assertEquals(e instanceof Deno.errors.NotCapable, true, String(e));
  },
});

Deno.test("--rollup.config and --genesis with bad files: errors that name the option and the file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel_files_" });
  try {
    await Deno.writeTextFile(`${dir}/bad.json`, "{bad");
    const node = parseArgs([
      "node",
      `--rollup.config=${dir}/bad.json`,
      "--l1=http://127.0.0.1:1",
      "--l2=http://127.0.0.1:2",
    ], {});
    if (node.command !== "node") throw new Error(node.command);
    const e = await assertRejects(() => loadRollupConfig(node.options, node.sources));
    assertEquals(
      (e as Error).message.startsWith(
        `Cannot read rollup config (--rollup.config) ${dir}/bad.json: not valid JSON`,
      ),
      true,
      (e as Error).message,
    );
    const exec = parseArgs(["execution", `--genesis=${dir}/none.json`, `--datadir=${dir}/data`], {});
    if (exec.command !== "execution") throw new Error(exec.command);
    await rejectsWith(
      () => resolveGenesis(exec.options),
      "CANNOT_READ_FILE",
      `Cannot read genesis (--genesis) ${dir}/none.json: no such file`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
