/**
 * Worker side of SenderRecovery: decodes signed transactions with the same @ethereumjs code the main
 * thread uses and recovers each sender's public key (signature checks included), off the main thread.
 * Message in: { id, chainId, timestamp, config, txs: Uint8Array[] }; out: { id, keys: (Uint8Array | string)[] }
 * where a string is the error of a transaction whose sender cannot be recovered.
 */
import { createTxFromRLP } from "@ethereumjs/tx";
import type { ChainConfig } from "../../protocol/chain_config.ts";
import { forkRules, txCommon } from "./common.ts";

interface Request {
  id: number;
  config: ChainConfig;
  timestamp: bigint;
  txs: Uint8Array[];
}

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<Request>) => void) | null;
  postMessage(message: unknown): void;
};

scope.onmessage = (e: MessageEvent<Request>) => {
  const { id, config, timestamp, txs } = e.data;
  const common = txCommon(forkRules(config, timestamp).common);
  const keys = txs.map((raw) => {
    try {
      return createTxFromRLP(raw, { common }).getSenderPublicKey();
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
  });
  scope.postMessage({ id, keys });
};
