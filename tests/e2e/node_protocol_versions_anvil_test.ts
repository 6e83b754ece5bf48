/**
 * `keel node --rollup.load-protocol-versions --rollup.halt=major` with anvil as L1: the node reads the
 * required and recommended protocol versions from the ProtocolVersions contract's storage slots
 * (superchain-upgrades.md; set on anvil with anvil_setStorageAt), reports them in the
 * op_node_default_protocol_versions metric and its log, and halts (exits non-zero, naming the reason)
 * once L1 requires a major version newer than keel's v9.0.0.
 */
import { assert, assertEquals, assertNotEquals } from "../assert.ts";
import { bytesToHex } from "../../lib/common/bytes.ts";
import {
  encodeProtocolVersion,
  RECOMMENDED_PROTOCOL_VERSION_SLOT,
  REQUIRED_PROTOCOL_VERSION_SLOT,
} from "../../lib/protocol/protocol_version.ts";
import {
  anvilForTest,
  freePort,
  rpcCall,
  sequencerOnAnvil,
  spawnKeel,
  startAnvil,
  until,
} from "./helpers/mod.ts";

const tool = await anvilForTest("node_protocol_versions_anvil_test");
const PROTOCOL_VERSIONS = "0x" + "77".repeat(20);
const version = (major: number) =>
  bytesToHex(encodeProtocolVersion({ build: new Uint8Array(8), major, minor: 0, patch: 0, preRelease: 0 }));

Deno.test({
  name: "keel node reads the L1 protocol versions, reports them, and halts on a newer required major version",
  ignore: !tool.ok,
  sanitizeResources: false,
  async fn() {
    const anvil = await startAnvil(tool.ok ? tool.binary : "", ["--hardfork", "prague"]);
    const dir = await Deno.makeTempDir({ prefix: "keel-protocol-versions-" });
    try {
      const setSlot = async (slot: Uint8Array, value: string) =>
        assertEquals(
          ((await rpcCall(anvil.url, "anvil_setStorageAt", [PROTOCOL_VERSIONS, bytesToHex(slot), value])) as {
            result?: unknown;
          }).result,
          true,
        );
      await setSlot(REQUIRED_PROTOCOL_VERSION_SLOT, version(9));
      await setSlot(RECOMMENDED_PROTOCOL_VERSION_SLOT, version(10));
      const port = freePort();
      const metricsPort = freePort();
      const args = await sequencerOnAnvil(anvil.url, dir, port);
      const rollup = JSON.parse(await Deno.readTextFile(`${dir}/rollup.json`));
      rollup.protocol_versions_address = PROTOCOL_VERSIONS;
      await Deno.writeTextFile(`${dir}/rollup.json`, JSON.stringify(rollup));
      const node = spawnKeel("node", [
        ...args,
        "--rollup.load-protocol-versions",
        "--rollup.halt=major",
        "--l1.runtime-config-reload-interval=1s",
        "--metrics.enabled",
        "--metrics.addr=127.0.0.1",
        `--metrics.port=${metricsPort}`,
      ]);
      let exited = false;
      node.exited.then(() => exited = true);
      try {
        const line = await until(
          async () => {
            const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
            return text.split("\n").find((l) => l.startsWith("op_node_default_protocol_versions{"));
          },
          "the protocol versions metric",
          node.output,
        );
        for (
          const label of ['local="v9.0.0"', 'engine="v9.0.0"', 'recommended="v10.0.0"', 'required="v9.0.0"']
        ) {
          assert(line.includes(label), line);
        }
        assert(line.endsWith(" 1"), line);
        await until(
          () => Promise.resolve(node.output().includes("signals recommended v10.0.0") ? true : undefined),
          "the warning about the recommended version",
          node.output,
        );
        // Still running: only the recommendation is ahead.
        await new Promise((r) => setTimeout(r, 1_500));
        assertEquals(exited, false, node.output());
        // Required v10: the node halts by itself within a reload interval or two.
        await setSlot(REQUIRED_PROTOCOL_VERSION_SLOT, version(10));
        const code = await Promise.race([
          node.exited,
          new Promise<number>((_, reject) =>
            setTimeout(() => reject(new Error(`no halt\n${node.output()}`)), 20_000)
          ),
        ]);
        assertNotEquals(code, 0);
        assert(node.output().includes("--rollup.halt=major"), node.output());
        assert(node.output().includes("halting"), node.output());
      } finally {
        if (!exited) await node.stop();
      }
    } finally {
      await anvil.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
