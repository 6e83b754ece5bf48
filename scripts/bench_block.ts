/**
 * Block building and import benchmark (issue 3 "Benchmark").
 *
 *   deno task bench [options]   (= deno run -A with the binary's V8 heap flags, lib/node/permissions.ts)
 *   deno run -A scripts/bench_block.ts [--memory] [--sqlite DIR] [--blocks N] [--transfers N]
 *                                      [--only eth|erc20] [--cold] [--cold-inline] [--no-import] [--no-root-task] [--verbose]
 *                                      [--speculation]
 *                                      [--cpu-profile FILE] [--heap-profile FILE] [--timeline]
 *
 * Builds and seals blocks of 1,000 ETH transfers and of 500 ERC-20 transfers (BenchToken from
 * ../shared/bench/rpc-bench.mjs) on an OP chain at Isthmus with the L1 fee charged, transactions as the
 * pool hands them over (sender recovered, encoding and hash kept); a second node imports the same blocks (full re-execution and
 * validation, the newPayload path), each block right after it is built. Import finds the
 * senders in the sender cache the builder filled (a block built or pooled here); `--cold` adds a third
 * node that imports with an empty cache, recovering every sender as the engine does (the pool's
 * BlockSenderRecovery: this thread from the first transaction, a helper thread from the last; with
 * `--cold-inline` the pool's libsecp256k1 recovery on this thread alone). Importing nodes on sqlite compute
 * the state root on the state-root worker (state/root_task.ts) unless `--no-root-task`.
 *
 * State: a node:sqlite file per run (one write group per block, as the engine does) in a temp dir or
 * `--sqlite DIR`; `--memory` keeps it in memory. `--blocks N` (default 5) blocks of each kind;
 * `--transfers N` sets the ETH run to N transfers (N / 1,000 blocks), e.g. 100000 for the RSS target.
 * Prints a table: transfers/s and Mgas/s of build and import, the import/build ratio (of the totals,
 * and the median of the per-block ratios), and the RSS of this process (builder and importers
 * together) after the run; `--no-import` runs the builder node alone (its RSS alone).
 * `--speculation` imports with a speculation worker (evm/speculation.ts: the block's tail executed on a
 * third thread and merged where its reads still hold). Slower on this 2-core machine (measured: import
 * 2,700-3,250 instead of ~4,200 tx/s): with the state-root worker that makes three busy threads, and
 * the worker's records, its caches moved along each block and the merge add CPU time of their own.
 * Timed per block (500 ERC-20 transfers, a tail of 225): the worker ran its tail at 216-375 us a
 * transaction against ~160 on the importing thread, which then waited 25-65 ms for it, and merging a
 * speculated transaction cost the importing thread 60-110 us, 40-70% of executing it.
 * `--timeline` prints, per imported block, when this thread sent each message to the state-root worker
 * and when the worker handled it (milliseconds from the block's start).
 * `--cpu-profile FILE` writes a V8 CPU profile of this thread over the timed workloads (node:inspector;
 * Chrome DevTools and VS Code open it), with `keelWindows`: when each block was built and imported
 * (microseconds from the profile's `startTime`, as its samples), to tell the two apart.
 * `--heap-profile FILE` writes a V8 sampling heap profile of the same span (every allocation sampled,
 * also those collected since; the `.heapprofile` format of Chrome DevTools), to find what allocates.
 */
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import { createFeeMarket1559Tx, type TypedTransaction } from "@ethereumjs/tx";
import {
  Account,
  Address,
  bigIntToBytes,
  createAddressFromPrivateKey,
  generateAddress,
  privateToPublic,
  setLengthLeft,
} from "@ethereumjs/util";
import { Session } from "node:inspector/promises";
import { hexToBytes } from "../lib/common/bytes.ts";
import { keccakReady } from "../lib/common/hash.ts";
import { MemoryStore, SqliteStore } from "../lib/db/mod.ts";
import {
  BlockBuilder,
  encodingOf,
  forkRules,
  importBlock,
  type ImportTimings,
  sharedSenderCache,
  SpeculationTask,
  txCommon,
} from "../lib/execution/evm/mod.ts";
import { createStateManager, StateRootTask } from "../lib/execution/state/mod.ts";
import { BlockSenderRecovery, SenderRecovery } from "../lib/execution/txpool/mod.ts";
import {
  type Block,
  EMPTY_OMMERS_HASH,
  EMPTY_REQUESTS_HASH,
  EMPTY_TRIE_ROOT,
  type Header,
} from "../lib/protocol/block.ts";
import { forksAtGenesis } from "../lib/protocol/hardforks.ts";
import type { ChainConfig } from "../lib/protocol/chain_config.ts";
import { encodeHoloceneExtraData } from "../lib/protocol/eip1559.ts";
import { L1_BLOCK_ADDRESS, SEQUENCER_FEE_VAULT_ADDRESS } from "../lib/protocol/predeploys.ts";

