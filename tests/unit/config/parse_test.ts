import { assert, assertEquals, assertMatch, assertStringIncludes, assertThrows } from "../../assert.ts";
import {
  CONFIG_EXIT_CODE,
  ConfigError,
  type ConfigErrorCode,
  EXECUTION_OPTION_TABLE,
  NODE_COMMAND_TABLE,
  parseArgs,
  type ParsedCommand,
  ROLLUP_OPTION_TABLE,
} from "../../../lib/config/mod.ts";

function node(argv: string[], env: Record<string, string> = {}, preset = {}) {
  const parsed = parseArgs(["node", "--network=op-sepolia", ...argv], env, preset);
  if (parsed.command !== "node") throw new Error(`expected node, got ${parsed.command}`);
  return parsed;
}

function fails(argv: string[], code: ConfigErrorCode, env: Record<string, string> = {}): ConfigError {
  const err = assertThrows(() => parseArgs(argv, env), ConfigError) as ConfigError;
  assertEquals(err.code, code, err.message);
  assertEquals(err.exitCode, CONFIG_EXIT_CODE);
  assertEquals(err.exitCode, 2);
  assert(!err.message.includes("\n"), "one line");
  return err;
}

Deno.test("precedence: flag, then environment, then preset, then default", () => {
  const env = { KEEL_L1_CACHE_SIZE: "100", KEEL_RPC_PORT: "9001" };
  const preset = { l1CacheSize: 200, rpcPort: 9002, metricsPort: 9003 };
  const p = node(["--l1.cache-size=50"], env, preset);
  assertEquals(p.options.l1CacheSize, 50);
  assertEquals(p.sources.l1CacheSize, "flag");
  assertEquals(p.options.rpcPort, 9001);
  assertEquals(p.sources.rpcPort, "env");
  assertEquals(p.options.metricsPort, 9003);
  assertEquals(p.sources.metricsPort, "preset");
  assertEquals(p.options.pprofPort, 6060);
  assertEquals(p.sources.pprofPort, "default");
});

Deno.test("an empty environment variable counts as unset", () => {
  const p = node([], { KEEL_L1_CACHE_SIZE: "" });
  assertEquals(p.options.l1CacheSize, 900);
  assertEquals(p.sources.l1CacheSize, "default");
});

Deno.test("a repeated flag: the last wins, a list appends", () => {
  const p = node([
    "--rpc.port=1",
    "--rpc.port=2",
    "--p2p.static=/ip4/1.2.3.4/tcp/1/p2p/QmA",
    "--p2p.static",
    "/ip4/1.2.3.5/tcp/2/p2p/QmB",
  ]);
  assertEquals(p.options.rpcPort, 2);
  assertEquals(p.options.p2pStatic, ["/ip4/1.2.3.4/tcp/1/p2p/QmA", "/ip4/1.2.3.5/tcp/2/p2p/QmB"]);
  const h = node(["--signer.header=A=1", "--signer.header=B=2"], { KEEL_SIGNER_HEADER: "C=3,D=4" });
  assertEquals(h.options.signerHeader, ["A=1", "B=2"]);
  assertEquals(node([], { KEEL_SIGNER_HEADER: "C=3,D=4" }).options.signerHeader, ["C=3", "D=4"]);
});

Deno.test("defaults are fresh copies", () => {
  const a = node([]);
  a.execution.httpApi.push("debug");
  assertEquals(node([]).execution.httpApi, ["eth", "net", "web3"]);
});

Deno.test("booleans: bare flag, =true, =false; a bare boolean does not eat the next word", () => {
  assertEquals(node(["--p2p.disable"]).options.p2pDisable, true);
  assertEquals(node(["--p2p.disable=true"]).options.p2pDisable, true);
  assertEquals(node(["--p2p.ban.peers=false"]).options.p2pBanPeers, false);
  assertEquals(node([], { KEEL_P2P_PEER_BANNING: "false" }).options.p2pBanPeers, false);
  fails(["node", "--network=op-sepolia", "--p2p.disable", "false"], "CONFIG_UNEXPECTED_ARGUMENT");
});

