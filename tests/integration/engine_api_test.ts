/**
 * Steps an OP chain through the in-process Engine API: a sequencer engine builds (FCU with attributes,
 * getPayload), a verifier engine imports (newPayload, full validation), both make it canonical.
 */
import { bytesToHex, equalBytes } from "../../lib/common/bytes.ts";
import { isErrorCode } from "../../lib/common/errors.ts";
import { hashHeader } from "../../lib/protocol/mod.ts";
import { ExecutionEngine, payloadToBlock } from "../../lib/execution/engine/mod.ts";
import { assert, assertEquals, assertRejects } from "../assert.ts";
import {
  buildPayload,
  DevMiner,
  ExecutionEngineApi,
  forkStepGenesis,
  isthmusGenesis,
  sendPayload,
  setHead,
  transfer,
  versionsAt,
} from "../unit/execution/engine/helpers.ts";

async function pair(genesis = forkStepGenesis()) {
  const seq = await ExecutionEngine.open({ genesis });
  const ver = await ExecutionEngine.open({ genesis });
  const seqApi = new ExecutionEngineApi({}, { engine: seq });
  const verApi = new ExecutionEngineApi({}, { engine: ver });
  const miner = new DevMiner({}, { engine: seq, now: () => 0 });
  return {
    seq,
    ver,
    seqApi,
    verApi,
    miner,
    async close() {
      await seq.close();
      await ver.close();
    },
  };
}

Deno.test("engine api: a chain stepped across Regolith, Canyon, Ecotone, Fjord, Holocene and Isthmus", async () => {
  const t = await pair();
  try {
    for (let i = 1; i <= 14; i++) {
      const { envelope } = await buildPayload(t.seqApi, t.miner);
      const p = envelope.executionPayload;
      assertEquals(p.blockNumber, BigInt(i));
      const v = versionsAt(t.seq, p.timestamp);
      // Shapes per fork: withdrawals from Canyon, blob gas from Ecotone, withdrawalsRoot from Isthmus.
      assertEquals(p.withdrawals !== undefined, p.timestamp >= 4n, `withdrawals at ${p.timestamp}`);
      assertEquals(p.blobGasUsed !== undefined, p.timestamp >= 6n, `blobGasUsed at ${p.timestamp}`);
      assertEquals(p.withdrawalsRoot !== undefined, p.timestamp >= 12n, `withdrawalsRoot at ${p.timestamp}`);
      assertEquals(envelope.parentBeaconBlockRoot !== undefined, v.get >= 3);
      assertEquals(p.extraData.length, p.timestamp >= 10n ? 9 : 0);
      // The verifier re-executes the block.
      const status = await sendPayload(t.verApi, envelope);
      assertEquals(status.status, "VALID", status.validationError ?? "");
      assert(equalBytes(status.latestValidHash!, p.blockHash));
      // The sequencer already stored it: known -> VALID.
      assertEquals((await sendPayload(t.seqApi, envelope)).status, "VALID");
      for (const api of [t.seqApi, t.verApi]) {
        const r = await setHead(api, p.blockHash, v.fcu);
        assertEquals(r.payloadStatus.status, "VALID");
        assertEquals(r.payloadId, null);
      }
      assert(equalBytes(t.ver.head().hash, p.blockHash));
      assert(equalBytes(t.ver.head().header.stateRoot, t.seq.head().header.stateRoot));
      // The L1-info deposit succeeded in every block (the L1Block values stay coherent).
      const receipts = t.ver.chain.getReceipts(p.blockHash)!;
      assertEquals(receipts.length, 1);
      assertEquals(receipts[0].status, 1, `L1-info deposit of block ${i}`);
      if (p.timestamp >= 2n) assert(receipts[0].depositNonce !== undefined, "Regolith deposit nonce");
      if (p.timestamp >= 4n) assertEquals(receipts[0].depositReceiptVersion, 1n);
    }
  } finally {
    await t.close();
  }
});

