/** Spec 4.5 "Conductor, persistence, signer". */
import { option, optional, type OptionTable, SPEC_4_5 } from "../option.ts";
import { address, bool, duration, HTTP_SCHEMES, listOf, path, pattern, RPC_SCHEMES, url } from "../values.ts";

const group = "Conductor, persistence, signer";

/** One `key=value` header pair of `signer.header`. */
const headerPair = pattern(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+=.*$/, "<key=value>", "a header pair key=value");

export const SIGNER_OPTIONS = {
  conductorEnabled: option({
    name: "conductor.enabled",
    env: "CONDUCTOR_ENABLED",
    kind: bool,
    default: false,
    origin: SPEC_4_5,
    group,
    description: "enable conductor service",
  }),
  conductorRpc: option({
    name: "conductor.rpc",
    env: "CONDUCTOR_RPC",
    kind: url(RPC_SCHEMES),
    default: "http://127.0.0.1:8547",
    origin: SPEC_4_5,
    group,
    description: "conductor endpoint",
  }),
  conductorRpcTimeoutMs: option({
    name: "conductor.rpc-timeout",
    env: "CONDUCTOR_RPC_TIMEOUT",
    kind: duration,
    default: 1_000,
    origin: SPEC_4_5,
    group,
    description: "conductor timeout",
  }),
  safedbPath: optional({
    name: "safedb.path",
    env: "SAFEDB_PATH",
    kind: path,
    origin: SPEC_4_5,
    group,
    description: "file path persisting safe-head updates; unset: disabled",
  }),
  snapshotLogFile: optional({
    name: "snapshotlog.file",
    env: "SNAPSHOT_LOG",
    kind: path,
    origin: SPEC_4_5,
    group,
    description: "snapshot log file path",
  }),
  signerAddress: optional({
    name: "signer.address",
    env: "SIGNER_ADDRESS",
    kind: address,
    origin: SPEC_4_5,
    group,
    description: "address the signer signs for",
  }),
  signerEndpoint: optional({
    name: "signer.endpoint",
    env: "SIGNER_ENDPOINT",
    kind: url(HTTP_SCHEMES),
    origin: SPEC_4_5,
    group,
    description: "remote signer endpoint",
  }),
  signerHeader: option({
    name: "signer.header",
    env: "SIGNER_HEADER",
    kind: listOf(headerPair),
    default: [],
    origin: SPEC_4_5,
    group,
    description:
      "headers for the remote signer, key=value; one pair per flag, comma-separated in the env var",
  }),
  signerTlsCa: option({
    name: "signer.tls.ca",
    env: "SIGNER_TLS_CA",
    kind: path,
    default: "tls/ca.crt",
    origin: SPEC_4_5,
    group,
    description: "TLS CA certificate path",
  }),
  signerTlsCert: option({
    name: "signer.tls.cert",
    env: "SIGNER_TLS_CERT",
    kind: path,
    default: "tls/tls.crt",
    origin: SPEC_4_5,
    group,
    description: "TLS certificate path",
  }),
  signerTlsEnabled: option({
    name: "signer.tls.enabled",
    env: "SIGNER_TLS_ENABLED",
    kind: bool,
    default: true,
    origin: SPEC_4_5,
    group,
    description: "TLS client authentication for the signer",
  }),
  signerTlsKey: option({
    name: "signer.tls.key",
    env: "SIGNER_TLS_KEY",
    kind: path,
    default: "tls/tls.key",
    origin: SPEC_4_5,
    group,
    description: "TLS key path",
  }),
} satisfies OptionTable;
