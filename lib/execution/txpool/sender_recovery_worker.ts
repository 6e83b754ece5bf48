/**
 * Worker half of {@link SenderRecovery}: recovers the 64-byte public key of each request with
 * @ethereumjs/util `ecrecover` (the same function @ethereumjs/tx uses) and answers with it, or with
 * null when the signature does not recover.
 */
import { ecrecover } from "@ethereumjs/util";
import type { RecoveryRequest, RecoveryResponse } from "./sender_recovery.ts";

interface WorkerScope {
  onmessage: ((event: MessageEvent<RecoveryRequest[]>) => void) | null;
  postMessage(message: RecoveryResponse[]): void;
}

const scope = self as unknown as WorkerScope;
scope.onmessage = (event) => {
  const out: RecoveryResponse[] = [];
  for (const req of event.data) {
    let pub: Uint8Array | null = null;
    try {
      pub = ecrecover(req.msgHash, req.v, req.r, req.s, req.chainId);
    } catch {
      pub = null;
    }
    out.push({ id: req.id, pub });
  }
  scope.postMessage(out);
};
