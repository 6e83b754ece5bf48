/** The DA server (rollup/altda/da_server.ts) on 127.0.0.1, driven by keel's own DA client. */
import { bytesToHex, bytesToUnprefixedHex } from "../../../../lib/common/bytes.ts";
import { isErrorCode } from "../../../../lib/common/errors.ts";
import { encodeCommitment, GENERIC_COMMITMENT, keccakCommitment } from "../../../../lib/protocol/altda.ts";
import {
  DaClient,
  type DaStore,
  FileDaStore,
  MemoryDaStore,
  startDaServer,
} from "../../../../lib/rollup/altda/mod.ts";
import { assert, assertEquals, assertRejects } from "../../../assert.ts";

const input = new TextEncoder().encode("\x00frames");

function client(url: string, daService = false): DaClient {
  return new DaClient({
    url,
    verifyOnRead: true,
    daService,
    getTimeoutMs: 0,
    putTimeoutMs: 0,
    maxConcurrent: 1,
  });
}

async function withServer(store: DaStore, generic: boolean, fn: (url: string) => Promise<void>) {
  const server = startDaServer("127.0.0.1", 0, store, { genericCommitments: generic });
  try {
    await fn(server.url);
  } finally {
    await server.close();
  }
}

Deno.test("da server: keccak256 inputs put under their commitment and read back; bad requests are named", async () => {
  await withServer(new MemoryDaStore(), false, async (url) => {
    const c = client(url);
    const comm = await c.setInput(input);
    assertEquals(await c.getInput(comm), input);
    assert(
      isErrorCode(
        await assertRejects(() => c.getInput(keccakCommitment(new Uint8Array([1])))),
        "ALTDA_NOT_FOUND",
      ),
    );
    // POST /put without a commitment answers the keccak256 one.
    const res = await fetch(`${url}/put`, { method: "POST", body: input });
    assertEquals(new Uint8Array(await res.arrayBuffer()), encodeCommitment(keccakCommitment(input)));
    // An input that is not its keccak256 commitment's is refused; malformed paths too.
    const wrong = bytesToHex(encodeCommitment(keccakCommitment(new Uint8Array([9]))));
    const refused = await fetch(`${url}/put/${wrong}`, { method: "POST", body: input });
    assertEquals(refused.status, 400);
    await refused.body?.cancel();
    for (
      const [method, path] of [["GET", "/get/xyz"], ["GET", "/get/0x1"], ["GET", "/nothing"], [
        "POST",
        "/put/0xzz",
      ]]
    ) {
      const r = await fetch(`${url}${path}`, { method, body: method === "POST" ? input : undefined });
      assertEquals(r.status, 400, `${method} ${path}`);
      await r.body?.cancel();
    }
    const del = await fetch(`${url}/get/0x00`, { method: "DELETE" });
    assertEquals(del.status, 405);
    await del.body?.cancel();
  });
});

Deno.test("da server: generic commitments (--generic-commitment) for the DA-service mode of clients", async () => {
  await withServer(new MemoryDaStore(), true, async (url) => {
    const c = client(url, true);
    const comm = await c.setInput(input);
    assertEquals(comm.type, GENERIC_COMMITMENT);
    assertEquals(comm.bytes[0], 0xff);
    assertEquals(await c.getInput(comm), input);
    // Two puts of one input get two commitments (op-alt-da's random test commitments).
    const again = await c.setInput(input);
    assert(bytesToHex(again.bytes) !== bytesToHex(comm.bytes));
  });
});

Deno.test("da server: the file store keeps one 0600 file per input, written whole, and serves it after a restart", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-da-" });
  try {
    let comm = keccakCommitment(input);
    await withServer(new FileDaStore(dir), false, async (url) => {
      comm = await client(url).setInput(input);
    });
    const files = [...Deno.readDirSync(dir)].map((e) => e.name);
    assertEquals(files, [bytesToUnprefixedHex(encodeCommitment(comm))], "no temporary file left");
    assertEquals((Deno.statSync(`${dir}/${files[0]}`).mode ?? 0) & 0o777, 0o600);
    await withServer(new FileDaStore(dir), false, async (url) => {
      assertEquals(await client(url).getInput(comm), input);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