Deno.test("engine api: method versions outside their fork answer unsupported fork", async () => {
  const t = await pair(isthmusGenesis());
  try {
    const { envelope } = await buildPayload(t.seqApi, t.miner);
    const id = (await t.seqApi.forkchoiceUpdated(3, {
      headBlockHash: t.seq.head().hash,
      safeBlockHash: new Uint8Array(32),
      finalizedBlockHash: new Uint8Array(32),
    }, await t.miner.attributes(t.seq.head().header))).payloadId!;
    const err = await assertRejects(() => t.seqApi.getPayload(3, id));
    assert(isErrorCode(err, "ENGINE_API_UNSUPPORTED_FORK"), String(err));
    const err2 = await assertRejects(() =>
      t.verApi.newPayload(3, envelope.executionPayload, [], envelope.parentBeaconBlockRoot)
    );
    assert(isErrorCode(err2, "ENGINE_API_UNSUPPORTED_FORK"), String(err2));
    const err3 = await assertRejects(() =>
      t.verApi.newPayload(4, envelope.executionPayload, [], undefined, [])
    );
    assert(isErrorCode(err3, "ENGINE_API_INVALID_PARAMS"), String(err3));
    const unknown = await assertRejects(() => t.seqApi.getPayload(4, new Uint8Array(8)));
    assert(isErrorCode(unknown, "ENGINE_API_UNKNOWN_PAYLOAD"));
    // Attributes without a parent beacon root on V3.
    const attrs = await t.miner.attributes(t.seq.head().header);
    delete attrs.parentBeaconBlockRoot;
    const bad = await assertRejects(() =>
      t.seqApi.forkchoiceUpdated(3, {
        headBlockHash: t.seq.head().hash,
        safeBlockHash: new Uint8Array(32),
        finalizedBlockHash: new Uint8Array(32),
      }, attrs)
    );
    assert(isErrorCode(bad, "ENGINE_API_INVALID_PAYLOAD_ATTRIBUTES"));
    // A timestamp not after the parent's is invalid attributes.
    const early = await t.miner.attributes(t.seq.head().header);
    early.timestamp = t.seq.head().header.timestamp;
    const err4 = await assertRejects(() =>
      t.seqApi.forkchoiceUpdated(3, {
        headBlockHash: t.seq.head().hash,
        safeBlockHash: new Uint8Array(32),
        finalizedBlockHash: new Uint8Array(32),
      }, early)
    );
    assert(isErrorCode(err4, "ENGINE_API_INVALID_PAYLOAD_ATTRIBUTES"));
  } finally {
    await t.close();
  }
});

Deno.test("engine api: a block with pool transactions; the verifier imports it and the pool empties", async () => {
  const t = await pair(isthmusGenesis());
  try {
    const txs = [
      transfer(t.seq, 0, 0n),
      transfer(t.seq, 0, 1n),
      transfer(t.seq, 1, 0n, { tip: 2n * 10n ** 9n }),
    ];
    for (const tx of txs) await t.seq.pool.add(tx.serialize());
    assertEquals(t.seq.pool.status().pending, 3);
    const { envelope } = await buildPayload(t.seqApi, t.miner, (a) => (a.noTxPool = false));
    const p = envelope.executionPayload;
    assertEquals(p.transactions.length, 4);
    // Deposit first, then the best tip first, then account 0 by nonce.
    assertEquals(p.transactions[0][0], 0x7e);
    assert(equalBytes(p.transactions[1], txs[2].serialize()));
    assert(equalBytes(p.transactions[2], txs[0].serialize()));
    assert(envelope.blockValue > 0n, "priority fees are the block value");
    assertEquals((await sendPayload(t.verApi, envelope)).status, "VALID");
    await setHead(t.seqApi, p.blockHash);
    assertEquals(t.seq.pool.status().pending, 0);
    const loc = t.seq.chain.getTransactionLocation(txs[1].hash())!;
    assertEquals(loc.index, 3);
    const receipt = t.seq.chain.getReceipts(p.blockHash)![1];
    assert(receipt.l1Fee !== undefined && receipt.l1Fee > 0n, "user receipts carry the L1 fee");
  } finally {
    await t.close();
  }
});

