/** Spec 4.5 "L1 and L2 connections": the L1 JSON-RPC and beacon endpoints and the L2 engine. */
import { option, optional, type OptionTable, SPEC_4_5 } from "../option.ts";
import {
  bool,
  duration,
  float,
  HTTP_SCHEMES,
  int,
  listOf,
  oneOf,
  path,
  pattern,
  RPC_SCHEMES,
  url,
} from "../values.ts";

const group = "L1 and L2 connections";

/** op-node's receipt-fetching provider kinds (op-service/sources RPCProviderKinds). */
export const L1_RPC_KINDS = [
  "standard",
  "basic",
  "any",
  "debug_geth",
  "alchemy",
  "quicknode",
  "infura",
  "parity",
  "nethermind",
  "erigon",
] as const;
export type L1RpcKind = typeof L1_RPC_KINDS[number];

/** The three engine kinds of `l2.enginekind`; the first (the reference client) is the default. */
export const L2_ENGINE_KINDS = ["geth", "reth", "erigon"] as const;
export type L2EngineKind = typeof L2_ENGINE_KINDS[number];

export const L1_OPTIONS = {
  l1: option({
    name: "l1",
    env: "L1_ETH_RPC",
    kind: url(RPC_SCHEMES),
    default: "http://127.0.0.1:8545",
    origin: SPEC_4_5,
    group,
    description: "L1 user JSON-RPC endpoint (eth namespace required)",
  }),
  l1Beacon: optional({
    name: "l1.beacon",
    env: "L1_BEACON",
    kind: url(HTTP_SCHEMES),
    origin: SPEC_4_5,
    group,
    description: "L1 beacon-node HTTP endpoint",
  }),
  l1BeaconFallbacks: option({
    name: "l1.beacon-fallbacks",
    env: "L1_BEACON_FALLBACKS",
    kind: listOf(url(HTTP_SCHEMES)),
    default: [],
    origin: SPEC_4_5,
    group,
    description:
      "comma list of beacon-API fallback endpoints, used for blob sidecars not available at l1.beacon",
  }),
  l1BeaconHeader: optional({
    name: "l1.beacon-header",
    env: "L1_BEACON_HEADER",
    kind: pattern(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+:\s*\S.*$/, "<header>", "an HTTP header 'X-Key: Value'"),
    origin: SPEC_4_5,
    group,
    description: "optional HTTP header added to all beacon requests, format 'X-Key: Value'",
  }),
  l1BeaconFetchAllSidecars: option({
    name: "l1.beacon.fetch-all-sidecars",
    // The spec's table lists the suffix as "L1_BEACON (as listed)", which would collide with
    // l1.beacon; op-node's own variable is OP_NODE_L1_BEACON_FETCH_ALL_SIDECARS, so keel uses that.
    env: "L1_BEACON_FETCH_ALL_SIDECARS",
    kind: bool,
    default: false,
    origin: SPEC_4_5,
    group,
    description: "fetch all sidecars and filter locally (workaround for buggy beacon nodes)",
  }),
  l1BeaconIgnore: option({
    name: "l1.beacon.ignore",
    env: "L1_BEACON_IGNORE",
    kind: bool,
    default: false,
    origin: SPEC_4_5,
    group,
    description: "when false, startup halts if the beacon healthcheck fails",
  }),
  l1CacheSize: option({
    name: "l1.cache-size",
    env: "L1_CACHE_SIZE",
    kind: int(0, 2 ** 32 - 1),
    default: 900,
    origin: SPEC_4_5,
    group,
    description: "cache size for blocks, receipts, transactions; 0 means 3/2 of the sequencing window",
  }),
  l1EpochPollIntervalMs: option({
    name: "l1.epoch-poll-interval",
    env: "L1_EPOCH_POLL_INTERVAL",
    kind: duration,
    default: 384_000,
    origin: SPEC_4_5,
    group,
    description: "poll for new L1 epoch updates (safe/finalized); disabled if 0 or negative",
  }),
  l1HttpPollIntervalMs: option({
    name: "l1.http-poll-interval",
    env: "L1_HTTP_POLL_INTERVAL",
    kind: duration,
    default: 12_000,
    origin: SPEC_4_5,
    group,
    description: "latest-block polling with an HTTP provider; ignored for other endpoint types",
  }),
  l1MaxConcurrency: option({
    name: "l1.max-concurrency",
    env: "L1_MAX_CONCURRENCY",
    kind: int(1, 2 ** 31 - 1),
    default: 10,
    origin: SPEC_4_5,
    group,
    description: "max concurrent L1 RPC requests",
  }),
  l1RpcMaxBatchSize: option({
    name: "l1.rpc-max-batch-size",
    env: "L1_RPC_MAX_BATCH_SIZE",
    kind: int(1, 2 ** 31 - 1),
    default: 20,
    origin: SPEC_4_5,
    group,
    description: "max RPC requests bundled (e.g. receipt fetching); counts as N items against the rate limit",
  }),
  l1RpcRateLimit: option({
    name: "l1.rpc-rate-limit",
    env: "L1_RPC_RATE_LIMIT",
    kind: float(0),
    default: 0,
    origin: SPEC_4_5,
    group,
    description: "self-imposed global L1 request limit in requests per second; 0 disables",
  }),
  l1RpcKind: option({
    name: "l1.rpckind",
    env: "L1_RPC_KIND",
    kind: oneOf(L1_RPC_KINDS),
    default: "standard",
    origin: SPEC_4_5,
    group,
    description: "provider kind that tunes receipt fetching",
  }),
  l1RuntimeConfigReloadIntervalMs: option({
    name: "l1.runtime-config-reload-interval",
    env: "L1_RUNTIME_CONFIG_RELOAD_INTERVAL",
    kind: duration,
    default: 600_000,
    origin: SPEC_4_5,
    group,
    description: "poll to reload runtime config; disabled if 0 or negative",
  }),
  l1TrustRpc: option({
    name: "l1.trustrpc",
    env: "L1_TRUST_RPC",
    kind: bool,
    default: false,
    origin: SPEC_4_5,
    group,
    description:
      "trust the L1 RPC: faster sync, at risk of bad data; required with an L1 client lacking eth_getProof",
  }),
  l2: optional({
    name: "l2",
    env: "L2_ENGINE_RPC",
    kind: url(RPC_SCHEMES),
    origin: SPEC_4_5,
    group,
    description:
      "L2 engine JSON-RPC endpoint (engine and eth namespaces); empty: run keel's own execution client",
  }),
  l2EngineRpcTimeoutMs: option({
    name: "l2.engine-rpc-timeout",
    env: "L2_ENGINE_RPC_TIMEOUT",
    kind: duration,
    default: 10_000,
    origin: SPEC_4_5,
    group,
    description: "engine client RPC timeout",
  }),
  l2JwtSecret: optional({
    name: "l2.jwt-secret",
    env: "L2_ENGINE_AUTH",
    kind: path,
    origin: SPEC_4_5,
    group,
    description: "path to JWT secret file: 32 bytes, hex-encoded; a new key is generated if left empty",
  }),
  l2EngineKind: option({
    name: "l2.enginekind",
    env: "L2_ENGINE_KIND",
    kind: oneOf(L2_ENGINE_KINDS),
    default: "geth",
    origin: SPEC_4_5,
    group,
    description: "engine client kind (keel's embedded engine behaves as geth)",
  }),
} satisfies OptionTable;
