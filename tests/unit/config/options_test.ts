/**
 * Walks every row of spec section 4.5 (transcribed below: option, env suffix, default) through
 * the default, a flag (both `--name=value` and `--name value`) and the environment.
 */
import { assert, assertEquals } from "../../assert.ts";
import {
  type AnyOption,
  envName,
  formatDefault,
  L2_ENGINE_KINDS,
  parseArgs,
  type ParsedNode,
  ROLLUP_AREA_TABLES,
  ROLLUP_OPTION_TABLE,
} from "../../../lib/config/mod.ts";

/** Spec 4.5, every table row, as written there: [option, env suffix, default]. */
const SPEC_ROWS: readonly (readonly [string, string, string])[] = [
  ["l1", "L1_ETH_RPC", "http://127.0.0.1:8545"],
  ["l1.beacon", "L1_BEACON", "-"],
  ["l1.beacon-fallbacks", "L1_BEACON_FALLBACKS", "-"],
  ["l1.beacon-header", "L1_BEACON_HEADER", "-"],
  ["l1.beacon.fetch-all-sidecars", "L1_BEACON (as listed)", "false"],
  ["l1.beacon.ignore", "L1_BEACON_IGNORE", "false"],
  ["l1.cache-size", "L1_CACHE_SIZE", "900"],
  ["l1.epoch-poll-interval", "L1_EPOCH_POLL_INTERVAL", "6m24s"],
  ["l1.http-poll-interval", "L1_HTTP_POLL_INTERVAL", "12s"],
  ["l1.max-concurrency", "L1_MAX_CONCURRENCY", "10"],
  ["l1.rpc-max-batch-size", "L1_RPC_MAX_BATCH_SIZE", "20"],
  ["l1.rpc-rate-limit", "L1_RPC_RATE_LIMIT", "0"],
  ["l1.rpckind", "L1_RPC_KIND", "standard"],
  ["l1.runtime-config-reload-interval", "L1_RUNTIME_CONFIG_RELOAD_INTERVAL", "10m0s"],
  ["l1.trustrpc", "L1_TRUST_RPC", "false"],
  ["l2", "L2_ENGINE_RPC", "-"],
  ["l2.engine-rpc-timeout", "L2_ENGINE_RPC_TIMEOUT", "10s"],
  ["l2.jwt-secret", "L2_ENGINE_AUTH", "-"],
  ["l2.enginekind", "L2_ENGINE_KIND", "first of three kinds"],
  ["network", "NETWORK", "-"],
  ["rollup.config", "ROLLUP_CONFIG", "-"],
  ["rollup.halt", "ROLLUP_HALT", "-"],
  ["rollup.l1-chain-config", "ROLLUP_L1_CHAIN_CONFIG", "-"],
  ["rollup.load-protocol-versions", "ROLLUP_LOAD_PROTOCOL_VERSIONS", "false"],
  ["syncmode", "SYNCMODE", "consensus-layer"],
  ["override.canyon", "OVERRIDE_CANYON", "0"],
  ["override.delta", "OVERRIDE_DELTA", "0"],
  ["override.ecotone", "OVERRIDE_ECOTONE", "0"],
  ["override.fjord", "OVERRIDE_FJORD", "0"],
  ["override.granite", "OVERRIDE_GRANITE", "0"],
  ["override.holocene", "OVERRIDE_HOLOCENE", "0"],
  ["override.isthmus", "OVERRIDE_ISTHMUS", "0"],
  ["override.interop", "OVERRIDE_INTEROP", "0"],
  ["override.jovian", "OVERRIDE_JOVIAN", "0"],
  ["override.pectrablobschedule", "OVERRIDE_PECTRABLOBSCHEDULE", "0"],
  ["log.color", "LOG_COLOR", "false"],
  ["log.format", "LOG_FORMAT", "text"],
  ["log.level", "LOG_LEVEL", "info"],
  ["log.pid", "LOG_PID", "false"],
  ["rpc.addr", "RPC_ADDR", "0.0.0.0"],
  ["rpc.port", "RPC_PORT", "9545"],
  ["rpc.enable-admin", "RPC_ENABLE_ADMIN", "false"],
  ["rpc.admin-state", "RPC_ADMIN_STATE", "unset (disabled)"],
  ["metrics.addr", "METRICS_ADDR", "0.0.0.0"],
  ["metrics.enabled", "METRICS_ENABLED", "false"],
  ["metrics.port", "METRICS_PORT", "7300"],
  ["pprof.addr", "PPROF_ADDR", "0.0.0.0"],
  ["pprof.enabled", "PPROF_ENABLED", "false"],
  ["pprof.path", "PPROF_PATH", "-"],
  ["pprof.port", "PPROF_PORT", "6060"],
  ["pprof.type", "PPROF_TYPE", "-"],
  ["p2p.advertise.ip", "P2P_ADVERTISE_IP", "-"],
  ["p2p.advertise.tcp", "P2P_ADVERTISE_TCP", "0"],
  ["p2p.advertise.udp", "P2P_ADVERTISE_UDP", "0"],
  ["p2p.ban.duration", "P2P_PEER_BANNING_DURATION", "1h0m0s"],
  ["p2p.ban.peers", "P2P_PEER_BANNING", "true"],
  ["p2p.ban.threshold", "P2P_PEER_BANNING_THRESHOLD", "-100"],
  ["p2p.bootnodes", "P2P_BOOTNODES", "-"],
  ["p2p.disable", "P2P_DISABLE", "false"],
  ["p2p.discovery.path", "P2P_DISCOVERY_PATH", "opnode_discovery_db"],
  ["p2p.gossip.timestamp.threshold", "P2P_GOSSIP_TIMESTAMP_THRESHOLD", "1m0s"],
  ["p2p.listen.ip", "P2P_LISTEN_IP", "0.0.0.0"],
  ["p2p.listen.tcp", "P2P_LISTEN_TCP_PORT", "9222"],
  ["p2p.listen.udp", "P2P_LISTEN_UDP_PORT", "0"],
  ["p2p.nat", "P2P_NAT", "false"],
  ["p2p.netrestrict", "P2P_NETRESTRICT", "-"],
  ["p2p.no-discovery", "P2P_NO_DISCOVERY", "false"],
  ["p2p.peers.grace", "P2P_PEERS_GRACE", "30s"],
  ["p2p.peers.hi", "P2P_PEERS_HI", "30"],
  ["p2p.peers.lo", "P2P_PEERS_LO", "20"],
  ["p2p.peerstore.path", "P2P_PEERSTORE_PATH", "opnode_peerstore_db"],
  ["p2p.priv.path", "P2P_PRIV_PATH", "opnode_p2p_priv.txt"],
  ["p2p.scoring", "P2P_PEER_SCORING", "light"],
  ["p2p.sequencer.key", "P2P_SEQUENCER_KEY", "-"],
  ["p2p.static", "P2P_STATIC", "-"],
  ["p2p.sync.onlyreqtostatic", "P2P_SYNC_ONLYREQTOSTATIC", "false"],
  ["p2p.sync.req-resp", "P2P_SYNC_REQ_RESP", "true"],
  ["sequencer.enabled", "SEQUENCER_ENABLED", "false"],
  ["sequencer.l1-confs", "SEQUENCER_L1_CONFS", "4"],
  ["sequencer.max-safe-lag", "SEQUENCER_MAX_SAFE_LAG", "0"],
  ["sequencer.recover", "SEQUENCER_RECOVER", "false"],
  ["sequencer.stopped", "SEQUENCER_STOPPED", "false"],
  ["verifier.l1-confs", "VERIFIER_L1_CONFS", "0"],
  ["conductor.enabled", "CONDUCTOR_ENABLED", "false"],
  ["conductor.rpc", "CONDUCTOR_RPC", "http://127.0.0.1:8547"],
  ["conductor.rpc-timeout", "CONDUCTOR_RPC_TIMEOUT", "1s"],
  ["safedb.path", "SAFEDB_PATH", "unset (disabled)"],
  ["snapshotlog.file", "SNAPSHOT_LOG", "-"],
  ["signer.address", "SIGNER_ADDRESS", "-"],
  ["signer.endpoint", "SIGNER_ENDPOINT", "-"],
  ["signer.header", "SIGNER_HEADER", "-"],
  ["signer.tls.ca", "SIGNER_TLS_CA", "tls/ca.crt"],
  ["signer.tls.cert", "SIGNER_TLS_CERT", "tls/tls.crt"],
  ["signer.tls.enabled", "SIGNER_TLS_ENABLED", "true"],
  ["signer.tls.key", "SIGNER_TLS_KEY", "tls/tls.key"],
  ["altda.enabled", "ALTDA_ENABLED", "false"],
  ["altda.da-server", "ALTDA_DA_SERVER", "-"],
  ["altda.da-service", "ALTDA_DA_SERVICE", "false"],
  ["altda.get-timeout", "ALTDA_GET_TIMEOUT", "0s"],
  ["altda.max-concurrent-da-requests", "ALTDA_MAX_CONCURRENT_DA_REQUESTS", "1"],
  ["altda.put-timeout", "ALTDA_PUT_TIMEOUT", "0s"],
  ["altda.verify-on-read", "ALTDA_VERIFY_ON_READ", "true"],
  ["interop.dependency-set", "INTEROP_DEPENDENCY_SET", "-"],
  ["interop.jwt-secret", "INTEROP_JWT_SECRET", "-"],
  ["interop.rpc.addr", "INTEROP_RPC_ADDR", "empty (disabled)"],
  ["interop.rpc.port", "INTEROP_RPC_PORT", "9645"],
  ["experimental.sequencer-api", "EXPERIMENTAL_SEQUENCER_API", "false"],
  ["fetch-withdrawal-root-from-state", "FETCH_WITHDRAWAL_ROOT_FROM_STATE", "false"],
  ["--help, -h", "-", "false"],
  ["--version, -v", "-", "false"],
];

