/**
 * The speculation worker (speculation.ts): executes the tail of a block being imported on the block's
 * parent state, beside the importing thread that executes the head, and answers what the tail read
 * and wrote (state/recording_state.ts) with its receipts. It reads the parent state through its own
 * read-only connection to the database file (WAL: the last committed block, the parent) and never
 * writes: the block it opens is aborted after every run.
 */
/// <reference lib="deno.worker" />
import { bytesToUnprefixedHex, equalBytes } from "../../common/bytes.ts";
import { keccakReady } from "../../common/hash.ts";
import { SqliteStore } from "../../db/mod.ts";
import type { ChainConfig } from "../../protocol/chain_config.ts";
import { createStateManager, RecordingStateManager, type TxRecord, unpackDelta } from "../state/mod.ts";
import { Address } from "@ethereumjs/util";
import type { TypedTransaction } from "@ethereumjs/tx";
import { BlockBuilder } from "./block_builder.ts";
import type { TxResult } from "./tx_runner.ts";
import { rememberSenderAddress } from "./sender_address.ts";
import type { SpeculationRequest, SpeculationResponse } from "./speculation.ts";

let out: { postMessage(message: unknown): void } = self;
let config: ChainConfig | undefined;
let sm: RecordingStateManager | undefined;
/** The state root the manager's caches hold (undefined: unknown, the next run starts cold). */
let at: Uint8Array | undefined;
let queue: Promise<void> = Promise.resolve();

async function run(msg: Extract<SpeculationRequest, { kind: "run" }>): Promise<SpeculationResponse> {
  const t0 = performance.now();
  const state = sm!;
  state.recording = false;
  const changes = msg.changes;
  const warm = changes !== undefined && at !== undefined && equalBytes(at, changes.from);
  if (warm) {
    // Warm: the caches follow the last block's changes to this block's parent.
    at = undefined;
    await state.adoptChanges(
      msg.parent.stateRoot,
      changes!.deltas.map(unpackDelta),
      new Map(changes!.storageRoots),
    );
  } else if (at === undefined || !equalBytes(at, msg.parent.stateRoot)) {
    at = undefined;
    await state.setStateRoot(msg.parent.stateRoot);
  }
  state.creditOnly.clear();
  for (const a of msg.creditOnly) state.creditOnly.add(bytesToUnprefixedHex(a));
  const builder = await BlockBuilder.openWithHeader(config!, msg.parent, msg.header, {
    stateManager: state,
    wholeBlock: true,
    fastOnly: true,
    // Only the parent's hash is known here: BLOCKHASH of an older block ends the run.
    getBlockHash: () => {
      state.markUnsafe("reads an older block hash");
      return Promise.resolve(undefined);
    },
  });
  const txs: ({ result: TxResult; record: TxRecord } | null)[] = [];
  let skipped = 0;
  let reason: string | undefined;
  let keepVm = true;
  try {
    for (const raw of msg.prefix) await builder.addTransaction(raw);
    for (let i = 0; i < msg.txs.length; i++) {
      const tx = builder.decodeTransaction(msg.txs[i]) as TypedTransaction;
      const sender = msg.senders[i];
      (tx.cache as { senderPubKey?: Uint8Array }).senderPubKey = sender.pub;
      rememberSenderAddress(tx, new Address(sender.address));
      await state.checkpoint();
      state.beginTx();
      let result: TxResult | undefined;
      try {
        result = await builder.addTransaction(tx);
      } catch (e) {
        state.markUnsafe((e as Error).message);
      }
      if (result === undefined || state.unsafeReason !== undefined) {
        // Left to the importing thread; the transactions after it are still tried (their reads are
        // checked there against the state it leaves).
        state.recording = false;
        reason ??= `transaction ${msg.start + i}: ${state.unsafeReason}`;
        skipped++;
        await state.revert();
        txs.push(null);
        continue;
      }
      const record = await state.endTx();
      await state.commit();
      txs.push({ result, record });
    }
  } catch (e) {
    keepVm = false;
    reason ??= (e as Error).message;
  }
  state.recording = false;
  await builder.abort(keepVm);
  // Back at the parent's state, with what the run read cached (a run that broke off: start cold).
  if (keepVm) at = msg.parent.stateRoot;
  return { kind: "result", id: msg.id, txs, skipped, reason, warm, ms: performance.now() - t0 };
}

async function handle(msg: SpeculationRequest): Promise<void> {
  if (msg.kind === "open") {
    await keccakReady;
    config = msg.config;
    const store = SqliteStore.open(msg.path, { readOnly: true, cacheSizeKiB: msg.cacheSizeKiB });
    sm = await createStateManager(store, undefined, {
      manager: RecordingStateManager,
    }) as RecordingStateManager;
    return;
  }
  let answer: SpeculationResponse;
  try {
    answer = await run(msg);
  } catch (e) {
    answer = { kind: "failed", id: msg.id, error: (e as Error).message };
  }
  out.postMessage(answer);
}

function receive(msg: SpeculationRequest): void {
  queue = queue.then(() => handle(msg)).catch((e) => {
    if (msg.kind === "run") {
      out.postMessage(
        { kind: "failed", id: msg.id, error: (e as Error).message } satisfies SpeculationResponse,
      );
    } else throw e;
  });
}

self.onmessage = (e: MessageEvent<SpeculationRequest | { kind: "attach"; port: MessagePort }>) => {
  const msg = e.data;
  if (msg.kind === "attach") {
    // Started by another thread for the node Worker (lib/node/threads.ts): talk over the port.
    out = msg.port;
    msg.port.onmessage = (m: MessageEvent<SpeculationRequest>) => receive(m.data);
    return;
  }
  receive(msg);
};
