/**
 * Worker half of {@link SenderRecovery}: recovers the 65-byte uncompressed public key of each
 * request with libsecp256k1 (WebAssembly, the bytes are in the module: no file read) and answers
 * with it, or with null when the signature does not recover. The main thread checked the signature
 * the way @ethereumjs does before sending it ({@link recoveryInput}).
 */
import type { RecoveryRequest, RecoveryResponse } from "./sender_recovery.ts";
import { loadWasmSecp256k1 } from "./sender_recovery_wasm.ts";

interface WorkerScope {
  onmessage: ((event: MessageEvent<RecoveryRequest[]>) => Promise<void>) | null;
  postMessage(message: RecoveryResponse[]): void;
}

const scope = self as unknown as WorkerScope;
const ready = loadWasmSecp256k1(); // handler set at once: no message arrives before it
scope.onmessage = async (event) => {
  const secp = await ready;
  const out: RecoveryResponse[] = [];
  for (const req of event.data) {
    let pub: Uint8Array | null = null;
    try {
      pub = secp.recover(req.sig, req.hash, req.recovery, true);
    } catch {
      pub = null;
    }
    out.push({ id: req.id, pub });
  }
  scope.postMessage(out);
};