Deno.test("keel node takes the execution client's options too (shared entries)", () => {
  const p = node(["--http", "--http.port=9999", "--http.api=eth,debug,trace", "--authrpc.jwtsecret=/j"]);
  assertEquals(p.execution.http, true);
  assertEquals(p.execution.httpPort, 9999);
  assertEquals(p.execution.httpApi, ["eth", "debug", "trace"]);
  assertEquals(p.execution.authrpcJwtSecret, "/j");
  for (const [key, spec] of Object.entries(EXECUTION_OPTION_TABLE)) {
    assertEquals((NODE_COMMAND_TABLE as Record<string, unknown>)[key], spec, key);
  }
  assert(!("httpPort" in p.options));
});

Deno.test("keel execution: defaults, env scheme, dev chain", () => {
  const p = parseArgs(["execution", "--ws", "--dev", "--dev.period=2"], { KEEL_HTTP_PORT: "18545" });
  if (p.command !== "execution") throw new Error(p.command);
  const o = p.options;
  assertEquals(o.httpPort, 18545);
  assertEquals(o.ws, true);
  assertEquals(o.wsPort, 8546);
  assertEquals(o.dev, true);
  assertEquals(o.devPeriod, 2);
  assertEquals(o.networkId, 901n);
  assertEquals(o.authrpcAddr, "127.0.0.1");
  assertEquals(o.authrpcPort, 8551);
  assertEquals(o.rpcGasCap, 50_000_000n);
  assertEquals(o.rpcTxFeeCap, 1);
  assertEquals(o.rpcEvmTimeoutMs, 5_000);
  assertEquals(o.rpcBatchRequestLimit, 1000);
  assertEquals(o.rpcBatchResponseMaxSize, 25_000_000);
  assertEquals(o.httpVhosts, ["localhost"]);
  assertEquals(o.httpAddr, "127.0.0.1");
  for (const spec of Object.values(EXECUTION_OPTION_TABLE)) {
    assertEquals(spec.env, spec.name.toUpperCase().replace(/[.-]/g, "_"), spec.name);
  }
});

Deno.test("keel execution init --datadir D genesis.json", () => {
  const p = parseArgs(["execution", "init", "--datadir", "/tmp/d", "genesis.json"], {});
  assertEquals(p, {
    command: "execution-init",
    options: (p as { options: unknown }).options,
    datadir: "/tmp/d",
    genesisPath: "genesis.json",
  } as ParsedCommand);
  fails(["execution", "init", "--datadir", "/tmp/d"], "CONFIG_MISSING_REQUIRED");
  fails(["execution", "init", "a.json", "b.json"], "CONFIG_UNEXPECTED_ARGUMENT");
});

Deno.test("help, version and networks", () => {
  assertEquals(parseArgs([], {}), { command: "help", topic: "main" });
  assertEquals(parseArgs(["--help"], {}), { command: "help", topic: "main" });
  assertEquals(parseArgs(["-h"], {}), { command: "help", topic: "main" });
  assertEquals(parseArgs(["--version"], {}), { command: "version" });
  assertEquals(parseArgs(["-v"], {}), { command: "version" });
  // --help wins over missing required options and is accepted anywhere.
  assertEquals(parseArgs(["node", "--help"], {}), { command: "help", topic: "node" });
  assertEquals(parseArgs(["node", "-h"], {}), { command: "help", topic: "node" });
  assertEquals(parseArgs(["node", "--version"], {}), { command: "version" });
  assertEquals(parseArgs(["node", "-v"], {}), { command: "version" });
  assertEquals(parseArgs(["execution", "--help"], {}), { command: "help", topic: "execution" });
  assertEquals(parseArgs(["help", "node"], {}), { command: "help", topic: "node" });
  assertEquals(parseArgs(["networks"], {}), { command: "networks" });
});

