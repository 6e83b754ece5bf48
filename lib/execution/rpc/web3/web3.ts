/** The web3 namespace: web3_clientVersion and web3_sha3 (keccak-256 of the given bytes). */
import { bytesToHex, keccak256 } from "../../../common/mod.ts";
import { defineMethod, s } from "../../../rpc/mod.ts";
import type { EthBackend } from "../backend.ts";

export function web3ClientVersion(backend: EthBackend) {
  return defineMethod({ name: "web3_clientVersion", params: [], handler: () => backend.clientVersion });
}

export function web3Sha3(_backend: EthBackend) {
  return defineMethod({
    name: "web3_sha3",
    params: [s.hex()],
    handler: ([data]) => bytesToHex(keccak256(data)),
  });
}
