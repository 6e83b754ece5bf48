import { ConfigError, devnetHelp, parseArgs } from "../../../lib/config/mod.ts";
import { assert, assertEquals, assertStringIncludes, assertThrows } from "../../assert.ts";

Deno.test("keel devnet: ports, block times and data dir, from flags, environment and defaults", () => {
  const d = parseArgs(["devnet"], {});
  assert(d.command === "devnet");
  assertEquals(
    [
      d.options.datadir,
      d.options.l1Port,
      d.options.l2Port,
      d.options.verifierPort,
      d.options.l1BlockTime,
      d.options.l2BlockTime,
      d.options.altda,
      d.options.daPort,
    ],
    ["keel_devnet", 8545, 9545, 9555, 4, 2, false, 3100],
  );
  const a = parseArgs(["devnet", "--altda"], { KEEL_DEVNET_DA_PORT: "13100" });
  assert(a.command === "devnet");
  assertEquals([a.options.altda, a.options.daPort], [true, 13100]);
  const f = parseArgs(["devnet", "--l1.port=18545", "--l2.block-time", "1", "--datadir=/tmp/x"], {
    KEEL_DEVNET_VERIFIER_PORT: "19555",
  });
  assert(f.command === "devnet");
  assertEquals([f.options.l1Port, f.options.l2BlockTime, f.options.datadir, f.options.verifierPort], [
    18545,
    1,
    "/tmp/x",
    19555,
  ]);
  assertThrows(() => parseArgs(["devnet", "--l2.block-time=0"], {}), ConfigError, "l2.block-time");
  assertThrows(() => parseArgs(["devnet", "--l1.prot=1"], {}), ConfigError, "l1.port");
  assertEquals(parseArgs(["devnet", "--help"], {}), { command: "help", topic: "devnet" });
  assertEquals(parseArgs(["help", "devnet"], {}), { command: "help", topic: "devnet" });
});

Deno.test("keel devnet --help lists its options with their environment variables", () => {
  const text = devnetHelp();
  for (
    const flag of [
      "--datadir",
      "--l1.port",
      "--l2.port",
      "--verifier.port",
      "--l1.block-time",
      "--l2.block-time",
    ]
  ) {
    assertStringIncludes(text, flag);
  }
  assertStringIncludes(text, "[$KEEL_DEVNET_L1_PORT]");
  assertStringIncludes(text, "\nDevnet:\n");
});
