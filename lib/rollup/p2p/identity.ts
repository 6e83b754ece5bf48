/**
 * The node's p2p identity: a secp256k1 key kept as hex in `--p2p.priv.path` (op-node's format), made and
 * written there (mode 0600) on first start.
 */
import { generateKeyPair, privateKeyFromRaw } from "@libp2p/crypto/keys";
import type { PrivateKey } from "@libp2p/interface";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import { bytesToHex, hexToBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";

/** The key in `path`, or a new one (written to `path` when given). */
export async function loadOrCreateKey(path: string | undefined): Promise<PrivateKey> {
  if (path !== undefined) {
    try {
      const text = (await Deno.readTextFile(path)).trim();
      return privateKeyFromRaw(hexToBytes(text));
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) {
        throw new BaseError("P2P_KEY", `Cannot read the p2p key in ${path}: ${(e as Error).message}`, {
          cause: e,
        });
      }
    }
  }
  const key = await generateKeyPair("secp256k1");
  if (path !== undefined) {
    await Deno.writeTextFile(path, bytesToHex(key.raw).slice(2), { mode: 0o600 });
  }
  return key;
}

/** The libp2p peer id of the key in `path` (made and written there when missing): what peers dial. */
export async function p2pPeerId(path: string): Promise<string> {
  return peerIdFromPrivateKey(await loadOrCreateKey(path)).toString();
}
