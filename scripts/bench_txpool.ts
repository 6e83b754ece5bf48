/**
 * Transaction pool benchmark (issue 3, part 7).
 *
 *   deno run -A scripts/bench_txpool.ts [--txs N] [--accounts N]
 *
 * Signs N EIP-1559 transfers from A accounts in advance (not timed), then measures:
 * - adds/s of raw bytes (decode + sender recovery + validation + insert), as eth_sendRawTransaction does,
 *   with ecrecover on the main thread, then in a SenderRecovery worker with 256 adds in flight;
 * - adds/s of already-decoded transactions whose sender was recovered before (validation + insert);
 * - the time to iterate `pending(baseFee)` fully, as a block builder does.
 * The pool must not be the bottleneck for the 2,000 transfers/s target of issue 3.
 */
import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { createFeeMarket1559Tx, type TypedTransaction } from "@ethereumjs/tx";
import { privateToAddress } from "@ethereumjs/util";
import { bytesToHex, type Hex } from "../lib/common/bytes.ts";
import { keccak256 } from "../lib/common/hash.ts";
import { type PoolHead, SenderRecovery, TxPool, type TxPoolDeps } from "../lib/execution/txpool/mod.ts";

function arg(name: string, fallback: number): number {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Number(Deno.args[i + 1]) : fallback;
}
const TXS = arg("--txs", 10_000);
const ACCOUNTS = arg("--accounts", 100);
const PER_ACCOUNT = Math.ceil(TXS / ACCOUNTS);
const CHAIN_ID = 901n;
const GWEI = 1_000_000_000n;

const common = createCustomCommon({ chainId: Number(CHAIN_ID) }, Mainnet, { hardfork: Hardfork.Prague });
const head: PoolHead = {
  chainId: CHAIN_ID,
  gasLimit: 30_000_000n,
  nextBaseFee: GWEI,
  allowedTypes: new Set([0, 1, 2, 4]),
  timestamp: 0n,
  isShanghai: true,
  isPrague: true,
};

const keys: Uint8Array[] = [];
let key = keccak256(new TextEncoder().encode("keel txpool bench"));
for (let i = 0; i < ACCOUNTS; i++) keys.push(key = keccak256(key));
const states = new Map<Hex, { nonce: bigint; balance: bigint }>();
for (const k of keys) states.set(bytesToHex(privateToAddress(k)), { nonce: 0n, balance: 10n ** 24n });

const deps: TxPoolDeps = {
  getAccount: (address) => Promise.resolve(states.get(bytesToHex(address)) ?? { nonce: 0n, balance: 0n }),
  head: () => head,
  l1Cost: () => 1_000_000n,
};

console.log(`signing ${TXS} transfers from ${ACCOUNTS} accounts ...`);
const t0 = performance.now();
const txs: TypedTransaction[] = [];
// Interleave accounts (nonce-major) as clients would submit them; tips vary per account.
for (let n = 0; n < PER_ACCOUNT && txs.length < TXS; n++) {
  for (let a = 0; a < ACCOUNTS && txs.length < TXS; a++) {
    txs.push(
      createFeeMarket1559Tx({
        chainId: CHAIN_ID,
        nonce: BigInt(n),
        maxPriorityFeePerGas: BigInt(1 + (a % 7)) * GWEI,
        maxFeePerGas: 20n * GWEI,
        gasLimit: 21_000n,
        to: privateToAddress(keys[(a + 1) % ACCOUNTS]),
        value: 1n,
      }, { common }).sign(keys[a]),
    );
  }
}
const raws = txs.map((tx) => tx.serialize());
console.log(`signed in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const options = { globalSlots: TXS, accountSlots: PER_ACCOUNT, accountQueue: PER_ACCOUNT };

async function run(label: string, inputs: (Uint8Array | TypedTransaction)[]): Promise<TxPool> {
  const pool = new TxPool(options, deps);
  const start = performance.now();
  for (const input of inputs) await pool.add(input);
  const ms = performance.now() - start;
  const status = pool.status();
  if (status.pending !== inputs.length) {
    throw new Error(`expected ${inputs.length} pending, got ${status.pending}`);
  }
  console.log(
    `${label}: ${inputs.length} adds in ${ms.toFixed(0)} ms = ${
      (inputs.length / (ms / 1000)).toFixed(0)
    } adds/s`,
  );
  return pool;
}

await run("raw bytes (decode + ecrecover + validate + insert)", raws);

// Raw bytes again with ecrecover in a Worker, 256 adds in flight as concurrent RPC calls would be.
{
  const recovery = new SenderRecovery({ workers: 1 });
  const pool = new TxPool(options, { ...deps, senderRecovery: recovery });
  const start = performance.now();
  for (let i = 0; i < raws.length; i += 256) {
    await Promise.all(raws.slice(i, i + 256).map((r) => pool.add(r)));
  }
  const ms = performance.now() - start;
  recovery.close();
  if (pool.status().pending !== raws.length) throw new Error(`expected ${raws.length} pending`);
  console.log(
    `raw bytes, ecrecover in 1 worker, 256 in flight: ${raws.length} adds in ${ms.toFixed(0)} ms = ${
      (raws.length / (ms / 1000)).toFixed(0)
    } adds/s`,
  );
}
// Senders recovered once (cached on the frozen tx objects), as when the RPC layer decoded them.
for (const tx of txs) tx.getSenderAddress();
const pool = await run("decoded txs, senders cached (validate + insert)", txs);

for (let round = 0; round < 3; round++) {
  const start = performance.now();
  let count = 0;
  for (const _tx of pool.pending(GWEI)) count++;
  const ms = performance.now() - start;
  console.log(`pending() full iteration: ${count} txs in ${ms.toFixed(1)} ms`);
}
console.log(`RSS ${(Deno.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`);