Deno.test("invalid value from a flag names flag, env, value and form", () => {
  const e = fails(
    ["node", "--network=op-sepolia", "--l1.epoch-poll-interval=6 minutes"],
    "CONFIG_INVALID_VALUE",
  );
  assertEquals(
    e.message,
    'invalid value "6 minutes" for --l1.epoch-poll-interval (env KEEL_L1_EPOCH_POLL_INTERVAL): ' +
      "expected a duration such as 6m24s, 1h0m0s, 500ms or 0",
  );
  assertEquals(e.meta.flag, "--l1.epoch-poll-interval");
  assertEquals(e.meta.env, "KEEL_L1_EPOCH_POLL_INTERVAL");
  assertEquals(e.meta.value, "6 minutes");
});

Deno.test("invalid value from the environment names the variable first", () => {
  const e = fails(["node", "--network=op-sepolia"], "CONFIG_INVALID_VALUE", { KEEL_RPC_PORT: "70000" });
  assertEquals(
    e.message,
    'invalid value "70000" in KEEL_RPC_PORT (flag --rpc.port): expected an integer from 0 to 65535',
  );
});

Deno.test("invalid enum value suggests the nearest accepted one", () => {
  const e = fails(["node", "--network=op-sepolia", "--l2.enginekind=rehh"], "CONFIG_INVALID_VALUE");
  assertStringIncludes(e.message, "expected one of geth, reth, erigon; did you mean reth?");
  const n = fails(["node", "--network=base-mainet"], "CONFIG_INVALID_VALUE");
  assertStringIncludes(n.message, "did you mean base-mainnet?");
});

Deno.test("a secret is never printed", () => {
  const e = fails(["node", "--network=op-sepolia", "--p2p.sequencer.key=0xdeadbeef"], "CONFIG_INVALID_VALUE");
  assert(!e.message.includes("deadbeef"), e.message);
  assertStringIncludes(e.message, '"<redacted>"');
});

Deno.test("unknown flag: the nearest known name, its env and form", () => {
  const e = fails(["node", "--network=op-sepolia", "--l1.rpckindd=basic"], "CONFIG_UNKNOWN_FLAG");
  assertMatch(
    e.message,
    /^unknown flag --l1\.rpckindd with value "basic" for keel node; did you mean --l1\.rpckind /,
  );
  assertStringIncludes(e.message, "(env KEEL_L1_RPC_KIND)");
  assertEquals(e.meta.suggestion, "--l1.rpckind");
  assertEquals(
    fails(["node", "--p2p.peers.high=3"], "CONFIG_UNKNOWN_FLAG").meta.suggestion,
    "--p2p.peers.hi",
  );
  // Single-dash forms exist only for -h and -v, as in op-node.
  assertEquals(fails(["node", "-l1=http://x"], "CONFIG_UNKNOWN_FLAG").meta.suggestion, "--l1");
  const x = fails(["execution", "--l1=http://x"], "CONFIG_UNKNOWN_FLAG");
  assertStringIncludes(x.message, "--l1 is an option of keel node");
});

Deno.test("missing value for a non-boolean flag", () => {
  const e = fails(["node", "--network=op-sepolia", "--l1"], "CONFIG_MISSING_VALUE");
  assertEquals(
    e.message,
    "missing value for --l1 (env KEEL_L1_ETH_RPC): expected a URL (http://, https://, ws://, wss://)",
  );
  fails(["node", "--l1", "--network=op-sepolia"], "CONFIG_MISSING_VALUE");
});

Deno.test("missing required: one of --network or --rollup.config", () => {
  const e = fails(["node"], "CONFIG_MISSING_REQUIRED");
  assertStringIncludes(e.message, "--network (env KEEL_NETWORK) or --rollup.config (env KEEL_ROLLUP_CONFIG)");
  assertEquals(parseArgs(["node"], { KEEL_ROLLUP_CONFIG: "r.json" }).command, "node");
  // --l2 is optional: without it the node embeds keel's execution client.
  assertEquals(node([]).options.l2, undefined);
});