Deno.test("engine api: a deposit-only block ignores the pool with noTxPool", async () => {
  const t = await pair(isthmusGenesis());
  try {
    await t.seq.pool.add(transfer(t.seq, 0, 0n).serialize());
    const { envelope } = await buildPayload(t.seqApi, t.miner);
    assertEquals(envelope.executionPayload.transactions.length, 1);
    assertEquals(envelope.blockValue, 0n);
    assertEquals(t.seq.pool.status().pending, 1);
  } finally {
    await t.close();
  }
});

Deno.test("engine api: a tampered payload is INVALID and never moves the head; unknown parent is SYNCING", async () => {
  const t = await pair(isthmusGenesis());
  try {
    const { envelope } = await buildPayload(t.seqApi, t.miner);
    const good = envelope.executionPayload;
    const before = t.ver.head().hash;
    // A wrong state root with a matching block hash: executed, then refused.
    const bad = { ...good, stateRoot: new Uint8Array(32).fill(1) };
    bad.blockHash = hashHeader(
      payloadToBlock(bad, {
        parentBeaconBlockRoot: envelope.parentBeaconBlockRoot,
        executionRequests: [],
      }).header,
    );
    const st = await t.verApi.newPayload(4, bad, [], envelope.parentBeaconBlockRoot, []);
    assertEquals(st.status, "INVALID");
    assert(equalBytes(st.latestValidHash!, good.parentHash));
    assert(st.validationError !== null && st.validationError.includes("stateRoot"), st.validationError ?? "");
    assert(equalBytes(t.ver.head().hash, before));
    assertEquals(t.ver.chain.getHeaderByHash(bad.blockHash), undefined);
    // FCU to the invalid block answers INVALID.
    assertEquals((await setHead(t.verApi, bad.blockHash)).payloadStatus.status, "INVALID");
    // A block hash that does not match the contents.
    const mismatch = { ...good, gasUsed: good.gasUsed + 1n };
    const st2 = await t.verApi.newPayload(4, mismatch, [], envelope.parentBeaconBlockRoot, []);
    assertEquals(st2.status, "INVALID");
    assertEquals(st2.latestValidHash, null);
    // The good one still imports.
    assertEquals((await sendPayload(t.verApi, envelope)).status, "VALID");
    // A child of an unknown block: SYNCING; FCU to an unknown head: SYNCING.
    const orphan = { ...good, parentHash: new Uint8Array(32).fill(5) };
    orphan.blockHash = hashHeader(
      payloadToBlock(orphan, { parentBeaconBlockRoot: envelope.parentBeaconBlockRoot, executionRequests: [] })
        .header,
    );
    const st3 = await t.verApi.newPayload(4, orphan, [], envelope.parentBeaconBlockRoot, []);
    assertEquals(st3.status, "SYNCING");
    assertEquals(st3.latestValidHash, null);
    assertEquals((await setHead(t.verApi, orphan.blockHash)).payloadStatus.status, "SYNCING");
    assert(equalBytes(t.ver.head().hash, before));
  } finally {
    await t.close();
  }
});

Deno.test("engine api: safe or finalized off the canonical chain is an invalid forkchoice state", async () => {
  const t = await pair(isthmusGenesis());
  try {
    const a = (await buildPayload(t.seqApi, t.miner)).envelope.executionPayload;
    const b = (await buildPayload(t.seqApi, t.miner, (x) => (x.prevRandao = new Uint8Array(32).fill(3))))
      .envelope.executionPayload;
    await setHead(t.seqApi, a.blockHash);
    const err = await assertRejects(() =>
      t.seqApi.forkchoiceUpdated(3, {
        headBlockHash: a.blockHash,
        safeBlockHash: b.blockHash,
        finalizedBlockHash: new Uint8Array(32),
      })
    );
    assert(isErrorCode(err, "ENGINE_API_INVALID_FORKCHOICE_STATE"), String(err));
    await t.seqApi.forkchoiceUpdated(3, {
      headBlockHash: a.blockHash,
      safeBlockHash: a.blockHash,
      finalizedBlockHash: t.seq.genesisHash,
    });
    assert(equalBytes(t.seq.chain.getHead("safe")!.hash, a.blockHash));
  } finally {
    await t.close();
  }
});

