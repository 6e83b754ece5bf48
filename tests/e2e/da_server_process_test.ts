/**
 * `keel da-server` as a real process under the baked permission set: keel's DA client stores an input
 * and reads it back; the input survives a restart (a file in --file.path); SIGTERM exits 0.
 */
import { DaClient } from "../../lib/rollup/altda/mod.ts";
import { assertEquals, assertStringIncludes } from "../assert.ts";
import { freePort, spawnKeel, until } from "./helpers/mod.ts";

Deno.test({
  name: "keel da-server: inputs stored and read back over HTTP, kept across a restart",
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "keel-da-server-" });
    const port = freePort();
    const url = `http://127.0.0.1:${port}`;
    const args = [`--file.path=${dir}/inputs`, `--port=${port}`];
    const client = new DaClient({
      url,
      verifyOnRead: true,
      daService: false,
      getTimeoutMs: 2_000,
      putTimeoutMs: 2_000,
      maxConcurrent: 1,
    });
    const input = new TextEncoder().encode("\x00a channel's frames");
    let server = spawnKeel("da-server", args);
    try {
      const comm = await until(() => client.setInput(input), "the DA server", server.output, 60_000);
      assertEquals(await client.getInput(comm), input);
      assertStringIncludes(server.output(), "DA server started");
      assertEquals(await server.stop(), 0, server.output());
      server = spawnKeel("da-server", args);
      assertEquals(
        await until(() => client.getInput(comm), "the restarted DA server", server.output, 60_000),
        input,
      );
      assertEquals(await server.stop(), 0, server.output());
    } finally {
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