/** A valid value other than the default for each option, in its text form. */
const SAMPLES: Record<string, string> = {
  "l1": "ws://127.0.0.1:8546",
  "l1.beacon": "http://127.0.0.1:5052",
  "l1.beacon-fallbacks": "http://a.example:5052,https://b.example",
  "l1.beacon-header": "X-Key: secret",
  "l1.beacon.fetch-all-sidecars": "true",
  "l1.beacon.ignore": "true",
  "l1.cache-size": "0",
  "l1.epoch-poll-interval": "1m30s",
  "l1.http-poll-interval": "500ms",
  "l1.max-concurrency": "4",
  "l1.rpc-max-batch-size": "50",
  "l1.rpc-rate-limit": "12.5",
  "l1.rpckind": "debug_geth",
  "l1.runtime-config-reload-interval": "0s",
  "l1.trustrpc": "true",
  "l2": "http://127.0.0.1:8551",
  "l2.engine-rpc-timeout": "1h0m0s",
  "l2.jwt-secret": "/tmp/jwt.hex",
  "l2.enginekind": "reth",
  "network": "base-sepolia",
  "rollup.config": "rollup.json",
  "rollup.halt": "minor",
  "rollup.l1-chain-config": "l1.json",
  "rollup.load-protocol-versions": "true",
  "syncmode": "execution-layer",
  "log.color": "true",
  "log.format": "json",
  "log.level": "debug",
  "log.pid": "true",
  "rpc.addr": "127.0.0.1",
  "rpc.port": "8000",
  "rpc.enable-admin": "true",
  "rpc.admin-state": "admin.json",
  "metrics.addr": "127.0.0.1",
  "metrics.enabled": "true",
  "metrics.port": "7301",
  "pprof.addr": "::1",
  "pprof.enabled": "true",
  "pprof.path": "/tmp/prof",
  "pprof.port": "6061",
  "pprof.type": "cpu",
  "p2p.advertise.ip": "203.0.113.7",
  "p2p.advertise.tcp": "9333",
  "p2p.advertise.udp": "9334",
  "p2p.ban.duration": "2h30m0s",
  "p2p.ban.peers": "false",
  "p2p.ban.threshold": "-50.5",
  "p2p.bootnodes": "enr:-Iu4QABC,enr:-Iu4QDEF",
  "p2p.disable": "true",
  "p2p.discovery.path": "memory",
  "p2p.gossip.timestamp.threshold": "2m0s",
  "p2p.listen.ip": "::",
  "p2p.listen.tcp": "0",
  "p2p.listen.udp": "30303",
  "p2p.nat": "true",
  "p2p.netrestrict": "10.0.0.0/8,fd00::/8",
  "p2p.no-discovery": "true",
  "p2p.peers.grace": "45s",
  "p2p.peers.hi": "50",
  "p2p.peers.lo": "25",
  "p2p.peerstore.path": "memory",
  "p2p.priv.path": "key.txt",
  "p2p.scoring": "none",
  "p2p.sequencer.key": "0x" + "11".repeat(32),
  "p2p.static": "/ip4/127.0.0.1/tcp/9222/p2p/16Uiu2HAmPLe7Mzm8TsYUubgCAW1aJoeFScxrLj8ppHFivPo97bUZ",
  "p2p.sync.onlyreqtostatic": "true",
  "p2p.sync.req-resp": "false",
  "sequencer.enabled": "true",
  "sequencer.l1-confs": "10",
  "sequencer.max-safe-lag": "100",
  "sequencer.recover": "true",
  "sequencer.stopped": "true",
  "verifier.l1-confs": "4",
  "conductor.enabled": "true",
  "conductor.rpc": "http://127.0.0.1:8548",
  "conductor.rpc-timeout": "2s",
  "safedb.path": "safe.db",
  "snapshotlog.file": "snap.log",
  "signer.address": "0x" + "ab".repeat(20),
  "signer.endpoint": "https://signer.example",
  "signer.header": "X-A=1,X-B=2",
  "signer.tls.ca": "ca.pem",
  "signer.tls.cert": "cert.pem",
  "signer.tls.enabled": "false",
  "signer.tls.key": "key.pem",
  "altda.enabled": "true",
  "altda.da-server": "http://127.0.0.1:3100",
  "altda.da-service": "true",
  "altda.get-timeout": "5s",
  "altda.max-concurrent-da-requests": "4",
  "altda.put-timeout": "10s",
  "altda.verify-on-read": "false",
  "interop.dependency-set": "deps.json",
  "interop.jwt-secret": "interop.jwt",
  "interop.rpc.addr": "127.0.0.1",
  "interop.rpc.port": "9646",
  "experimental.sequencer-api": "true",
  "fetch-withdrawal-root-from-state": "true",
};
for (
  const fork of ["canyon", "delta", "ecotone", "fjord", "granite", "holocene", "isthmus", "interop", "jovian"]
) {
  SAMPLES[`override.${fork}`] = "1700000000";
}
SAMPLES["override.pectrablobschedule"] = "0x6553f100";