Deno.test("engine api: a reorg to a sibling branch re-points indexes and returns txs to the pool", async () => {
  const t = await pair(isthmusGenesis());
  try {
    const genesis = t.seq.head().hash;
    const tx = transfer(t.seq, 0, 0n);
    await t.seq.pool.add(tx.serialize());
    const a1 = (await buildPayload(t.seqApi, t.miner, (x) => (x.noTxPool = false))).envelope.executionPayload;
    assertEquals(a1.transactions.length, 2);
    await setHead(t.seqApi, a1.blockHash);
    assert(t.seq.chain.getTransactionLocation(tx.hash()) !== undefined);
    assertEquals(t.seq.pool.status().pending, 0);
    const heads: { added: number; removed: number }[] = [];
    const off = t.seq.onNewHeads((e) => heads.push({ added: e.added.length, removed: e.removed.length }));
    // A sibling branch of two deposit-only blocks, built by the engine without moving the head.
    const genesisHeader = t.seq.chain.getHeaderByHash(genesis)!;
    const b1Attrs = await t.miner.attributes(genesisHeader);
    b1Attrs.noTxPool = true;
    b1Attrs.prevRandao = new Uint8Array(32).fill(9);
    const b1 = await t.seq.buildBlock(genesis, b1Attrs);
    const b2Attrs = { ...(await t.miner.attributes(b1.block.header)), noTxPool: true };
    const b2 = await t.seq.buildBlock(b1.hash, b2Attrs);
    assert(equalBytes(t.seq.head().hash, a1.blockHash), "building does not move the head");
    await setHead(t.seqApi, b2.hash);
    assertEquals(heads, [{ added: 2, removed: 1 }]);
    off();
    assertEquals(t.seq.chain.getTransactionLocation(tx.hash()), undefined);
    assert(t.seq.pool.has(tx.hash()), "the removed transaction is back in the pool");
    assert(equalBytes(t.seq.chain.getCanonicalHash(1n)!, b1.hash));
    // And back: the transaction is included again by the A branch.
    await setHead(t.seqApi, a1.blockHash);
    assert(equalBytes(t.seq.chain.getTransactionLocation(tx.hash())!.blockHash, a1.blockHash));
    assertEquals(t.seq.chain.getCanonicalHash(2n), undefined);
    assertEquals(bytesToHex(t.seq.head().hash), bytesToHex(a1.blockHash));
  } finally {
    await t.close();
  }
});

Deno.test("engine api: attributes with an invalid forced transaction fail the build and leave nothing behind", async () => {
  const t = await pair(isthmusGenesis());
  try {
    const head = t.seq.head();
    const attrs = await t.miner.attributes(head.header);
    // A valid transfer, then one with a nonce gap: the second cannot be applied.
    attrs.transactions = [
      ...attrs.transactions!,
      transfer(t.seq, 0, 0n).serialize(),
      transfer(t.seq, 0, 5n).serialize(),
    ];
    const err = await assertRejects(() =>
      t.seqApi.forkchoiceUpdated(3, {
        headBlockHash: head.hash,
        safeBlockHash: new Uint8Array(32),
        finalizedBlockHash: new Uint8Array(32),
      }, attrs)
    );
    assert(isErrorCode(err, "ENGINE_API_INVALID_PAYLOAD_ATTRIBUTES"), String(err));
    assert((err as Error).message.includes("transaction 2"), (err as Error).message);
    assert(equalBytes(t.seq.head().hash, head.hash));
    assertEquals(t.seq.chain.getCanonicalHash(1n), undefined);
    // The engine builds correctly afterwards, and a verifier agrees on the state.
    const { envelope } = await buildPayload(t.seqApi, t.miner, (a) => {
      a.transactions = [...a.transactions!, transfer(t.seq, 0, 0n).serialize()];
    });
    assertEquals(envelope.executionPayload.transactions.length, 2);
    assertEquals((await sendPayload(t.verApi, envelope)).status, "VALID");
  } finally {
    await t.close();
  }
});
