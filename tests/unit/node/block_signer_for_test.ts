/**
 * The node's choice of block signer (p2p_service.ts blockSignerFor), from its options as op-node makes it:
 * none for a verifier, the sequencer key first, else the remote signer; --signer.endpoint and
 * --signer.address together or not at all; TLS on by default, with its files required.
 */
import { assert, assertEquals, assertRejects, assertThrows } from "../../assert.ts";
import { bytesToHex } from "../../../lib/common/bytes.ts";
import { isErrorCode } from "../../../lib/common/errors.ts";
import { parseArgs, type ParsedNode } from "../../../lib/config/mod.ts";
import { blockSignerFor } from "../../../lib/node/p2p_service.ts";
import { RemoteBlockSigner } from "../../../lib/rollup/p2p/block_signer.ts";
import { ADDRESS, fakeSigner, TLS } from "../rollup/fake_signer.ts";

function node(...argv: string[]): ParsedNode["options"] {
  const parsed = parseArgs(["node", "--network=op-mainnet", "--l1=http://127.0.0.1:1", ...argv], {});
  if (parsed.command !== "node") throw new Error(parsed.command);
  return parsed.options;
}

const KEY_HEX = "07".repeat(32);

Deno.test("block signer: none for a verifier; the sequencer key before a remote signer", async () => {
  assertEquals(await blockSignerFor(node()), undefined);
  assertEquals(await blockSignerFor(node("--sequencer.enabled")), undefined);
  // The key wins: the (unreachable) endpoint is not even asked.
  const local = await blockSignerFor(node(
    "--sequencer.enabled",
    `--p2p.sequencer.key=${KEY_HEX}`,
    "--signer.endpoint=http://127.0.0.1:1",
    `--signer.address=${bytesToHex(ADDRESS)}`,
  ));
  assertEquals(local?.name, "local");
});

Deno.test("block signer: --signer.endpoint with --signer.address, TLS by default", async () => {
  // The endpoint alone is refused when the options are read; the address alone when the signer is made.
  assertThrows(() => node("--sequencer.enabled", "--signer.endpoint=http://127.0.0.1:1"));
  const e = await assertRejects(() =>
    blockSignerFor(node("--sequencer.enabled", `--signer.address=${bytesToHex(ADDRESS)}`))
  );
  assert(isErrorCode(e, "SIGNER_CONFIG"), String(e));
  const fake = fakeSigner({ tls: true });
  try {
    const remote = [`--signer.endpoint=${fake.endpoint}`, `--signer.address=${bytesToHex(ADDRESS)}`];
    // Default TLS files (tls/ca.crt...) relative to the working directory: absent here. The error names
    // the first in the options' order every time (the files are read together: it once named whichever
    // read failed first, and CI saw tls/tls.crt).
    for (let attempt = 0; attempt < 20; attempt++) {
      const missing = await assertRejects(() => blockSignerFor(node("--sequencer.enabled", ...remote)));
      assert(isErrorCode(missing, "SIGNER_CONFIG"), String(missing));
      assert((missing as Error).message.includes("tls/ca.crt"), (missing as Error).message);
    }
    const signer = await blockSignerFor(node(
      "--sequencer.enabled",
      ...remote,
      `--signer.tls.ca=${TLS}ca.crt`,
      `--signer.tls.cert=${TLS}tls.crt`,
      `--signer.tls.key=${TLS}tls.key`,
      "--signer.header=X-Auth=secret",
    ));
    try {
      assert(signer instanceof RemoteBlockSigner);
      assertEquals(signer.name, `remote ${fake.endpoint}`);
      assertEquals(fake.requests.at(-1)?.headers.get("x-auth"), "secret");
    } finally {
      signer?.close();
    }
  } finally {
    await fake.server.shutdown();
  }
});