/** BenchToken creation code (constructor mints 1e27 to the deployer; balanceOf, transfer). */
const TOKEN_INITCODE = hexToBytes(
  "0x6080604052348015600f57600080fd5b50336000818152602081815260408083206b033b2e3c9fd0803ce80000009081905590519081527fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef910160405180910390a36101bb806100706000396000f3fe608060405234801561001057600080fd5b50600436106100365760003560e01c806370a082311461003b578063a9059cbb1461006e575b600080fd5b61005b61004936600461014e565b60006020819052908152604090205481565b6040519081526020015b60405180910390f35b61008161007c366004610170565b610091565b6040519015158152602001610065565b33600090815260208190526040812054828110156100ae57600080fd5b3360009081526020819052604080822085840390556001600160a01b0386168252812080548592906100e190849061019a565b90915550506040518381526001600160a01b0385169033907fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef9060200160405180910390a360019150505b92915050565b80356001600160a01b038116811461014957600080fd5b919050565b60006020828403121561016057600080fd5b61016982610132565b9392505050565b6000806040838503121561018357600080fd5b61018c83610132565b946020939093013593505050565b8082018082111561012c57634e487b7160e01b600052601160045260246000fd",
);

function arg(name: string): string | undefined {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Deno.args[i + 1] : undefined;
}
const BLOCKS = Number(arg("--blocks") ?? 5);
const TRANSFERS = arg("--transfers");
const ETH_BLOCKS = TRANSFERS === undefined ? BLOCKS : Math.ceil(Number(TRANSFERS) / 1000);
const MEMORY = Deno.args.includes("--memory");
// The WebAssembly keccak256, as in a running node: its instance is made in the background, and a
// benchmark that never yields to the event loop would otherwise hash with @noble/hashes throughout.
await keccakReady;
const SQLITE = MEMORY ? undefined : (arg("--sqlite") ?? await Deno.makeTempDir({ prefix: "keel_bench_" }));
const TEMP_DIR = !MEMORY && arg("--sqlite") === undefined ? SQLITE : undefined;
const ONLY = arg("--only"); // "eth" or "erc20"
const VERBOSE = Deno.args.includes("--verbose");
const TIMELINE = Deno.args.includes("--timeline");
const COLD = Deno.args.includes("--cold");
/** Build only: one node in the process (its RSS alone). */
const NO_IMPORT = Deno.args.includes("--no-import");
/** Import computes the state root on the executing thread (no state-root worker). */
const NO_ROOT_TASK = Deno.args.includes("--no-root-task");
const SPECULATION = Deno.args.includes("--speculation");
const CPU_PROFILE = arg("--cpu-profile");
const HEAP_PROFILE = arg("--heap-profile");

const CONFIG: ChainConfig = {
  chainId: 901n,
  l1: {},
  op: {
    forks: forksAtGenesis("isthmus"),
    eip1559: { elasticity: 6n, denominator: 50n, denominatorCanyon: 250n },
  },
};
const GAS_LIMIT = 60_000_000n;
const GWEI = 1_000_000_000n;
const common = forkRules(CONFIG, 0n).common;

function key(i: number): Uint8Array {
  return setLengthLeft(bigIntToBytes(BigInt(i + 1)), 32);
}

const SENDERS = 1000;
const keys = Array.from({ length: SENDERS }, (_, i) => key(i));
const addrs = keys.map((k) => createAddressFromPrivateKey(k));
const pubs = keys.map((k) => privateToPublic(k));

/** One node's state: a state manager, on its own sqlite file unless `--memory`. */
interface Node {
  sm: MerkleStateManager;
  store?: SqliteStore;
  /** The state-root worker of an importing node on sqlite (unless --no-root-task). */
  rootTask?: StateRootTask;
  speculation?: SpeculationTask;
  /** Head of the node's chain. */
  head?: Header;
}
const stores: SqliteStore[] = [];
const tasks: (StateRootTask | SpeculationTask)[] = [];
let run = 0;
async function newNode(): Promise<Node> {
  if (SQLITE === undefined) return { sm: await createStateManager(new MemoryStore()) };
  const store = SqliteStore.open(`${SQLITE}/bench_${run++}.sqlite`);
  stores.push(store);
  return { sm: await createStateManager(store), store };
}

