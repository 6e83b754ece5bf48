import { batcherHelp, ConfigError, mainHelp, parseArgs } from "../../../lib/config/mod.ts";
import { assert, assertEquals, assertStringIncludes, assertThrows } from "../../assert.ts";

const KEY = "0x" + "11".repeat(32);
const REQUIRED = ["--l2-eth-rpc=http://127.0.0.1:9545", "--rollup-rpc=http://127.0.0.1:9545"];

Deno.test("keel batcher: op-batcher's flags, from flags, environment and defaults", () => {
  const d = parseArgs(["batcher", ...REQUIRED, `--private-key=${KEY}`], {});
  assert(d.command === "batcher");
  const o = d.options;
  assertEquals(
    [
      o.l1EthRpc,
      o.l2EthRpc,
      o.rollupRpc,
      o.privateKey,
      o.pollInterval,
      o.maxL1TxSizeBytes,
      o.networkTimeout,
      o.batchType,
    ],
    [
      "http://127.0.0.1:8545",
      "http://127.0.0.1:9545",
      "http://127.0.0.1:9545",
      KEY,
      6_000,
      120_000,
      10_000,
      0,
    ],
  );
  // The key from the environment (kept out of the process list), durations in Go's form.
  const e = parseArgs(["batcher", ...REQUIRED, "--poll-interval=500ms"], {
    KEEL_BATCHER_PRIVATE_KEY: KEY,
    KEEL_BATCHER_L1_ETH_RPC: "http://10.0.0.1:8545",
    KEEL_BATCHER_MAX_L1_TX_SIZE_BYTES: "100000",
  });
  assert(e.command === "batcher");
  assertEquals(
    [e.options.privateKey, e.options.l1EthRpc, e.options.pollInterval, e.options.maxL1TxSizeBytes],
    [KEY, "http://10.0.0.1:8545", 500, 100_000],
  );
  // Alt-DA as op-batcher's --altda.* flags (KEEL_BATCHER_ALTDA_*); off by default.
  assertEquals(o.altdaEnabled, false);
  const a = parseArgs([
    "batcher",
    ...REQUIRED,
    `--private-key=${KEY}`,
    "--altda.enabled",
    "--altda.da-service",
  ], {
    KEEL_BATCHER_ALTDA_DA_SERVER: "http://127.0.0.1:3100",
    KEEL_BATCHER_ALTDA_PUT_TIMEOUT: "2s",
  });
  assert(a.command === "batcher");
  assertEquals(
    [a.options.altdaEnabled, a.options.altdaDaServer, a.options.altdaDaService, a.options.altdaPutTimeoutMs],
    [true, "http://127.0.0.1:3100", true, 2_000],
  );
  assertEquals(parseArgs(["batcher", "--help"], {}), { command: "help", topic: "batcher" });
  assertEquals(parseArgs(["help", "batcher"], {}), { command: "help", topic: "batcher" });
});

Deno.test("keel batcher: the L2 RPC, the rollup RPC and the key are required; bad values are named", () => {
  for (
    const [args, flag] of [
      [["--rollup-rpc=http://127.0.0.1:1", `--private-key=${KEY}`], "--l2-eth-rpc"],
      [["--l2-eth-rpc=http://127.0.0.1:1", `--private-key=${KEY}`], "--rollup-rpc"],
      [REQUIRED, "--private-key"],
      [[...REQUIRED, `--private-key=${KEY}`, "--altda.enabled"], "--altda.da-server"],
    ] as const
  ) {
    const e = assertThrows(() => parseArgs(["batcher", ...args], {}), ConfigError);
    assertEquals((e as ConfigError).code, "CONFIG_MISSING_REQUIRED");
    assertStringIncludes(e.message, flag);
  }
  assertThrows(
    () => parseArgs(["batcher", ...REQUIRED, "--private-key=0x1234"], {}),
    ConfigError,
    "private-key",
  );
  assertThrows(
    () => parseArgs(["batcher", ...REQUIRED, `--private-key=${KEY}`, "--max-l1-tx-size-bytes=200000"], {}),
    ConfigError,
    "max-l1-tx-size-bytes",
  );
  assertThrows(() => parseArgs(["batcher", ...REQUIRED, "--l2-eth-rcp=x"], {}), ConfigError, "l2-eth-rpc");
  assertThrows(
    () => parseArgs(["batcher", ...REQUIRED, `--private-key=${KEY}`, "--batch-type=2"], {}),
    ConfigError,
    "batch-type",
  );
});

Deno.test("keel batcher --help lists its options with their environment variables; the overview names it", () => {
  const text = batcherHelp();
  for (
    const flag of [
      "--l1-eth-rpc",
      "--l2-eth-rpc",
      "--rollup-rpc",
      "--private-key",
      "--poll-interval",
      "--max-l1-tx-size-bytes",
      "--network-timeout",
      "--batch-type",
    ]
  ) {
    assertStringIncludes(text, flag);
  }
  assertStringIncludes(text, "[$KEEL_BATCHER_PRIVATE_KEY]");
  assertStringIncludes(text, "\nBatcher:\n");
  assertStringIncludes(mainHelp(), "keel batcher");
});

Deno.test("keel batcher: --data-availability-type calldata (default), blobs or auto, as op-batcher's; others refused", () => {
  const d = parseArgs(["batcher", ...REQUIRED, `--private-key=${KEY}`], {});
  assert(d.command === "batcher");
  assertEquals([d.options.dataAvailabilityType, d.options.targetNumFrames], ["calldata", 1]);
  const b = parseArgs(["batcher", ...REQUIRED, `--private-key=${KEY}`], {
    KEEL_BATCHER_DATA_AVAILABILITY_TYPE: "blobs",
    KEEL_BATCHER_TARGET_NUM_FRAMES: "6",
  });
  assert(b.command === "batcher");
  assertEquals([b.options.dataAvailabilityType, b.options.targetNumFrames], ["blobs", 6]);
  assertThrows(
    () => parseArgs(["batcher", ...REQUIRED, `--private-key=${KEY}`, "--target-num-frames=7"], {}),
    ConfigError,
  );
  const auto = parseArgs(
    ["batcher", ...REQUIRED, `--private-key=${KEY}`, "--data-availability-type=auto"],
    {},
  );
  assert(auto.command === "batcher");
  assertEquals(auto.options.dataAvailabilityType, "auto");
  const e = assertThrows(
    () =>
      parseArgs(["batcher", ...REQUIRED, `--private-key=${KEY}`, "--data-availability-type=celestia"], {}),
    ConfigError,
  );
  assertStringIncludes(e.message, "data-availability-type");
});
