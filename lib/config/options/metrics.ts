/** Spec 4.5 "Metrics and profiling". */
import { option, optional, type OptionTable, SPEC_4_5 } from "../option.ts";
import { bool, host, oneOf, path, port } from "../values.ts";

const group = "Metrics and profiling";

/**
 * Profile types of `pprof.type` as the spec lists them. keel's runtime has equivalents for cpu,
 * heap and allocs; the Go-only types are accepted here and refused at start by the profiler.
 */
export const PPROF_TYPES = ["cpu", "heap", "goroutine", "threadcreate", "block", "mutex", "allocs"] as const;
export type PprofType = typeof PPROF_TYPES[number];

export const METRICS_OPTIONS = {
  metricsAddr: option({
    name: "metrics.addr",
    env: "METRICS_ADDR",
    kind: host,
    default: "0.0.0.0",
    origin: SPEC_4_5,
    group,
    description: "metrics listening address",
  }),
  metricsEnabled: option({
    name: "metrics.enabled",
    env: "METRICS_ENABLED",
    kind: bool,
    default: false,
    origin: SPEC_4_5,
    group,
    description: "enable metrics server",
  }),
  metricsPort: option({
    name: "metrics.port",
    env: "METRICS_PORT",
    kind: port,
    default: 7300,
    origin: SPEC_4_5,
    group,
    description: "metrics port",
  }),
  pprofAddr: option({
    name: "pprof.addr",
    env: "PPROF_ADDR",
    kind: host,
    default: "0.0.0.0",
    origin: SPEC_4_5,
    group,
    description: "profiler address",
  }),
  pprofEnabled: option({
    name: "pprof.enabled",
    env: "PPROF_ENABLED",
    kind: bool,
    default: false,
    origin: SPEC_4_5,
    group,
    description: "enable profiler server",
  }),
  pprofPath: optional({
    name: "pprof.path",
    env: "PPROF_PATH",
    kind: path,
    origin: SPEC_4_5,
    group,
    description: "file path; if a directory, the file is {dir}/{profileType}.prof",
  }),
  pprofPort: option({
    name: "pprof.port",
    env: "PPROF_PORT",
    kind: port,
    default: 6060,
    origin: SPEC_4_5,
    group,
    description: "profiler port",
  }),
  pprofType: optional({
    name: "pprof.type",
    env: "PPROF_TYPE",
    kind: oneOf(PPROF_TYPES),
    origin: SPEC_4_5,
    group,
    description: "one of cpu, heap, goroutine, threadcreate, block, mutex, allocs",
  }),
} satisfies OptionTable;