Deno.test("--network and --rollup.config exclude each other, from flags or env", () => {
  const e = fails(["node", "--network=op-sepolia", "--rollup.config=r.json"], "CONFIG_CONFLICT");
  assertStringIncludes(e.message, '--network (env KEEL_NETWORK) = "op-sepolia"');
  assertStringIncludes(e.message, '--rollup.config (env KEEL_ROLLUP_CONFIG) = "r.json"');
  assertStringIncludes(e.message, "exclude each other");
  fails(["node", "--rollup.config=r.json"], "CONFIG_CONFLICT", { KEEL_NETWORK: "base-mainnet" });
});

Deno.test("other cross-option rules", () => {
  fails(["node", "--network=op-sepolia", "--p2p.peers.lo=40"], "CONFIG_CONFLICT");
  fails(["node", "--network=op-sepolia", "--altda.enabled"], "CONFIG_MISSING_REQUIRED");
  fails(["node", "--network=op-sepolia", "--signer.endpoint=https://s.example"], "CONFIG_MISSING_REQUIRED");
});

Deno.test("execution: anvil's state files need --dev, and --state excludes the other two", () => {
  const ok = parseArgs(["execution", "--dev", "--load-state=a.json", "--dump-state=b.json"], {});
  assert(ok.command === "execution");
  assertEquals([ok.options.loadState, ok.options.dumpState, ok.options.state], [
    "a.json",
    "b.json",
    undefined,
  ]);
  const env = parseArgs(["execution", "--dev"], { KEEL_STATE: "s.json" });
  assert(env.command === "execution");
  assertEquals(env.options.state, "s.json");
  const e = fails(["execution", "--load-state=a.json"], "CONFIG_CONFLICT");
  assertStringIncludes(e.message, '--load-state (env KEEL_LOAD_STATE) = "a.json" needs --dev');
  fails(["execution"], "CONFIG_CONFLICT", { KEEL_DUMP_STATE: "b.json" });
  const both = fails(["execution", "--dev", "--state=s.json", "--dump-state=b.json"], "CONFIG_CONFLICT");
  assertStringIncludes(both.message, "exclude each other");
});

Deno.test("execution: anvil's dev chain options parse with their defaults; --dev.no-mining excludes --dev.period", () => {
  const d = parseArgs(["execution", "--dev"], {});
  assert(d.command === "execution");
  assertEquals(
    [
      d.options.devAccounts,
      d.options.devBalance,
      d.options.devBaseFee,
      d.options.devHardfork,
      d.options.devNoMining,
    ],
    [10, 10_000n, 1_000_000_000n, "isthmus", false],
  );
  assertEquals(d.options.devMnemonic, "test test test test test test test test test test test junk");
  const env = parseArgs(["execution", "--dev", "--dev.hardfork=jovian"], {
    KEEL_DEV_ACCOUNTS: "3",
    KEEL_DEV_NO_MINING: "true",
  });
  assert(env.command === "execution");
  assertEquals([env.options.devAccounts, env.options.devHardfork, env.options.devNoMining], [
    3,
    "jovian",
    true,
  ]);
  fails(["execution", "--dev", "--dev.hardfork=interop"], "CONFIG_INVALID_VALUE");
  fails(["execution", "--dev", "--dev.accounts=0"], "CONFIG_INVALID_VALUE");
  const both = fails(["execution", "--dev", "--dev.no-mining", "--dev.period=2"], "CONFIG_CONFLICT");
  assertStringIncludes(both.message, "exclude each other");
});

Deno.test("execution: --dev.code-size-limit and --dev.disable-code-size-limit need --dev and exclude each other (anvil)", () => {
  const d = parseArgs(["execution", "--dev"], {});
  assert(d.command === "execution");
  assertEquals([d.options.devCodeSizeLimit, d.options.devDisableCodeSizeLimit], [undefined, false]);
  const set = parseArgs(["execution", "--dev", "--dev.code-size-limit=30000"], {});
  assert(set.command === "execution");
  assertEquals(set.options.devCodeSizeLimit, 30_000);
  const env = parseArgs(["execution", "--dev"], { KEEL_DEV_DISABLE_CODE_SIZE_LIMIT: "true" });
  assert(env.command === "execution");
  assertEquals(env.options.devDisableCodeSizeLimit, true);
  fails(["execution", "--dev", "--dev.code-size-limit=0"], "CONFIG_INVALID_VALUE");
  fails(["execution", "--dev", "--dev.code-size-limit=lots"], "CONFIG_INVALID_VALUE");
  const real = fails(["execution", "--dev.code-size-limit=30000"], "CONFIG_CONFLICT");
  assertStringIncludes(real.message, "needs --dev");
  fails(["execution"], "CONFIG_CONFLICT", { KEEL_DEV_DISABLE_CODE_SIZE_LIMIT: "true" });
  const both = fails(
    ["execution", "--dev", "--dev.code-size-limit=30000", "--dev.disable-code-size-limit"],
    "CONFIG_CONFLICT",
  );
  assertStringIncludes(both.message, "exclude each other");
});

