/**
 * Block import's SenderRecovery: a worker decodes the raw transactions and recovers their senders.
 * The first message goes out as soon as the worker exists, so this also checks that the worker
 * listens from its first moment (a top-level await in its module graph once made it lose it).
 */
import { createFeeMarket1559Tx, createTxFromRLP } from "@ethereumjs/tx";
import { createAddressFromPrivateKey, hexToBytes } from "@ethereumjs/util";
import { forkRules, SenderRecovery, txCommon } from "../../../../lib/execution/evm/mod.ts";
import type { ChainConfig } from "../../../../lib/protocol/chain_config.ts";
import { assertEquals } from "../../../assert.ts";

const CONFIG: ChainConfig = { chainId: 901n, l1: { shanghaiTime: 0n, cancunTime: 0n, pragueTime: 0n } };
const KEYS = [
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
].map((k) => hexToBytes(k as `0x${string}`));

/** Settles `p`, or rejects after `ms` (a lost message would otherwise hang the test). */
async function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("import SenderRecovery: a fresh worker answers its first messages and recovers every sender", async () => {
  const common = txCommon(forkRules(CONFIG, 0n).common);
  const raws = Array.from({ length: 70 }, (_, i) =>
    createFeeMarket1559Tx(
      { chainId: 901n, nonce: BigInt(i), maxFeePerGas: 10n, gasLimit: 21000n, to: new Uint8Array(20) },
      { common },
    ).sign(KEYS[i % 2]).serialize());
  const txs = raws.map((raw) => createTxFromRLP(raw, { common, freeze: true }));
  const recovery = new SenderRecovery({ workers: 1, chunkSize: 64 });
  try {
    const results = await within(Promise.all(recovery.start(CONFIG, 0n, txs, raws)), 20_000);
    for (let i = 0; i < 70; i++) {
      assertEquals(results[i], undefined, `tx ${i}`);
      assertEquals(
        txs[i].getSenderAddress().toString(),
        createAddressFromPrivateKey(KEYS[i % 2]).toString(),
        `tx ${i}`,
      );
    }
  } finally {
    recovery.close();
  }
});
