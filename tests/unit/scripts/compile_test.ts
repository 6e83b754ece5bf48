/** The binary embeds every Worker module: they are loaded by URL, which the module graph does not reach. */
import { assertEquals } from "../../assert.ts";
import { COMPILE_INCLUDES } from "../../../scripts/compile.ts";

const ROOT = new URL("../../../", import.meta.url);

async function workerModules(dir: URL, prefix: string, out: string[]): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${prefix}${entry.name}`;
    if (entry.isDirectory) await workerModules(new URL(`${entry.name}/`, dir), `${path}/`, out);
    else if (/(^|_)worker\.ts$/.test(entry.name)) out.push(path);
  }
}

Deno.test("compile: every Worker module under lib/ is embedded (--include)", async () => {
  const found: string[] = [];
  await workerModules(new URL("lib/", ROOT), "lib/", found);
  assertEquals([...COMPILE_INCLUDES].sort(), found.sort());
});
