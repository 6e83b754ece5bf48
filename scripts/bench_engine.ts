/**
 * Engine benchmark: blocks of 1,000 ETH transfers built from the pool and committed to sqlite
 * (build + one atomic write + forkchoice), then imported by a second engine (newPayload path: decode,
 * sender recovery, execution, validation, one atomic write).
 *
 *   deno run -A scripts/bench_engine.ts [blocks=5] [txsPerBlock=1000]
 */
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { DevMiner, ExecutionEngine, ExecutionEngineApi } from "../lib/execution/engine/mod.ts";
import { buildDevGenesis, deriveDevAccounts } from "../lib/execution/genesis/mod.ts";
import { forkRules } from "../lib/execution/evm/mod.ts";
import { blockToPayload } from "../lib/execution/engine/mod.ts";

const blocks = Number(Deno.args[0] ?? 5);
const perBlock = Number(Deno.args[1] ?? 1000);
const senders = 10;
const accounts = deriveDevAccounts(senders);
const genesis = buildDevGenesis({ upTo: "isthmus", accounts: accounts.map((a) => a.address) });
const dir = await Deno.makeTempDir({ prefix: "keel-bench-engine-" });
const txpool = { accountSlots: perBlock, globalSlots: perBlock * 2, accountQueue: perBlock };
const seq = await ExecutionEngine.open({ dataDir: `${dir}/seq`, genesis, txpool });
const ver = await ExecutionEngine.open({ dataDir: `${dir}/ver`, genesis });
const verApi = new ExecutionEngineApi({}, { engine: ver });
let clock = 1;
const miner = new DevMiner({}, { engine: seq, now: () => clock++ });
const common = forkRules(seq.config, 1n).common;
const nonces = new Array(senders).fill(0n);
let buildMs = 0;
let importMs = 0;
let txs = 0;
try {
  for (let b = 0; b < blocks; b++) {
    for (let i = 0; i < perBlock; i++) {
      const s = i % senders;
      const tx = createFeeMarket1559Tx({
        chainId: seq.config.chainId,
        nonce: nonces[s]++,
        to: new Uint8Array(20).fill(0xbb),
        value: 1n,
        gasLimit: 21000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 1n,
      }, { common }).sign(accounts[s].privateKey);
      tx.getSenderAddress();
      await seq.pool.add(tx);
    }
    const t0 = performance.now();
    const built = await miner.mine();
    buildMs += performance.now() - t0;
    if (built === undefined) throw new Error("no block sealed");
    txs += built.block.transactions.length - 1;
    const payload = blockToPayload(built.block, built.hash);
    payload.withdrawalsRoot = built.block.header.withdrawalsRoot;
    const t1 = performance.now();
    const st = await verApi.newPayload(4, payload, [], built.block.header.parentBeaconBlockRoot, []);
    await ver.forkchoiceUpdate(built.hash);
    importMs += performance.now() - t1;
    if (st.status !== "VALID") throw new Error(`import: ${st.status} ${st.validationError}`);
  }
  const rss = Deno.memoryUsage().rss / 2 ** 20;
  console.log(JSON.stringify({
    blocks,
    transfers: txs,
    buildAndCommit: {
      blocksPerSec: +(blocks / (buildMs / 1000)).toFixed(2),
      transfersPerSec: Math.round(txs / (buildMs / 1000)),
    },
    importAndCommit: {
      blocksPerSec: +(blocks / (importMs / 1000)).toFixed(2),
      transfersPerSec: Math.round(txs / (importMs / 1000)),
    },
    rssMiB: Math.round(rss),
  }));
} finally {
  await seq.close();
  await ver.close();
  await Deno.remove(dir, { recursive: true });
}
