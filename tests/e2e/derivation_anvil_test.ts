/**
 * L2 chain derivation end to end, with anvil (the real binary) as L1: the sequencer and batcher of
 * helpers/op_chain.ts put 12 L2 blocks on anvil as Brotli calldata frames; a verifier that only reads
 * L1 derives the same chain on its own engine, block hash for block hash, reading each parent's system
 * config back from the parent block as a restarted node would.
 */
import { bytesToHex } from "../../lib/common/bytes.ts";
import { JsonRpcClient } from "../../lib/common/json_rpc_client.ts";
import { ExecutionEngine } from "../../lib/execution/engine/mod.ts";
import type { L2BlockRef } from "../../lib/protocol/block_ref.ts";
import type { ExecutionPayload } from "../../lib/protocol/engine.ts";
import { systemConfigFromGenesis } from "../../lib/protocol/system_config.ts";
import {
  DerivationPipeline,
  l2BlockRefFromPayload,
  systemConfigFromL2Block,
} from "../../lib/rollup/derive/mod.ts";
import { L1Client } from "../../lib/rollup/l1/mod.ts";
import { ExecutionEngineApi } from "../unit/execution/engine/helpers.ts";
import { assertEquals } from "../assert.ts";
import { buildOn, installAnvil, opChainOnAnvil, startAnvil } from "./helpers/mod.ts";

const tool = await installAnvil();
if (!tool.ok && !tool.registryUnreachable) throw new Error(tool.message);
if (!tool.ok) {
  console.warn(`derivation_anvil_test: skipped, the npm registry is unreachable: ${tool.message}`);
}

const L2_BLOCKS = 12;

Deno.test({
  name: "derivation: a verifier reading only anvil derives the sequencer's L2 chain",
  ignore: !tool.ok,
  sanitizeResources: false,
  async fn() {
    const anvil = await startAnvil(tool.ok ? tool.binary : "", ["--hardfork", "prague"]);
    try {
      const rpc = new JsonRpcClient(anvil.url);
      const l1 = new L1Client(rpc);
      const chain = await opChainOnAnvil(rpc, l1, L2_BLOCKS);
      const { cfg, genesisRef } = chain;
      const ver = await ExecutionEngine.open({ genesis: chain.genesisJson });
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
            systemConfigOf: (b) =>
              Promise.resolve(
                b.number === 0n ? genesisConfig : systemConfigFromL2Block(cfg, payloads.get(b.number)!),
              ),
          },
          onDrop: (stage, reason) => drops.push(`${stage}: ${reason}`),
        },
        await l1.blockRef(0n),
        genesisConfig,
      );
      let safe = genesisRef;
      while (safe.number < BigInt(L2_BLOCKS)) {
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
      assertEquals(
        safe.number,
        BigInt(L2_BLOCKS),
        `derived ${safe.number} blocks; dropped: ${drops.join("; ")}`,
      );
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
      await chain.sequencer.close();
      await ver.close();
    } finally {
      await anvil.stop();
    }
  },
});
