import { pathExists } from "../../../lib/common/files.ts";
import { assertEquals } from "../../assert.ts";

Deno.test("pathExists: true for a file and a directory, false for a missing path", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-files-" });
  try {
    await Deno.writeTextFile(`${dir}/f`, "x");
    assertEquals(await pathExists(`${dir}/f`), true);
    assertEquals(await pathExists(dir), true);
    assertEquals(await pathExists(`${dir}/missing`), false);
    assertEquals(await pathExists(`${dir}/missing/deeper`), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
