/**
 * An OP chain on anvil for derivation tests: an L2 genesis and rollup config anchored at anvil's
 * genesis, a sequencer that builds L2 blocks on keel's engine from payload attributes (L1-info
 * deposit, two transfers a block) with epochs following L1, and a batcher that posts the blocks to the
 * batch inbox as calldata (one Brotli channel, frames of at most 1,000 bytes, one L1 transaction each).
 */
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex, hexToBytes } from "../../../lib/common/bytes.ts";
import type { JsonRpcClient } from "../../../lib/common/json_rpc_client.ts";
import { blockToSingularBatch, buildChannel } from "../../../lib/batcher/mod.ts";
import { ExecutionEngine } from "../../../lib/execution/engine/mod.ts";
import { buildDevGenesis } from "../../../lib/execution/genesis/dev_genesis.ts";
import type { GenesisJson } from "../../../lib/execution/genesis/genesis.ts";
import type { L2BlockRef } from "../../../lib/protocol/block_ref.ts";
import type { SingularBatch } from "../../../lib/protocol/batch.ts";
import type { ExecutionPayload, PayloadAttributes } from "../../../lib/protocol/engine.ts";
import { encodeBatcherTxData } from "../../../lib/protocol/frame.ts";
import { encodeBlobData } from "../../../lib/protocol/blob_data.ts";
import type { BlobsBundle } from "../../../lib/execution/evm/kzg.ts";
import { blobTx } from "../../unit/execution/txpool/fixtures.ts";
import { Address } from "@ethereumjs/util";
import { forksAtGenesis } from "../../../lib/protocol/hardforks.ts";
import type { RollupConfig } from "../../../lib/protocol/rollup_config.ts";
import { encodeEcotoneScalar, systemConfigFromGenesis } from "../../../lib/protocol/system_config.ts";
import { commitmentTxData } from "../../../lib/protocol/altda.ts";
import type { DaStorage } from "../../../lib/rollup/altda/mod.ts";
import {
  type AltDaSource,
  type BlobSource,
  buildPayloadAttributes,
  DerivationPipeline,
  l2BlockRefFromPayload,
  systemConfigFromL2Block,
  upgradeTxsAt,
} from "../../../lib/rollup/derive/mod.ts";
import type { L1Client } from "../../../lib/rollup/l1/mod.ts";
import { ACCOUNTS, ExecutionEngineApi, GWEI, versionsAt } from "../../unit/execution/engine/helpers.ts";
import { assert, assertEquals } from "../../assert.ts";
import { DEV_PRIVATE_KEY } from "./keel_process.ts";
import { waitForReceipt } from "./anvil.ts";

