/**
 * L2 chain derivation end to end, with anvil (the real binary) as L1: a sequencer builds L2 blocks on
 * keel's engine from payload attributes (L1-info deposit, user transactions), a batcher posts them to
 * the batch inbox as calldata (one Brotli channel cut into frames, one batcher transaction each), and a
 * verifier that only reads L1 derives the same chain on its own engine, block hash for block hash.
 */
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex, hexToBytes } from "../../lib/common/bytes.ts";
import { JsonRpcClient } from "../../lib/common/json_rpc_client.ts";
import { blockToSingularBatch, buildChannel } from "../../lib/batcher/mod.ts";
import { ExecutionEngine } from "../../lib/execution/engine/mod.ts";
import { buildDevGenesis } from "../../lib/execution/genesis/dev_genesis.ts";
import type { L2BlockRef } from "../../lib/protocol/block_ref.ts";
import type { SingularBatch } from "../../lib/protocol/batch.ts";
import type { ExecutionPayload, PayloadAttributes } from "../../lib/protocol/engine.ts";
import { encodeBatcherTxData } from "../../lib/protocol/frame.ts";
import type { RollupConfig } from "../../lib/protocol/rollup_config.ts";
import {
  encodeEcotoneScalar,
  type SystemConfig,
  systemConfigFromGenesis,
} from "../../lib/protocol/system_config.ts";
import {
  buildPayloadAttributes,
  DerivationPipeline,
  l2BlockRefFromPayload,
  systemConfigFromL2Block,
  upgradeTxsAt,
} from "../../lib/rollup/derive/mod.ts";
import { L1Client } from "../../lib/rollup/l1/mod.ts";
import { ACCOUNTS, ExecutionEngineApi, GWEI, versionsAt } from "../unit/execution/engine/helpers.ts";
import { assert, assertEquals } from "../assert.ts";
import { DEV_PRIVATE_KEY, installAnvil, startAnvil } from "./helpers/mod.ts";

const tool = await installAnvil();
if (!tool.ok && !tool.registryUnreachable) throw new Error(tool.message);
if (!tool.ok) {
  console.warn(`derivation_anvil_test: skipped, the npm registry is unreachable: ${tool.message}`);
}

