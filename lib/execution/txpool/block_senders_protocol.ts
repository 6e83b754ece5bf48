/** What block_senders.ts and its helper thread share: the slot states and the request. */

/** The states of a transaction's slot in the shared array. */
export const SLOT = { FREE: 0, MAIN: 1, WORKER: 2, DONE: 3, FAILED: 4, SKIP: 5 } as const;

/** A block's recovery work, as the helper receives it. */
export interface BlockSendersRequest {
  kind: "job";
  /** Int32 per transaction: SLOT. */
  state: SharedArrayBuffer;
  /** 64 bytes per transaction: the public key the helper recovered. */
  keys: SharedArrayBuffer;
  /** 32 bytes per transaction. */
  hashes: Uint8Array;
  /** r || s, 64 bytes per transaction. */
  sigs: Uint8Array;
  recovery: Uint8Array;
}
