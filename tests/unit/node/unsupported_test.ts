import { assert, assertEquals, assertThrows } from "../../assert.ts";
import { isErrorCode } from "../../../lib/common/errors.ts";
import { parseArgs, type ParsedNode } from "../../../lib/config/mod.ts";
import { checkSupported, unsupportedOptions } from "../../../lib/node/unsupported.ts";

function node(...argv: string[]): ParsedNode["options"] {
  const parsed = parseArgs(["node", "--network=op-mainnet", "--l1=http://127.0.0.1:1", ...argv], {});
  if (parsed.command !== "node") throw new Error(parsed.command);
  return parsed.options;
}

Deno.test("unsupported options: the defaults start; features keel lacks stop the start, naming each option", () => {
  assertEquals(unsupportedOptions(node()), { errors: [], warnings: [] });
  for (
    const [args, name] of [
      [["--interop.rpc.addr=127.0.0.1"], "--interop.rpc.addr"],
    ] as const
  ) {
    const e = assertThrows(() => checkSupported(node(...args)));
    assert(isErrorCode(e, "UNSUPPORTED_OPTION"), String(e));
    assert((e as Error).message.includes(name), (e as Error).message);
  }
  // Alt-DA (checked against the chain: altda_service_test.ts), recover mode (the sequencer's,
  // admin_setRecoverMode), a remote block signer and op-conductor are supported.
  assertEquals(unsupportedOptions(node("--altda.enabled", "--altda.da-server=http://127.0.0.1:3100")), {
    errors: [],
    warnings: [],
  });
  assertEquals(unsupportedOptions(node("--sequencer.enabled", "--conductor.enabled")), {
    errors: [],
    warnings: [],
  });
  assertEquals(unsupportedOptions(node("--sequencer.recover")), { errors: [], warnings: [] });
  const remote = ["--signer.endpoint=http://127.0.0.1:8000", "--signer.address=0x" + "11".repeat(20)];
  assertEquals(unsupportedOptions(node(...remote)), { errors: [], warnings: [] });
  // EL sync (rollup/p2p/el_sync.ts), NAT traversal (host_nat.ts) and protocol versions
  // (protocol_versions.ts) are supported.
  assertEquals(checkSupported(node("--syncmode=execution-layer", "--rollup.halt=major", "--p2p.nat")), []);
  assertEquals(checkSupported(node("--rollup.load-protocol-versions")), []);
});
