/** The net namespace: net_version (chain id in decimal), net_listening (true), net_peerCount (0x0). */
import { defineMethod } from "../../../rpc/mod.ts";
import type { EthBackend } from "../backend.ts";

export function netVersion(backend: EthBackend) {
  const version = backend.config.chainId.toString(10);
  return defineMethod({ name: "net_version", params: [], handler: () => version });
}

export function netListening(_backend: EthBackend) {
  return defineMethod({ name: "net_listening", params: [], handler: () => true });
}

/** The execution client has no devp2p peers (blocks come from the rollup node). */
export function netPeerCount(_backend: EthBackend) {
  return defineMethod({ name: "net_peerCount", params: [], handler: () => "0x0" });
}
