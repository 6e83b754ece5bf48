/**
 * Two `keel node` processes on anvil linked over p2p (p2p_anvil_test.ts, el_sync_anvil_test.ts): a
 * sequencer publishing its blocks signed with the dev key, which the SystemConfig on anvil names as the
 * unsafe block signer, and the arguments of a verifier dialling it as its static peer.
 */
import { bytesToHex } from "../../../lib/common/bytes.ts";
import { UNSAFE_BLOCK_SIGNER_SLOT } from "../../../lib/rollup/p2p/mod.ts";
import { DEV_ADDRESS, DEV_PRIVATE_KEY, freePort, rpcCall } from "./keel_process.ts";
import { type KeelProcess, sequencerOnAnvil, spawnKeel, until } from "./sequencer.ts";

/** The SystemConfig of the rollup config sequencerOnAnvil writes. */
const SYSTEM_CONFIG = "0x5c00000000000000000000000000000000000901";

export interface P2pSequencer {
  process: KeelProcess;
  url: string;
  /** Its libp2p TCP port and peer id. */
  p2pPort: number;
  peerID: string;
  /** What nodep2p_self answered. */
  self: { peerID: string; nodeID: string; chainID: number; ENR: string };
}

/** Starts the sequencer in `dir` (rollup.json, genesis.json, its data) once anvil names its signer. */
export async function p2pSequencerOnAnvil(anvilUrl: string, dir: string): Promise<P2pSequencer> {
  const word = `0x${"0".repeat(24)}${DEV_ADDRESS.slice(2).toLowerCase()}`;
  await rpcCall(anvilUrl, "anvil_setStorageAt", [SYSTEM_CONFIG, bytesToHex(UNSAFE_BLOCK_SIGNER_SLOT), word]);
  const port = freePort();
  const p2pPort = freePort();
  const args = (await sequencerOnAnvil(anvilUrl, dir, port)).map((a) =>
    a.startsWith("--p2p.listen.tcp=") ? `--p2p.listen.tcp=${p2pPort}` : a
  );
  const process = spawnKeel("node", [...args, `--p2p.sequencer.key=${DEV_PRIVATE_KEY}`]);
  const url = `http://127.0.0.1:${port}`;
  const self = await until(
    async () => ((await rpcCall(url, "nodep2p_self")) as { result?: P2pSequencer["self"] }).result,
    "the sequencer's p2p",
    () => process.output(),
  );
  return { process, url, p2pPort, peerID: self.peerID, self };
}

/**
 * A verifier's arguments: the sequencer's chain files, its data in `dir`/verifier (made), RPC on `port`,
 * the sequencer as static peer, no discovery.
 */
export async function p2pVerifierArgs(
  anvilUrl: string,
  dir: string,
  port: number,
  sequencer: P2pSequencer,
): Promise<string[]> {
  await Deno.mkdir(`${dir}/verifier`, { recursive: true });
  return [
    ...(await sequencerOnAnvil(anvilUrl, dir, port))
      .filter((a) => a !== "--sequencer.enabled" && a !== "--sequencer.l1-confs=0")
      .map((a) => a.startsWith("--datadir=") ? `--datadir=${dir}/verifier/data` : a)
      .map((a) => a.startsWith("--p2p.priv.path=") ? `--p2p.priv.path=${dir}/verifier/p2p.txt` : a),
    `--p2p.static=/ip4/127.0.0.1/tcp/${sequencer.p2pPort}/p2p/${sequencer.peerID}`,
    "--p2p.no-discovery",
  ];
}
