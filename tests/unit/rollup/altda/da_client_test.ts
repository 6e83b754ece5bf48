/** The DA server client (rollup/altda/da_client.ts) against a DA server on 127.0.0.1. */
import { bytesToHex } from "../../../../lib/common/bytes.ts";
import { isErrorCode } from "../../../../lib/common/errors.ts";
import { encodeCommitment, GENERIC_COMMITMENT, keccakCommitment } from "../../../../lib/protocol/altda.ts";
import { DaClient, type DaClientOptions } from "../../../../lib/rollup/altda/mod.ts";
import { assert, assertEquals, assertRejects } from "../../../assert.ts";
import { fakeDaServer } from "./fake_da_server.ts";

const input = new TextEncoder().encode("\x00frames of a channel");

function client(url: string, o: Partial<DaClientOptions> = {}): DaClient {
  return new DaClient({
    url,
    verifyOnRead: true,
    daService: false,
    getTimeoutMs: 0,
    putTimeoutMs: 0,
    maxConcurrent: 1,
    ...o,
  });
}

Deno.test("da client: keccak256 commitments made here, put under the commitment, read back and verified", async () => {
  const da = fakeDaServer();
  try {
    const c = client(`${da.url}/`);
    const comm = await c.setInput(input);
    assertEquals(comm, keccakCommitment(input));
    assertEquals(da.store.get(bytesToHex(encodeCommitment(comm))), input);
    assertEquals(await c.getInput(comm), input);
    // Unknown: ALTDA_NOT_FOUND; an altered answer: a mismatch unless verify-on-read is off.
    const other = keccakCommitment(new Uint8Array([7]));
    assert(isErrorCode(await assertRejects(() => c.getInput(other)), "ALTDA_NOT_FOUND"));
    da.state.tamper = true;
    assert(isErrorCode(await assertRejects(() => c.getInput(comm)), "ALTDA_COMMITMENT_MISMATCH"));
    const trusting = client(da.url, { verifyOnRead: false });
    assertEquals((await trusting.getInput(comm))[0], input[0] ^ 1);
    // Empty inputs are refused before any request.
    const puts = da.state.puts;
    assert(isErrorCode(await assertRejects(() => c.setInput(new Uint8Array())), "ALTDA_INVALID_INPUT"));
    assertEquals(da.state.puts, puts);
  } finally {
    await da.close();
  }
});

Deno.test("da client: generic commitments made by the DA service (--altda.da-service)", async () => {
  const da = fakeDaServer();
  try {
    const c = client(da.url, { daService: true });
    const comm = await c.setInput(input);
    assertEquals(comm.type, GENERIC_COMMITMENT);
    assertEquals(comm.bytes[0], 0x0c);
    assertEquals(await c.getInput(comm), input);
  } finally {
    await da.close();
  }
});

Deno.test("da client: timeouts, at most max-concurrent-da-requests in flight, server errors", async () => {
  const da = fakeDaServer();
  try {
    const comm = await client(da.url).setInput(input);
    da.state.delayMs = 300;
    const hasty = client(da.url, { getTimeoutMs: 50 });
    assert(isErrorCode(await assertRejects(() => hasty.getInput(comm)), "ALTDA_REQUEST_FAILED"));
    // The server is still on the abandoned request for a while.
    while (da.state.inFlight > 0) await new Promise((r) => setTimeout(r, 20));
    da.state.delayMs = 30;
    for (const limit of [1, 3]) {
      da.state.peak = 0;
      const c = client(da.url, { maxConcurrent: limit });
      await Promise.all(Array.from({ length: 6 }, () => c.getInput(comm)));
      assertEquals(da.state.peak, limit);
    }
    da.state.delayMs = 0;
    const down = client("http://127.0.0.1:1");
    assert(isErrorCode(await assertRejects(() => down.getInput(comm)), "ALTDA_REQUEST_FAILED"));
  } finally {
    await da.close();
  }
});