/** Options a sample needs alongside it (cross-option rules). */
const COMPANIONS: Record<string, string[]> = {
  "altda.enabled": ["--altda.da-server=http://127.0.0.1:3100"],
  "signer.endpoint": ["--signer.address=0x" + "cd".repeat(20)],
};

const OPTION_ROWS = SPEC_ROWS.filter(([name]) => !name.startsWith("--"));

function byName(name: string): [string, AnyOption] {
  const hit = Object.entries(ROLLUP_OPTION_TABLE).find(([, spec]) => spec.name === name);
  if (hit === undefined) throw new Error(`option ${name} of spec 4.5 is missing from the table`);
  return hit;
}

/** The options that satisfy the network-or-rollup-config rule without touching `name`. */
function base(name: string): string[] {
  return name === "network" || name === "rollup.config" ? [] : ["--network=op-mainnet"];
}

function node(argv: string[], env: Record<string, string> = {}): ParsedNode {
  const parsed = parseArgs(["node", ...argv], env);
  if (parsed.command !== "node") throw new Error(`expected a node command, got ${parsed.command}`);
  return parsed;
}

function field(parsed: ParsedNode, key: string): unknown {
  return (parsed.options as Record<string, unknown>)[key];
}

Deno.test("the spec table has all its rows (110, with --help and --version)", () => {
  assertEquals(SPEC_ROWS.length, 110);
  assertEquals(OPTION_ROWS.length, 108);
});

