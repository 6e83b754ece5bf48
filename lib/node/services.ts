/**
 * The services every role shares: logging, metrics with its server, and the profiler.
 * Started in this order and stopped in reverse.
 */
import { configureLogging, Metrics } from "../common/mod.ts";
import { MetricsServer } from "./metrics_server.ts";
import { PprofService } from "./pprof.ts";

export interface SharedServiceOptions {
  logLevel: string;
  logFormat: string;
  logColor: boolean;
  logPid: boolean;
  metricsEnabled: boolean;
  metricsAddr: string;
  metricsPort: number;
  pprofEnabled: boolean;
  pprofAddr: string;
  pprofPort: number;
  pprofPath?: string;
  pprofType?: string;
}

export interface SharedServices {
  metrics: Metrics;
  endpoints: Record<string, string>;
  stop(): Promise<void>;
}

/** Configure logging and start metrics and pprof as the options say. */
export async function startSharedServices(o: SharedServiceOptions, version: string): Promise<SharedServices> {
  configureLogging({
    level: o.logLevel,
    format: o.logFormat as "text",
    color: o.logColor,
    pid: o.logPid,
  });
  const metrics = new Metrics();
  metrics.recordInfo(version);
  metrics.recordUp();
  const endpoints: Record<string, string> = {};
  const stops: (() => Promise<void> | void)[] = [];
  try {
    if (o.metricsEnabled) {
      metrics.start();
      stops.push(() => metrics.stop());
      const server = new MetricsServer({ addr: o.metricsAddr, port: o.metricsPort }, { metrics });
      await server.start();
      stops.push(() => server.stop());
      endpoints.metrics = `http://${o.metricsAddr}:${server.port}/metrics`;
    }
    // The constructor refuses Go-only profile types before anything listens.
    const pprof = new PprofService({
      enabled: o.pprofEnabled,
      addr: o.pprofAddr,
      port: o.pprofPort,
      path: o.pprofPath ?? "",
      type: o.pprofType ?? "",
    });
    if (o.pprofEnabled) {
      await pprof.start();
      stops.push(() => pprof.stop());
      if (!o.pprofPath) endpoints.pprof = `http://${o.pprofAddr}:${pprof.port}/debug/pprof/`;
    }
  } catch (err) {
    for (const stop of stops.reverse()) await stop();
    throw err;
  }
  return {
    metrics,
    endpoints,
    async stop() {
      for (const stop of stops.splice(0).reverse()) await stop();
    },
  };
}
