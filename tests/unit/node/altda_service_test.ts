/**
 * Alt-DA options against the chain (node/altda_service.ts): an Alt-DA chain needs --altda.enabled and a
 * DA server, --altda.enabled needs an Alt-DA chain; the presets of Alt-DA networks carry alt_da.
 */
import { isErrorCode } from "../../../lib/common/errors.ts";
import { parseArgs, type ParsedNode } from "../../../lib/config/mod.ts";
import { altDaManagerFor, checkAltDa, daClientFor } from "../../../lib/node/altda_service.ts";
import { rollupConfigFromPreset } from "../../../lib/protocol/mod.ts";
import { GENERIC_COMMITMENT, KECCAK256_COMMITMENT } from "../../../lib/protocol/altda.ts";
import { getNetworkPreset } from "../../../networks/mod.ts";
import { assert, assertEquals, assertThrows } from "../../assert.ts";

function node(network: string, ...argv: string[]): ParsedNode["options"] {
  const parsed = parseArgs(["node", `--network=${network}`, "--l1=http://127.0.0.1:1", ...argv], {});
  if (parsed.command !== "node") throw new Error(parsed.command);
  return parsed.options;
}

const l1 = {
  blockRef: () => Promise.reject(new Error("unused")),
  blockWithTxs: () => Promise.reject(new Error("unused")),
  receipts: () => Promise.reject(new Error("unused")),
};
const DA = ["--altda.enabled", "--altda.da-server=http://127.0.0.1:3100"];

Deno.test("altda options: an Alt-DA chain needs --altda.enabled; a rollup chain refuses it", () => {
  const redstone = rollupConfigFromPreset(getNetworkPreset("redstone-mainnet")!);
  const op = rollupConfigFromPreset(getNetworkPreset("op-mainnet")!);
  for (
    const [o, cfg, words] of [
      [node("redstone-mainnet"), redstone, "start with --altda.enabled"],
      [node("op-mainnet", ...DA), op, "no alt_da section"],
    ] as const
  ) {
    const e = assertThrows(() => checkAltDa(o, cfg));
    assert(isErrorCode(e, "ALTDA_CONFIG"), String(e));
    assert((e as Error).message.includes(words), (e as Error).message);
  }
  checkAltDa(node("op-mainnet"), op);
  assertEquals(altDaManagerFor(node("op-mainnet"), op, l1), undefined);
  // A zero window is refused (op-node GetOPAltDAConfig).
  const zero = { ...redstone, altDA: { ...redstone.altDA!, daResolveWindow: 0n } };
  assert(isErrorCode(assertThrows(() => checkAltDa(node("redstone-mainnet", ...DA), zero)), "ALTDA_CONFIG"));
});

Deno.test("altda options: the manager follows the chain's commitment type, windows and challenge contract", () => {
  const redstone = rollupConfigFromPreset(getNetworkPreset("redstone-mainnet")!);
  const m = altDaManagerFor(node("redstone-mainnet", ...DA), redstone, l1)!;
  assertEquals(m.params.commitmentType, KECCAK256_COMMITMENT);
  assertEquals([m.params.challengeWindow, m.params.resolveWindow], [3600n, 3600n]);
  assertEquals(m.params.challengeAddress, redstone.altDA!.daChallengeAddress);
  const celo = rollupConfigFromPreset(getNetworkPreset("celo-sep-sepolia")!);
  assertEquals(
    altDaManagerFor(node("celo-sep-sepolia", ...DA), celo, l1)!.params.commitmentType,
    GENERIC_COMMITMENT,
  );
  // The client takes every --altda.* option.
  const c = daClientFor(node(
    "celo-sep-sepolia",
    ...DA,
    "--altda.da-service",
    "--altda.verify-on-read=false",
    "--altda.get-timeout=3s",
    "--altda.put-timeout=4s",
    "--altda.max-concurrent-da-requests=5",
  ))!;
  assertEquals(c.options, {
    url: "http://127.0.0.1:3100",
    verifyOnRead: false,
    daService: true,
    getTimeoutMs: 3000,
    putTimeoutMs: 4000,
    maxConcurrent: 5,
  });
  assertEquals(daClientFor(node("op-mainnet")), undefined);
});