const L2_BLOCKS = 12;
const batcherKey = hexToBytes(DEV_PRIVATE_KEY);
const BATCHER = hexToBytes("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
const INBOX = hexToBytes("0xff00000000000000000000000000000000000901");

/** One L2 block on `api` from `attributes` on `parent`: FCU + getPayload, newPayload, FCU to it. */
async function step(api: ExecutionEngineApi, parent: L2BlockRef, attributes: PayloadAttributes) {
  const v = versionsAt(api.engine, attributes.timestamp);
  const zero = new Uint8Array(32);
  const fcu = await api.forkchoiceUpdated(v.fcu, {
    headBlockHash: parent.hash,
    safeBlockHash: zero,
    finalizedBlockHash: zero,
  }, attributes);
  assertEquals(fcu.payloadStatus.status, "VALID", fcu.payloadStatus.validationError ?? "");
  const envelope = await api.getPayload(v.get, fcu.payloadId!);
  const p = envelope.executionPayload;
  const status = await api.newPayload(v.newPayload, p, [], envelope.parentBeaconBlockRoot, []);
  assertEquals(status.status, "VALID", status.validationError ?? "");
  await api.forkchoiceUpdated(v.fcu, {
    headBlockHash: p.blockHash,
    safeBlockHash: p.blockHash,
    finalizedBlockHash: zero,
  });
  return p;
}

Deno.test({
  name: "derivation: a verifier reading only anvil derives the sequencer's L2 chain",
  ignore: !tool.ok,
  sanitizeResources: false,
  async fn() {
    const anvil = await startAnvil(tool.ok ? tool.binary : "", ["--hardfork", "prague"]);
    try {
      const rpc = new JsonRpcClient(anvil.url);
      const l1 = new L1Client(rpc);
      const l1Genesis = await l1.blockRef(0n);
      const t0 = l1Genesis.timestamp;
      // L1 blocks every 12 seconds: 1, 2 and 3 before the sequencer starts.
      for (let k = 1n; k <= 3n; k++) {
        await rpc.call("evm_setNextBlockTimestamp", [Number(t0 + 12n * k)]);
        await rpc.call("evm_mine");
      }

      const genesisJson = buildDevGenesis({ upTo: "isthmus", timestamp: t0, batcher: BATCHER });
      const seq = await ExecutionEngine.open({ genesis: genesisJson });
      const ver = await ExecutionEngine.open({ genesis: genesisJson });
      const seqApi = new ExecutionEngineApi({}, { engine: seq });
      const verApi = new ExecutionEngineApi({}, { engine: ver });
      const g = seq.head();
      const cfg: RollupConfig = {
        genesis: {
          l1: { hash: l1Genesis.hash, number: 0n },
          l2: { hash: g.hash, number: 0n },
          l2Time: t0,
          systemConfig: {
            batcherAddr: BATCHER,
            overhead: new Uint8Array(32),
            scalar: encodeEcotoneScalar({ baseFeeScalar: 1368n, blobBaseFeeScalar: 810949n }),
            gasLimit: 30_000_000n,
            eip1559Params: new Uint8Array(8),
            operatorFeeParams: new Uint8Array(32),
          },
        },
        blockTime: 2n,
        maxSequencerDrift: 600n,
        seqWindowSize: 20n,
        channelTimeoutBedrock: 50n,
        l1ChainId: BigInt(await rpc.call<string>("eth_chainId")),
        l2ChainId: 901n,
        forks: {
          regolith: 0n,
          canyon: 0n,
          delta: 0n,
          ecotone: 0n,
          fjord: 0n,
          granite: 0n,
          holocene: 0n,
          isthmus: 0n,
        },
        batchInboxAddress: INBOX,
        depositContractAddress: hexToBytes("0xde00000000000000000000000000000000000901"),
        l1SystemConfigAddress: hexToBytes("0x5c00000000000000000000000000000000000901"),
        protocolVersionsAddress: new Uint8Array(20),
      };
      const genesisRef = l2BlockRefFromPayload(cfg, {
        blockHash: g.hash,
        blockNumber: 0n,
        parentHash: g.header.parentHash,
        timestamp: g.header.timestamp,
        transactions: [],
      } as unknown as ExecutionPayload);
      const genesisConfig = systemConfigFromGenesis(cfg.genesis.systemConfig);

      // The sequencer: epochs follow L1 (the next L1 block once its time is reached), two transfers a block.
      const l2Common = new Common({ chain: { ...Mainnet, chainId: 901 }, hardfork: Hardfork.Prague });
      const seqBlocks: ExecutionPayload[] = [];
      const batches: SingularBatch[] = [];
      let parent = genesisRef;
      let nonce = 0n;
      for (let i = 1; i <= L2_BLOCKS; i++) {
        const t = parent.timestamp + cfg.blockTime;
        const next = await l1.blockRef(parent.l1Origin.number + 1n);
        const origin = next.timestamp <= t ? next : await l1.blockRef(parent.l1Origin.number);
        const header = await l1.header(origin.hash);
        const attributes = buildPayloadAttributes({
          config: cfg,
          parent,
          l1Origin: header,
          receipts: await l1.receipts(origin.hash),
          systemConfig: genesisConfig,
          upgradeTransactions: (ts) => upgradeTxsAt(cfg, ts),
        });
        for (let k = 0; k < 2; k++) {
          const tx = createFeeMarket1559Tx({
            chainId: 901n,
            nonce: nonce++,
            to: new Uint8Array(20).fill(i),
            value: 1000n,
            gasLimit: 21_000n,
            maxFeePerGas: 10n * GWEI,
            maxPriorityFeePerGas: GWEI,
          }, { common: l2Common }).sign(ACCOUNTS[1].privateKey);
          attributes.transactions!.push(tx.serialize());
        }
        const p = await step(seqApi, parent, attributes);
        seqBlocks.push(p);
        batches.push(
          blockToSingularBatch({
            number: p.blockNumber,
            parentHash: p.parentHash,
            timestamp: p.timestamp,
            transactions: p.transactions,
          }),
        );
        parent = l2BlockRefFromPayload(cfg, p);
      }
      assert(parent.l1Origin.number >= 1n, "the sequencer moved to a later epoch");

      // The batcher: one Brotli channel (Fjord) in frames of at most 1,000 bytes, each in its own L1 transaction.
      const frames = buildChannel(new Uint8Array(16).fill(0x0c), batches, {
        compression: "brotli",
        maxFrameSize: 1_000,
      });
      assert(frames.length >= 2, `${frames.length} frames`);
      const l1Common = new Common({
        chain: { ...Mainnet, chainId: Number(cfg.l1ChainId) },
        hardfork: Hardfork.Prague,
      });
      const gasPrice = BigInt(await rpc.call<string>("eth_gasPrice")) * 2n;
      let l1Nonce = BigInt(
        await rpc.call<string>("eth_getTransactionCount", [bytesToHex(BATCHER), "latest"]),
      );
      for (const [k, frame] of frames.entries()) {
        await rpc.call("evm_setNextBlockTimestamp", [Number(t0 + 12n * (4n + BigInt(k)))]);
        const tx = createFeeMarket1559Tx({
          chainId: cfg.l1ChainId,
          nonce: l1Nonce++,
          to: INBOX,
          gasLimit: 200_000n,
          maxFeePerGas: gasPrice,
          maxPriorityFeePerGas: 1n,
          data: encodeBatcherTxData([frame]),
        }, { common: l1Common }).sign(batcherKey);
        await rpc.call("eth_sendRawTransaction", [bytesToHex(tx.serialize())]);
      }
      // A transaction to the inbox from someone else is not batcher data.
      const stranger = createFeeMarket1559Tx({
        chainId: cfg.l1ChainId,
        nonce: 0n,
        to: INBOX,
        gasLimit: 100_000n,
        maxFeePerGas: gasPrice,
        maxPriorityFeePerGas: 1n,
        data: encodeBatcherTxData([frames[0]]),
      }, { common: l1Common }).sign(ACCOUNTS[2].privateKey);
      await rpc.call("eth_sendRawTransaction", [bytesToHex(stranger.serialize())]);

      // The verifier: only L1 and its own engine.
      const refs = new Map<bigint, L2BlockRef>([[0n, genesisRef]]);
      const txsByNumber = new Map<bigint, Uint8Array[]>([[0n, []]]);
      const payloads = new Map<bigint, ExecutionPayload>();
      const drops: string[] = [];
      const pipeline = new DerivationPipeline(
        cfg,
        {
          l1,
          l2: {
            l2BlockRefByNumber: (n) => Promise.resolve(refs.get(n)!),
            transactionsByNumber: (n) => Promise.resolve(txsByNumber.get(n)!),
            // As a restarted node would: read back from the L2 block itself.
            systemConfigOf: (b) =>
              Promise.resolve(
                b.number === 0n ? genesisConfig : systemConfigFromL2Block(cfg, payloads.get(b.number)!),
              ),
          },
          onDrop: (stage, reason) => drops.push(`${stage}: ${reason}`),
        },
        l1Genesis,
        genesisConfig,
      );
      let safe = genesisRef;
      while (safe.number < BigInt(L2_BLOCKS)) {
        const r = await pipeline.next(safe);
        if (r === "idle") break;
        const p = await step(verApi, safe, r.attributes);
        safe = l2BlockRefFromPayload(cfg, p);
        refs.set(safe.number, safe);
        txsByNumber.set(safe.number, p.transactions);
        payloads.set(safe.number, p);
        const read = systemConfigFromL2Block(cfg, p);
        assertEquals([read.batcherAddr, read.scalar, read.gasLimit], [
          r.systemConfig.batcherAddr,
          r.systemConfig.scalar,
          r.systemConfig.gasLimit,
        ]);
      }
      assertEquals(
        safe.number,
        BigInt(L2_BLOCKS),
        `derived ${safe.number} blocks; dropped: ${drops.join("; ")}`,
      );
      for (const p of seqBlocks) {
        assertEquals(
          bytesToHex(refs.get(p.blockNumber)!.hash),
          bytesToHex(p.blockHash),
          `L2 block ${p.blockNumber}`,
        );
      }
      assertEquals(bytesToHex(ver.head().hash), bytesToHex(seq.head().hash));
      // Nothing more to derive until L1 grows.
      assertEquals(await pipeline.next(safe), "idle");
      await seq.close();
      await ver.close();
    } finally {
      await anvil.stop();
    }
  },
});
