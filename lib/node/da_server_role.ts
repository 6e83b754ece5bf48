/**
 * `keel da-server`: an Alt-DA server (rollup/altda/da_server.ts) keeping inputs as files in
 * `--file.path`, as op-alt-da's da-server with its file store.
 */
import { configureLogging, getLogger } from "../common/logger.ts";
import type { ParsedDaServer } from "../config/mod.ts";
import { FileDaStore, startDaServer } from "../rollup/altda/mod.ts";
import type { RunningRole } from "./role.ts";

export async function startDaServerRole(o: ParsedDaServer["options"]): Promise<RunningRole> {
  configureLogging({ level: o.logLevel, format: o.logFormat as "text", color: o.logColor, pid: o.logPid });
  const log = getLogger(["altda", "server"]);
  await Deno.mkdir(o.filePath, { recursive: true });
  const server = startDaServer(o.addr, o.port, new FileDaStore(o.filePath), {
    genericCommitments: o.genericCommitment,
  });
  log.info("DA server started", {
    url: server.url,
    storage: o.filePath,
    commitments: o.genericCommitment ? "generic" : "keccak256",
  });
  return {
    endpoints: { http: server.url },
    stop: () => server.close(),
  };
}
