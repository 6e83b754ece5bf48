/**
 * `keel node --sequencer.enabled --signer.endpoint ...` with anvil as L1 and a stand-in op-signer over
 * TLS (the test CA of tests/unit/rollup/tls, read by the node Worker under its narrowed permissions): the node asks the signer `health_status` at start and `opsigner_signBlockPayload` for each block it
 * sequences; when the signature is unusable the block stays the head, is not gossiped, and the failure
 * is logged ("Cannot publish block") and counted in op_node_default_publishing_errors_total.
 */
import { assert } from "../assert.ts";
import { bytesToHex } from "../../lib/common/bytes.ts";
import {
  anvilForTest,
  freePort,
  rpcCall,
  sequencerOnAnvil,
  spawnKeel,
  startAnvil,
  until,
} from "./helpers/mod.ts";
import { ADDRESS, fakeSigner, TLS } from "../unit/rollup/fake_signer.ts";

const tool = await anvilForTest("node_remote_signer_anvil_test");

Deno.test({
  name: "keel node signs through a remote signer; an unusable signature is logged and counted, not gossiped",
  ignore: !tool.ok,
  sanitizeResources: false,
  async fn() {
    const anvil = await startAnvil(tool.ok ? tool.binary : "", ["--hardfork", "prague"]);
    const dir = await Deno.makeTempDir({ prefix: "keel-remote-signer-" });
    // Answers health_status, then a 64-byte "signature" for every block.
    const signer = fakeSigner({ bad: "0x" + "11".repeat(64), tls: true });
    try {
      const port = freePort();
      const metricsPort = freePort();
      const node = spawnKeel("node", [
        ...await sequencerOnAnvil(anvil.url, dir, port),
        `--signer.endpoint=${signer.endpoint}`,
        `--signer.address=${bytesToHex(ADDRESS)}`,
        // TLS on (the default): the node Worker may read these files, and only these, with the rest.
        `--signer.tls.ca=${TLS}ca.crt`,
        `--signer.tls.cert=${TLS}tls.crt`,
        `--signer.tls.key=${TLS}tls.key`,
        "--signer.header=X-Token=abc",
        "--metrics.enabled",
        "--metrics.addr=127.0.0.1",
        `--metrics.port=${metricsPort}`,
      ]);
      try {
        const unsafe = async () =>
          ((await rpcCall(`http://127.0.0.1:${port}`, "rollupnode_syncStatus")) as {
            result?: { unsafe_l2?: { number: number } };
          }).result?.unsafe_l2?.number;
        await until(
          async () => ((await unsafe()) ?? 0) >= 2 ? true : undefined,
          "two sequenced blocks",
          node.output,
        );
        await until(
          () => Promise.resolve(node.output().includes("Cannot publish block") ? true : undefined),
          "the publishing failure in the log",
          node.output,
        );
        assert(node.output().includes("signature is unusable"), node.output());
        const errors = await until(
          async () => {
            const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
            const line = text.split("\n").find((l) =>
              l.startsWith("op_node_default_publishing_errors_total ")
            );
            const n = line === undefined ? 0 : Number(line.split(" ")[1]);
            return n > 0 ? n : undefined;
          },
          "the publishing errors metric",
          node.output,
        );
        assert(errors >= 1);
        const methods = signer.requests.map((r) => r.method);
        assert(methods[0] === "health_status", methods.join(","));
        assert(methods.includes("opsigner_signBlockPayload"), methods.join(","));
        assert(signer.requests.every((r) => r.headers.get("x-token") === "abc"));
      } finally {
        await node.stop();
      }
    } finally {
      await signer.server.shutdown();
      await anvil.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