/** Runs `fn` as one write group on the node's database (as the engine does per block). */
function atomically<T>(node: Node, fn: () => Promise<T>): Promise<T> {
  return node.store !== undefined ? node.store.transactionAsync(fn) : fn();
}

async function genesis(sm: MerkleStateManager): Promise<Header> {
  for (const a of addrs) await sm.putAccount(a, new Account(0n, 10n ** 21n));
  const l1 = new Address(L1_BLOCK_ADDRESS);
  await sm.putAccount(l1, new Account(0n, 0n));
  const put = (slot: bigint, v: bigint) =>
    sm.putStorage(l1, setLengthLeft(bigIntToBytes(slot), 32), bigIntToBytes(v));
  await put(1n, 7n * GWEI); // basefee
  await put(3n, (1368n << 96n) | (810_949n << 64n)); // baseFeeScalar, blobBaseFeeScalar
  await put(7n, 3n * GWEI); // blob base fee
  const stateRoot = await sm.getStateRoot();
  return {
    parentHash: new Uint8Array(32),
    ommersHash: EMPTY_OMMERS_HASH,
    coinbase: new Uint8Array(20),
    stateRoot,
    transactionsRoot: EMPTY_TRIE_ROOT,
    receiptsRoot: EMPTY_TRIE_ROOT,
    logsBloom: new Uint8Array(256),
    difficulty: 0n,
    number: 0n,
    gasLimit: GAS_LIMIT,
    gasUsed: 0n,
    timestamp: 0n,
    extraData: encodeHoloceneExtraData(250n, 6n),
    mixHash: new Uint8Array(32),
    nonce: new Uint8Array(8),
    baseFeePerGas: GWEI / 100n,
    withdrawalsRoot: EMPTY_TRIE_ROOT,
    blobGasUsed: 0n,
    excessBlobGas: 0n,
    parentBeaconBlockRoot: new Uint8Array(32),
    requestsHash: EMPTY_REQUESTS_HASH,
  };
}

function tx(
  sender: number,
  nonce: bigint,
  to: Uint8Array | undefined,
  value: bigint,
  gas: bigint,
  data?: Uint8Array,
) {
  const t = createFeeMarket1559Tx({
    chainId: CONFIG.chainId,
    nonce,
    to,
    value,
    gasLimit: gas,
    maxFeePerGas: GWEI,
    maxPriorityFeePerGas: 1000n,
    data,
  }, { common: txCommon(common) }).sign(keys[sender]);
  // As the pool admits a transaction (txpool.ts, admission.ts): its sender recovered (set here from the
  // key: the setup stays quick) and its address known, its encoding and hash kept (a pooled transaction
  // arrives as bytes), so that building does not serialise it again.
  (t.cache as { senderPubKey?: Uint8Array }).senderPubKey = pubs[sender];
  t.getSenderAddress();
  encodingOf(t);
  return t;
}

function transferCall(to: Address, amount: bigint): Uint8Array {
  const out = new Uint8Array(68);
  out.set([0xa9, 0x05, 0x9c, 0xbb]);
  out.set(to.bytes, 16);
  out.set(setLengthLeft(bigIntToBytes(amount), 32), 36);
  return out;
}

/** Builds one block per entry of `blocks` on the node's head; returns the blocks and the time taken. */
async function buildChain(node: Node, blocks: TypedTransaction[][]) {
  // Only the blocks are kept (the receipts and results would dominate memory over a long run).
  const out: Block[] = [];
  let parent = node.head!;
  let gas = 0n;
  let txs = 0;
  let ms = 0;
  for (let i = 0; i < blocks.length; i++) {
    const t0 = performance.now();
    const attrs = {
      timestamp: parent.timestamp + 2n,
      coinbase: SEQUENCER_FEE_VAULT_ADDRESS,
      prevRandao: new Uint8Array(32),
      gasLimit: GAS_LIMIT,
      parentBeaconBlockRoot: new Uint8Array(32),
      eip1559Params: new Uint8Array(8),
    };
    const sealed = await atomically(node, async () => {
      const b = await BlockBuilder.open(CONFIG, parent, attrs, { stateManager: node.sm });
      for (const t of blocks[i]) await b.addTransaction(t);
      const t1 = performance.now();
      const sealed = await b.seal();
      if (VERBOSE) {
        (globalThis as { gc?: () => void }).gc?.(); // with --v8-flags=--expose-gc: live memory
        const m = Deno.memoryUsage();
        console.log(
          `  block ${parent.number + 1n}: execute ${(t1 - t0).toFixed(0)} ms, seal ${
            (performance.now() - t1).toFixed(0)
          } ms (before the write group's commit); rss ${mib(m.rss)}, heap ${mib(m.heapUsed)}, external ${
            mib(m.external)
          }`,
        );
      }
      return sealed;
    });
    ms += performance.now() - t0;
    if (VERBOSE) {
      console.log(`  block ${parent.number + 1n}: total ${(performance.now() - t0).toFixed(0)} ms`);
    }
    out.push(sealed.block);
    parent = sealed.block.header;
    gas += parent.gasUsed;
    txs += blocks[i].length;
  }
  node.head = parent;
  return { blocks: out, gas, txs, ms };
}

