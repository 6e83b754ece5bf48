/**
 * Worker half of BlockSenderRecovery (block_senders.ts): recovers a block's senders with libsecp256k1
 * from the last transaction backwards while the importing thread executes from the first, each
 * claiming a transaction in the shared state array before recovering it; it stops where the two meet.
 * Loads nothing but libsecp256k1 (WebAssembly, bytes embedded: no file read).
 */
/// <reference lib="deno.worker" />
import { loadWasmSecp256k1 } from "./sender_recovery_wasm.ts";
import { type BlockSendersRequest, SLOT } from "./block_senders_protocol.ts";

const ready = loadWasmSecp256k1(); // handler set at once: no message arrives before it

async function run(req: BlockSendersRequest): Promise<void> {
  const secp = await ready;
  const state = new Int32Array(req.state);
  const keys = new Uint8Array(req.keys);
  for (let k = req.recovery.length - 1; k >= 0; k--) {
    const was = Atomics.compareExchange(state, k, SLOT.FREE, SLOT.WORKER);
    if (was === SLOT.SKIP) continue;
    if (was !== SLOT.FREE) break; // the importing thread got here: the rest is behind it
    let done: number = SLOT.FAILED;
    try {
      const pub = secp.recover(
        req.sigs.subarray(k * 64, k * 64 + 64),
        req.hashes.subarray(k * 32, k * 32 + 32),
        req.recovery[k],
        true,
      );
      if (pub.length === 65 && pub[0] === 4) {
        keys.set(pub.subarray(1), k * 64);
        done = SLOT.DONE;
      }
    } catch {
      // left for the importing thread: @ethereumjs reports the signature's error
    }
    Atomics.store(state, k, done);
    Atomics.notify(state, k);
  }
}

self.onmessage = (e: MessageEvent<BlockSendersRequest | { kind: "attach"; port: MessagePort }>) => {
  const msg = e.data;
  if (msg.kind === "attach") {
    // Started by the main thread for the node Worker (lib/node/threads.ts).
    msg.port.onmessage = (m: MessageEvent<BlockSendersRequest>) => void run(m.data);
    return;
  }
  void run(msg);
};