Deno.test("every spec 4.5 option is in the table, and the table has nothing else", () => {
  const specNames = new Set(OPTION_ROWS.map(([name]) => name));
  const tableNames = Object.values(ROLLUP_OPTION_TABLE).map((s) => s.name);
  assertEquals(new Set(tableNames).size, tableNames.length, "duplicate option names");
  assertEquals([...tableNames].sort(), [...specNames].sort());
  // The area spreads did not shadow a key.
  const areaKeys = ROLLUP_AREA_TABLES.flatMap((t) => Object.keys(t));
  assertEquals(areaKeys.length, Object.keys(ROLLUP_OPTION_TABLE).length);
});

Deno.test("every spec 4.5 option has the spec's env suffix", () => {
  for (const [name, suffix] of OPTION_ROWS) {
    const [, spec] = byName(name);
    // The spec lists l1.beacon.fetch-all-sidecars as "L1_BEACON (as listed)"; op-node's own
    // variable is L1_BEACON_FETCH_ALL_SIDECARS, which keel uses (l1.beacon owns L1_BEACON).
    const expected = suffix === "L1_BEACON (as listed)" ? "L1_BEACON_FETCH_ALL_SIDECARS" : suffix;
    assertEquals(spec.env, expected, name);
    assertEquals(envName(spec), `KEEL_${expected}`, name);
  }
});