/** Cold import's sender recovery, as the engine's (txpool/block_senders.ts), or on this thread alone. */
const INLINE = Deno.args.includes("--cold-inline");
const recovery = new SenderRecovery({ workers: 0 });
const blockSenders = new BlockSenderRecovery();

/** Imports `blocks` on the node's head (the newPayload path); returns the time taken. */
async function importChain(node: Node, blocks: Block[]) {
  const t0 = performance.now();
  for (const block of blocks) {
    const t1 = performance.now();
    const parent = node.head!;
    const timings: ImportTimings = { open: 0, decode: 0, execute: 0, seal: 0, commit: 0 };
    await atomically(
      node,
      () =>
        importBlock(CONFIG, parent, block, { stateManager: node.sm, stateRoot: node.rootTask }, {
          recoverSender: (tx) => recovery.recover(tx),
          blockSenders: INLINE ? undefined : blockSenders,
          speculation: node.speculation,
          timings,
        }),
    );
    const tl = TIMELINE ? node.rootTask?.timeline : undefined;
    if (tl !== undefined) {
      const ms = (x: number) => x.toFixed(1);
      console.log(
        `  sent: ${tl.sent.map((s) => `${s.kind}@${ms(s.at)}`).join(" ")}; answer@${ms(tl.answered)}`,
      );
      console.log(
        `  worker: ${
          tl.worker.map((w) =>
            `${w.kind}(${w.size}) ${ms(Number.isNaN(w.started) ? w.arrived : w.started)}-${ms(w.ended)}`
          )
            .join(" ")
        }`,
      );
    }
    if (VERBOSE) {
      const phases = Object.entries(timings).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(", ");
      console.log(
        `  import ${block.header.number}: ${phases} ms; total ${(performance.now() - t1).toFixed(0)} ms`,
      );
    }
    node.head = block.header;
  }
  return performance.now() - t0;
}

interface Row {
  workload: string;
  txs: number;
  gas: bigint;
  buildMs: number;
  importMs: number;
  coldMs?: number;
  /** build ms / import ms of each block. */
  ratios: number[];
  /** After the run (builder and importers in this one process). */
  rss: string;
}
const rows: Row[] = [];

/**
 * A builder node and an importing node (plus, with --cold, one importing with an empty sender cache)
 * from the same genesis. Each block is built, then imported by the others: a verifier imports a block
 * shortly after the sequencer built it, while the sender cache still holds it.
 */
async function nodes() {
  const builder = await newNode();
  const g = await genesis(builder.sm);
  builder.head = g;
  let importer: Node | undefined;
  if (!NO_IMPORT) {
    importer = await newNode();
    await genesis(importer.sm);
    if (importer.store !== undefined && !NO_ROOT_TASK) {
      tasks.push(importer.rootTask = new StateRootTask(importer.store.path));
    }
    if (importer.store !== undefined && SPECULATION) {
      importer.speculation = new SpeculationTask(importer.store.path, CONFIG);
      tasks.push(importer.speculation);
    }
    importer.head = g;
  }
  let cold: Node | undefined;
  if (COLD) {
    cold = await newNode();
    await genesis(cold.sm);
    if (cold.store !== undefined && !NO_ROOT_TASK) {
      tasks.push(cold.rootTask = new StateRootTask(cold.store.path));
    }
    cold.head = g;
  }
  const totals = { txs: 0, gas: 0n, buildMs: 0, importMs: 0, coldMs: 0, ratios: [] as number[] };
  /** Builds `blocks` and imports them; `timed` false for setup blocks. */
  const step = async (blocks: TypedTransaction[][], timed = true) => {
    // Block by block, build then import, so that a change of load on the shared machine weighs on
    // both alike.
    for (const one of blocks) {
      const t0 = profileTime();
      const built = await buildChain(builder, [one]);
      const t1 = profileTime();
      const importMs = importer === undefined ? NaN : await importChain(importer, built.blocks);
      windows.build.push([t0, t1]);
      windows.import.push([t1, profileTime()]);
      let coldMs = 0;
      if (cold !== undefined) {
        sharedSenderCache.clear();
        coldMs = await importChain(cold, built.blocks);
      }
      if (!timed) continue;
      totals.txs += built.txs;
      totals.gas += built.gas;
      totals.buildMs += built.ms;
      totals.importMs += importMs;
      totals.coldMs += coldMs;
      totals.ratios.push(built.ms / importMs);
    }
  };
  return { step, totals };
}