Deno.test("execution: --dev.fork-url (anvil --fork-url) needs --dev, an http(s) URL, no data dir or genesis options", () => {
  const ok = parseArgs([
    "execution",
    "--dev",
    "--dev.fork-url=http://127.0.0.1:8545",
    "--dev.fork-block-number=12",
  ], {});
  assert(ok.command === "execution");
  assertEquals([ok.options.devForkUrl, ok.options.devForkBlockNumber], ["http://127.0.0.1:8545", 12n]);
  const env = parseArgs(["execution", "--dev"], { KEEL_DEV_FORK_URL: "https://rpc.example/key" });
  assert(env.command === "execution");
  assertEquals(env.options.devForkUrl, "https://rpc.example/key");
  assertStringIncludes(
    fails(["execution", "--dev.fork-url=http://x"], "CONFIG_CONFLICT").message,
    "needs --dev",
  );
  assertStringIncludes(
    fails(["execution", "--dev", "--dev.fork-block-number=3"], "CONFIG_CONFLICT").message,
    "needs --dev.fork-url",
  );
  for (
    const other of [
      "--datadir=/tmp/x",
      "--genesis=g.json",
      "--dev.timestamp=5",
      "--dev.basefee=1",
      "--dev.gaslimit=1",
    ]
  ) {
    const e = fails(["execution", "--dev", "--dev.fork-url=http://x", other], "CONFIG_CONFLICT");
    assertStringIncludes(e.message, "exclude each other");
  }
  // The URL may carry an API key: it is not repeated in the error.
  const bad = fails(["execution", "--dev", "--dev.fork-url=ftp://secret-key@x"], "CONFIG_INVALID_VALUE");
  const ws = parseArgs(["execution", "--dev", "--dev.fork-url=wss://rpc.example/key"], {});
  assert(ws.command === "execution");
  assertEquals(bad.message.includes("secret-key"), false);
  fails(["execution", "--dev", "--dev.fork-url=not a url"], "CONFIG_INVALID_VALUE");
});

Deno.test("unknown command and stray arguments", () => {
  const e = fails(["nod"], "CONFIG_UNKNOWN_COMMAND");
  assertStringIncludes(e.message, "did you mean node?");
  fails(["--l1=http://x"], "CONFIG_UNKNOWN_FLAG");
  fails(["node", "--network=op-sepolia", "extra"], "CONFIG_UNEXPECTED_ARGUMENT");
  fails(["networks", "--bogus"], "CONFIG_UNKNOWN_FLAG");
  fails(["help", "nodes"], "CONFIG_UNKNOWN_COMMAND");
});

Deno.test("env names are unique across the node command's options", () => {
  const envs = Object.values(NODE_COMMAND_TABLE).map((s) => s.env);
  assertEquals(new Set(envs).size, envs.length);
  assertEquals(
    Object.keys(NODE_COMMAND_TABLE).length,
    new Set([...Object.keys(ROLLUP_OPTION_TABLE), ...Object.keys(EXECUTION_OPTION_TABLE)]).size,
  );
});

Deno.test("an empty value for an option without a default leaves it unset", () => {
  const p = node(["--l2.jwt-secret=", "--l2="]);
  assertEquals(p.options.l2JwtSecret, undefined);
  assertEquals(p.options.l2, undefined);
  fails(["node", "--network=op-sepolia", "--rpc.port="], "CONFIG_INVALID_VALUE");
});