Deno.test("every spec 4.5 option has the spec's default, as printed and as parsed", () => {
  for (const [name, , def] of OPTION_ROWS) {
    const [key, spec] = byName(name);
    const parsed = node(name === "network" ? ["--rollup.config=r.json"] : ["--network=op-mainnet"]);
    const value = field(parsed, key);
    if (name === "network" || name === "rollup.config") {
      // The required pair: the one not given stays unset.
      assertEquals(spec.default, undefined, name);
      continue;
    }
    assertEquals(parsed.sources[key], "default", name);
    if (def === "-" || def === "unset (disabled)" || def === "empty (disabled)") {
      assert(value === undefined || (Array.isArray(value) && value.length === 0), `${name}: no default`);
      assertEquals(formatDefault(spec), "", name);
    } else if (def === "first of three kinds") {
      assertEquals(L2_ENGINE_KINDS.length, 3);
      assertEquals(value, L2_ENGINE_KINDS[0], name);
      assertEquals(value, "geth", name);
    } else {
      assertEquals(formatDefault(spec), def, name);
      assertEquals(value, spec.kind.parse(def), name);
    }
  }
});

Deno.test("every spec 4.5 option is taken from --name=value", () => {
  for (const [name] of OPTION_ROWS) {
    const [key, spec] = byName(name);
    const sample = SAMPLES[name];
    assert(sample !== undefined, `no sample for ${name}`);
    const parsed = node([...base(name), ...(COMPANIONS[name] ?? []), `--${name}=${sample}`]);
    assertEquals(parsed.sources[key], "flag", name);
    assertEquals(field(parsed, key), spec.kind.parse(sample), name);
    assert(
      JSON.stringify(field(parsed, key), big) !== JSON.stringify(spec.default, big),
      `${name}: sample is default`,
    );
  }
});

Deno.test("every spec 4.5 option is taken from --name value (booleans as a bare --name)", () => {
  for (const [name] of OPTION_ROWS) {
    const [key, spec] = byName(name);
    const sample = SAMPLES[name];
    const argv = spec.kind.bool
      ? (sample === "true" ? [`--${name}`] : [`--${name}=${sample}`])
      : [`--${name}`, sample];
    const parsed = node([...base(name), ...(COMPANIONS[name] ?? []), ...argv]);
    assertEquals(field(parsed, key), spec.kind.parse(sample), name);
  }
});

Deno.test("every spec 4.5 option is taken from KEEL_<suffix>", () => {
  for (const [name] of OPTION_ROWS) {
    const [key, spec] = byName(name);
    const sample = SAMPLES[name];
    const parsed = node([...base(name), ...(COMPANIONS[name] ?? [])], { [envName(spec)]: sample });
    assertEquals(parsed.sources[key], "env", name);
    assertEquals(field(parsed, key), spec.kind.parse(sample), name);
  }
});

Deno.test("a few parsed values, spelled out", () => {
  const p = node([
    "--network=OP-Mainnet",
    "--l1.epoch-poll-interval=1m30s",
    "--p2p.netrestrict=10.0.0.0/8,fd00::/8",
    "--override.jovian=1700000000",
    "--log.level=5",
    "--p2p.ban.threshold",
    "-50.5",
  ]);
  assertEquals(p.options.network, "op-mainnet");
  assertEquals(p.options.l1EpochPollIntervalMs, 90_000);
  assertEquals(p.options.p2pNetRestrict, ["10.0.0.0/8", "fd00::/8"]);
  assertEquals(p.options.overrideJovian, 1_700_000_000n);
  assertEquals(p.options.logLevel, "trace");
  assertEquals(p.options.p2pBanThreshold, -50.5);
  assertEquals(p.options.l2EngineKind, "geth");
  assertEquals(p.options.l2, undefined);
});

function big(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? `${value}n` : value;
}