/** anvil's account 0, the batcher. */
export const BATCHER = hexToBytes("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
export const INBOX = hexToBytes("0xff00000000000000000000000000000000000901");

/** One L2 block on `api` from `attributes` on `parent`: FCU + getPayload, newPayload, FCU to it. */
export async function buildOn(api: ExecutionEngineApi, parent: L2BlockRef, attributes: PayloadAttributes) {
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

export interface OpChain {
  genesisJson: GenesisJson;
  cfg: RollupConfig;
  genesisRef: L2BlockRef;
  /** The sequencer's blocks, 1..n. */
  blocks: ExecutionPayload[];
  sequencer: ExecutionEngine;
  /** With blobs: the sidecar of the batcher's blob transaction by L1 block number. */
  sidecars: Map<bigint, BlobsBundle>;
}

/**
 * Mines L1 blocks 1-3 (12 s apart from anvil's genesis), builds `n` L2 blocks (2 s apart) on a
 * sequencer engine and posts them as batches in the following L1 blocks.
 */
/**
 * The rollup config of the test L2 (chain 901, every fork up to Isthmus from genesis, batcher BATCHER,
 * inbox INBOX) on an L1 whose genesis is `l1Genesis`; `overrides` change single fields.
 */
export function anvilRollupConfig(
  l1Genesis: { hash: Uint8Array; timestamp: bigint },
  l2Genesis: Uint8Array,
  l1ChainId: bigint,
  overrides: Partial<RollupConfig> = {},
): RollupConfig {
  return {
    genesis: {
      l1: { hash: l1Genesis.hash, number: 0n },
      l2: { hash: l2Genesis, number: 0n },
      l2Time: l1Genesis.timestamp,
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
    seqWindowSize: 3600n,
    channelTimeoutBedrock: 300n,
    l1ChainId,
    l2ChainId: 901n,
    forks: forksAtGenesis("isthmus"),
    batchInboxAddress: INBOX,
    depositContractAddress: hexToBytes("0xde00000000000000000000000000000000000901"),
    l1SystemConfigAddress: hexToBytes("0x5c00000000000000000000000000000000000901"),
    protocolVersionsAddress: new Uint8Array(20),
    ...overrides,
  };
}

export async function opChainOnAnvil(
  rpc: JsonRpcClient,
  l1: L1Client,
  n: number,
  da: "calldata" | "blobs" | "none" = "calldata",
  /** Alt-DA: each frame goes to this DA storage and its transaction carries the commitment. */
  altda?: DaStorage,
): Promise<OpChain> {
  const l1Genesis = await l1.blockRef(0n);
  const t0 = l1Genesis.timestamp;
  for (let k = 1n; k <= 3n; k++) {
    await rpc.call("evm_setNextBlockTimestamp", [Number(t0 + 12n * k)]);
    await rpc.call("evm_mine");
  }
  const genesisJson = buildDevGenesis({ upTo: "isthmus", timestamp: t0, batcher: BATCHER });
  const sequencer = await ExecutionEngine.open({ genesis: genesisJson });
  const api = new ExecutionEngineApi({}, { engine: sequencer });
  const g = sequencer.head();
  const cfg = anvilRollupConfig(l1Genesis, g.hash, BigInt(await rpc.call<string>("eth_chainId")), {
    seqWindowSize: 20n,
    channelTimeoutBedrock: 50n,
  });
  const genesisRef = l2BlockRefFromPayload(cfg, {
    blockHash: g.hash,
    blockNumber: 0n,
    parentHash: g.header.parentHash,
    timestamp: g.header.timestamp,
    transactions: [],
  } as unknown as ExecutionPayload);
  const systemConfig = systemConfigFromGenesis(cfg.genesis.systemConfig);

  const l2Common = new Common({ chain: { ...Mainnet, chainId: 901 }, hardfork: Hardfork.Prague });
  const blocks: ExecutionPayload[] = [];
  const batches: SingularBatch[] = [];
  let parent = genesisRef;
  let nonce = 0n;
  for (let i = 1; i <= n; i++) {
    const t = parent.timestamp + cfg.blockTime;
    const next = await l1.blockRef(parent.l1Origin.number + 1n);
    const origin = next.timestamp <= t ? next : await l1.blockRef(parent.l1Origin.number);
    const attributes = buildPayloadAttributes({
      config: cfg,
      parent,
      l1Origin: await l1.header(origin.hash),
      receipts: await l1.receipts(origin.hash),
      systemConfig,
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
    const p = await buildOn(api, parent, attributes);
    blocks.push(p);
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

  if (da === "none") return { genesisJson, cfg, genesisRef, blocks, sequencer, sidecars: new Map() };
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
  let l1Nonce = BigInt(await rpc.call<string>("eth_getTransactionCount", [bytesToHex(BATCHER), "latest"]));
  const send = async (key: Uint8Array, nonce: bigint, data: Uint8Array) => {
    const tx = createFeeMarket1559Tx({
      chainId: cfg.l1ChainId,
      nonce,
      to: INBOX,
      gasLimit: 200_000n,
      maxFeePerGas: gasPrice,
      maxPriorityFeePerGas: 1n,
      data,
    }, { common: l1Common }).sign(key);
    await waitForReceipt(rpc, await rpc.call<string>("eth_sendRawTransaction", [bytesToHex(tx.serialize())]));
  };
  const sidecars = new Map<bigint, BlobsBundle>();
  if (da === "blobs") {
    // Every frame in one blob (ecotone/derivation.md Blob Encoding), in L1 block 4.
    await rpc.call("evm_setNextBlockTimestamp", [Number(t0 + 48n)]);
    const tx = await blobTx(cfg.l1ChainId, {
      keyBytes: hexToBytes(DEV_PRIVATE_KEY),
      nonce: l1Nonce++,
      to: new Address(INBOX),
      feeCap: gasPrice,
      tip: 1n,
      blobFeeCap: 10n ** 9n,
      blobs: [encodeBlobData(encodeBatcherTxData(frames))],
    });
    const receipt = await waitForReceipt(
      rpc,
      await rpc.call<string>("eth_sendRawTransaction", [bytesToHex(tx.network)]),
    );
    sidecars.set((await l1.blockRef(hexToBytes(receipt.blockHash))).number, tx.sidecar);
  } else {
    for (const [k, frame] of frames.entries()) {
      await rpc.call("evm_setNextBlockTimestamp", [Number(t0 + 12n * (4n + BigInt(k)))]);
      let data = encodeBatcherTxData([frame]);
      if (altda !== undefined) data = commitmentTxData(await altda.setInput(data));
      await send(hexToBytes(DEV_PRIVATE_KEY), l1Nonce++, data);
    }
  }
  // A transaction to the inbox from someone else is not batcher data.
  await send(ACCOUNTS[2].privateKey, 0n, encodeBatcherTxData([frames[0]]));
  return { genesisJson, cfg, genesisRef, blocks, sequencer, sidecars };
}

/**
 * A verifier engine that reads only L1: derives `chain.blocks.length` blocks with the pipeline and
 * checks each block hash against the sequencer's, and that nothing more is derivable.
 */
export async function verifyFromL1(
  l1: L1Client,
  chain: OpChain,
  blobs?: BlobSource,
  altda?: AltDaSource,
): Promise<void> {
  const { cfg, genesisRef } = chain;
  const ver = await ExecutionEngine.open({ genesis: chain.genesisJson });
  try {
    const verApi = new ExecutionEngineApi({}, { engine: ver });
    const genesisConfig = systemConfigFromGenesis(cfg.genesis.systemConfig);
    const refs = new Map<bigint, L2BlockRef>([[0n, genesisRef]]);
    const payloads = new Map<bigint, ExecutionPayload>();
    const drops: string[] = [];
    const pipeline = new DerivationPipeline(
      cfg,
      {
        l1,
        l2: {
          l2BlockRefByNumber: (n) => Promise.resolve(refs.get(n)!),
          transactionsByNumber: (n) => Promise.resolve(payloads.get(n)?.transactions ?? []),
          // As a restarted node would: read back from the L2 block itself.
          systemConfigOf: (b) =>
            Promise.resolve(
              b.number === 0n ? genesisConfig : systemConfigFromL2Block(cfg, payloads.get(b.number)!),
            ),
        },
        blobs,
        onDrop: (stage, reason) => drops.push(`${stage}: ${reason}`),
        altda,
      },
      await l1.blockRef(0n),
      genesisConfig,
    );
    const n = BigInt(chain.blocks.length);
    let safe = genesisRef;
    while (safe.number < n) {
      const r = await pipeline.next(safe);
      if (r === "idle") break;
      const p = await buildOn(verApi, safe, r.attributes);
      safe = l2BlockRefFromPayload(cfg, p);
      refs.set(safe.number, safe);
      payloads.set(safe.number, p);
      const read = systemConfigFromL2Block(cfg, p);
      assertEquals([read.batcherAddr, read.scalar, read.gasLimit], [
        r.systemConfig.batcherAddr,
        r.systemConfig.scalar,
        r.systemConfig.gasLimit,
      ]);
    }
    assertEquals(safe.number, n, `derived ${safe.number} blocks; dropped: ${drops.join("; ")}`);
    for (const p of chain.blocks) {
      assertEquals(
        bytesToHex(refs.get(p.blockNumber)!.hash),
        bytesToHex(p.blockHash),
        `L2 block ${p.blockNumber}`,
      );
    }
    assertEquals(bytesToHex(ver.head().hash), bytesToHex(chain.sequencer.head().hash));
    // Nothing more to derive until L1 grows.
    assertEquals(await pipeline.next(safe), "idle");
  } finally {
    await ver.close();
  }
}