/** The middle value (the figure least moved by a stall of the shared machine in one block). */
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const rate = (n: number, ms: number) => (n / (ms / 1000)).toFixed(0);
const mgas = (gas: bigint, ms: number) => (Number(gas) / 1e6 / (ms / 1000)).toFixed(1);
const mib = (n: number) => `${(n / 2 ** 20).toFixed(0)} MiB`;
const rss = () => mib(Deno.memoryUsage().rss);
const load = () => Deno.loadavg().map((x) => x.toFixed(2)).join(" ");

console.log(
  `state: ${
    SQLITE === undefined ? "in memory (KeelStateManager on a MemoryStore)" : `node:sqlite in ${SQLITE}`
  }; ` +
    `cold import recovers senders ${
      INLINE ? "on the main thread" : "on the main thread and a helper thread"
    }; ` +
    `load average ${load()}; RSS at start ${rss()}`,
);

const profiler = CPU_PROFILE === undefined && HEAP_PROFILE === undefined ? undefined : new Session();
/** When the profiler started (performance.now()), and the windows of building and importing blocks. */
let profileStart = 0;
const windows = { build: [] as [number, number][], import: [] as [number, number][] };
/** Microseconds since the profiler started. */
const profileTime = () => Math.round((performance.now() - profileStart) * 1000);
if (profiler !== undefined) {
  profiler.connect();
  if (CPU_PROFILE !== undefined) {
    await profiler.post("Profiler.enable");
    await profiler.post("Profiler.setSamplingInterval", { interval: 200 });
    await profiler.post("Profiler.start");
  }
  if (HEAP_PROFILE !== undefined) {
    // Every allocation counts, the short-lived ones too (those the young generation collects).
    await profiler.post("HeapProfiler.enable");
    await profiler.post("HeapProfiler.startSampling", {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  }
  profileStart = performance.now();
}

// 1. ETH transfers: one untimed block, then ETH_BLOCKS blocks of 1,000 transfers, each sender once per block, signed in
// chunks of 10 blocks (the signed transactions of a long run would dominate memory).
if (ONLY !== "erc20") {
  const { step, totals } = await nodes();
  const transfers = (k: number) =>
    addrs.map((_, i) => tx(i, BigInt(k), addrs[(i + 1) % SENDERS].bytes, 1n, 21_000n));
  // One block untimed first, as the ERC-20 run's setup blocks: the first block of a node pays once for
  // starting the state-root worker, compiling the code paths and reading the genesis state cold.
  await step([transfers(0)], false);
  for (let b = 0; b < ETH_BLOCKS; b += 10) {
    const chunk: TypedTransaction[][] = [];
    for (let k = b; k < Math.min(b + 10, ETH_BLOCKS); k++) chunk.push(transfers(k + 1));
    await step(chunk);
  }
  rows.push({ workload: "ETH transfers", ...totals, coldMs: COLD ? totals.coldMs : undefined, rss: rss() });
}

// 2. ERC-20 transfers: deploy, distribute to 500 senders, then BLOCKS blocks of 500 transfers.
if (ONLY !== "eth") {
  const N = 500;
  const deployer = 0;
  const token = new Address(generateAddress(addrs[deployer].bytes, bigIntToBytes(0n)));
  const setup: TypedTransaction[][] = [
    [tx(deployer, 0n, undefined, 0n, 1_000_000n, TOKEN_INITCODE)],
    Array.from(
      { length: N },
      (_, i) => tx(deployer, BigInt(i + 1), token.bytes, 0n, 80_000n, transferCall(addrs[i + 1], 10n ** 20n)),
    ),
  ];
  const blocks: TypedTransaction[][] = [];
  for (let b = 0; b < BLOCKS; b++) {
    blocks.push(
      Array.from({ length: N }, (_, i) => {
        const s = i + 1;
        const nonce = BigInt(b) + (s === deployer ? BigInt(N + 1) : 0n);
        return tx(s, nonce, token.bytes, 0n, 80_000n, transferCall(addrs[(i + 1) % N + 1], 1n));
      }),
    );
  }
  const { step, totals } = await nodes();
  await step(setup, false);
  await step(blocks);
  rows.push({
    workload: "ERC-20 transfers",
    ...totals,
    coldMs: COLD ? totals.coldMs : undefined,
    rss: rss(),
  });
}

if (CPU_PROFILE !== undefined) {
  const stoppedAt = profileTime();
  const { profile } = await profiler!.post("Profiler.stop");
  // The profile's clock starts when V8 began sampling, which can be ~100 ms before Profiler.start
  // answers (measured: samples of import code fell into the build windows); its end is the stop just
  // made, so the windows are moved to end there.
  const shift = profile.endTime - profile.startTime - stoppedAt;
  const moved = (ws: [number, number][]) => ws.map(([a, b]) => [a + shift, b + shift]);
  const keelWindows = { build: moved(windows.build), import: moved(windows.import) };
  await Deno.writeTextFile(CPU_PROFILE, JSON.stringify({ ...profile, keelWindows }));
}
if (HEAP_PROFILE !== undefined) {
  const { profile } = await profiler!.post("HeapProfiler.stopSampling");
  await Deno.writeTextFile(HEAP_PROFILE, JSON.stringify(profile));
}
profiler?.disconnect();

console.log(
  `\n| workload | state | txs | build tx/s | build Mgas/s | import tx/s | import Mgas/s | import/build | median block | RSS |` +
    (COLD ? " cold import tx/s | cold import/build |" : ""),
);
console.log(`|---|---|---|---|---|---|---|---|---|---|` + (COLD ? "---|---|" : ""));
for (const r of rows) {
  const cells = [
    r.workload,
    MEMORY ? "memory" : "sqlite",
    String(r.txs),
    rate(r.txs, r.buildMs),
    mgas(r.gas, r.buildMs),
    NO_IMPORT ? "-" : rate(r.txs, r.importMs),
    NO_IMPORT ? "-" : mgas(r.gas, r.importMs),
    NO_IMPORT ? "-" : `${(r.buildMs / r.importMs).toFixed(2)}x`,
    NO_IMPORT ? "-" : `${median(r.ratios).toFixed(2)}x`,
    r.rss,
  ];
  if (r.coldMs !== undefined) cells.push(rate(r.txs, r.coldMs), `${(r.buildMs / r.coldMs).toFixed(2)}x`);
  console.log(`| ${cells.join(" | ")} |`);
}
console.log(`RSS at the end: ${rss()}; load average ${load()}`);
for (const t of tasks) {
  if (t instanceof SpeculationTask) {
    const s = t.stats;
    const per = (ms: number) => (ms / Math.max(1, s.blocks)).toFixed(1);
    console.log(
      `speculation worker: ${s.blocks} tails, ${s.merged} of ${s.sent} transactions merged, ${s.conflicts} conflicts, ` +
        `${s.skipped} left to the importer, ${s.retries} retries; ms a block: worker ${
          per(s.workerMs)
        }, importer waited ${per(s.waitMs)}`,
    );
    continue;
  }
  const s = t.stats;
  const per = (ms: number) => (ms / Math.max(1, s.roots)).toFixed(1);
  console.log(
    `state-root worker: ${s.roots} roots, ${(s.deltas / Math.max(1, s.roots)).toFixed(1)} deltas a block; ` +
      `ms a block: prefetch ${per(s.prefetchMs)}, apply ${per(s.applyMs)}, hash ahead ${
        per(s.prehashMs)
      }, hash at the end ${per(s.finishMs)}; ` +
      `importer waited ${per(s.waitMs)}; ${per(s.reads)} nodes read a block; ${s.failures} failures`,
  );
}
for (const t of tasks) t.close();
for (const s of stores) s.close();
recovery.close();
blockSenders.close();
if (TEMP_DIR !== undefined) await Deno.remove(TEMP_DIR, { recursive: true });
