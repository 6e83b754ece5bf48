/**
 * Blob fees: eth_blobBaseFee and the blob fields of eth_feeHistory, on the OP fixture (always the
 * minimum) and on a plain Cancun -> Prague chain of headers (from each header's excessBlobGas and
 * blobGasUsed under its fork's blob parameters), checked against @ethereumjs/block's own blob price.
 */
import { createBlockHeader } from "@ethereumjs/block";
import { MemoryStore } from "../../../../lib/db/mod.ts";
import { ChainStore } from "../../../../lib/execution/chain/mod.ts";
import { forkRules } from "../../../../lib/execution/evm/mod.ts";
import {
  blobBaseFee,
  DEFAULT_ETH_RPC_OPTIONS,
  type EthBackend,
  ethNamespace,
  maxBlobGasPerBlock,
} from "../../../../lib/execution/rpc/mod.ts";
import {
  type ChainConfig,
  EMPTY_OMMERS_HASH,
  EMPTY_TRIE_ROOT,
  hashHeader,
  type Header,
} from "../../../../lib/protocol/mod.ts";
import {
  DEFAULT_ENVELOPE_LIMITS,
  handleRpcValue,
  MethodRegistry,
  NOOP_LOGGER,
} from "../../../../lib/rpc/mod.ts";
import { assertEquals } from "../../../assert.ts";
import { createDeployed } from "./fixture.ts";

const q = (v: bigint) => `0x${v.toString(16)}`;

Deno.test("eth_blobBaseFee and feeHistory on an OP chain: the minimum, 1 wei; ratio 0; blocks + 1 fees", async () => {
  const f = (await createDeployed()).fixture;
  assertEquals(await f.call("eth_blobBaseFee"), "0x1");
  const h = await f.call<Record<string, unknown>>("eth_feeHistory", ["0x3", "latest"]);
  assertEquals(h.baseFeePerBlobGas, ["0x1", "0x1", "0x1", "0x1"]);
  assertEquals(h.blobGasUsedRatio, [0, 0, 0]);
  assertEquals((h.baseFeePerGas as string[]).length, 4);
});

/** A plain chain: Cancun from genesis, Prague from time 100. */
const PLAIN: ChainConfig = { chainId: 1337n, l1: { shanghaiTime: 0n, cancunTime: 0n, pragueTime: 100n } };

function header(parent: Header | undefined, timestamp: bigint, excess: bigint, used: bigint): Header {
  return {
    parentHash: parent === undefined ? new Uint8Array(32) : hashHeader(parent),
    ommersHash: EMPTY_OMMERS_HASH,
    coinbase: new Uint8Array(20),
    stateRoot: EMPTY_TRIE_ROOT,
    transactionsRoot: EMPTY_TRIE_ROOT,
    receiptsRoot: EMPTY_TRIE_ROOT,
    logsBloom: new Uint8Array(256),
    difficulty: 0n,
    number: parent === undefined ? 0n : parent.number + 1n,
    gasLimit: 30_000_000n,
    gasUsed: 0n,
    timestamp,
    extraData: new Uint8Array(),
    mixHash: new Uint8Array(32),
    nonce: new Uint8Array(8),
    baseFeePerGas: 7n,
    withdrawalsRoot: EMPTY_TRIE_ROOT,
    blobGasUsed: used,
    excessBlobGas: excess,
    parentBeaconBlockRoot: new Uint8Array(32),
  };
}

/** @ethereumjs's blob gas price of a header with `excess` at `timestamp` (an independent computation). */
function ejsBlobPrice(excess: bigint, timestamp: bigint): bigint {
  const common = forkRules(PLAIN, timestamp).common;
  return createBlockHeader({ excessBlobGas: excess, blobGasUsed: 0n, timestamp }, { common })
    .getBlobGasPrice();
}

Deno.test("blob fees on a plain chain follow each header's excessBlobGas under its fork", async () => {
  const chain = new ChainStore({}, { store: new MemoryStore() });
  const BLOB = 131_072n;
  // Cancun: target 3 blobs, max 6, fraction 3338477. Prague: target 6, max 9, fraction 5007716.
  const g = header(undefined, 0n, 0n, 0n);
  const b1 = header(g, 10n, 20_000_000n, 6n * BLOB);
  const b2 = header(b1, 20n, 20_000_000n + 3n * BLOB, 3n * BLOB);
  const b3 = header(b2, 100n, 30_000_000n, 9n * BLOB);
  for (const h of [g, b1, b2, b3]) {
    chain.putBlock({ header: h, transactions: [] }, []);
    chain.setCanonicalHead(hashHeader(h));
  }
  assertEquals(maxBlobGasPerBlock(PLAIN, 10n), 6n * BLOB);
  assertEquals(maxBlobGasPerBlock(PLAIN, 100n), 9n * BLOB);
  assertEquals(blobBaseFee(PLAIN, 20_000_000n, 10n), ejsBlobPrice(20_000_000n, 10n));
  const backend: EthBackend = {
    config: PLAIN,
    chain,
    pool: undefined as unknown as EthBackend["pool"],
    stateAt: () => Promise.reject(new Error("no state in this test")),
    clientVersion: "keel/test",
    options: DEFAULT_ETH_RPC_OPTIONS,
  };
  const registry = new MethodRegistry([ethNamespace(backend)]);
  const call = async (method: string, params: unknown[]) => {
    const text = await handleRpcValue({ jsonrpc: "2.0", id: 1, method, params }, {
      registry,
      limits: DEFAULT_ENVELOPE_LIMITS,
      logger: NOOP_LOGGER,
    });
    return JSON.parse(text!).result;
  };
  const latestFee = ejsBlobPrice(30_000_000n, 100n);
  assertEquals(await call("eth_blobBaseFee", []), q(latestFee));
  const h = await call("eth_feeHistory", ["0x3", "latest"]);
  assertEquals(h.oldestBlock, "0x1");
  // The next block's excess after b3: 30,000,000 + 9 blobs - the Prague target of 6 blobs.
  const nextExcess = 30_000_000n + 3n * BLOB;
  assertEquals(h.baseFeePerBlobGas, [
    q(ejsBlobPrice(20_000_000n, 10n)),
    q(ejsBlobPrice(20_000_000n + 3n * BLOB, 20n)),
    q(latestFee),
    q(ejsBlobPrice(nextExcess, 100n)),
  ]);
  assertEquals(h.blobGasUsedRatio, [1, 0.5, 1]);
  // Fees rise with the excess, and the Prague fraction is gentler than Cancun's at the same excess.
  assertEquals(blobBaseFee(PLAIN, 30_000_000n, 10n) > latestFee, true);
  // A pre-Cancun header has no blob fields: null from eth_blobBaseFee, zeros in the history.
  const old: ChainConfig = { chainId: 1337n, l1: { shanghaiTime: 0n } };
  const c2 = new ChainStore({}, { store: new MemoryStore() });
  const p = { ...header(undefined, 0n, 0n, 0n), blobGasUsed: undefined, excessBlobGas: undefined };
  c2.putBlock({ header: p, transactions: [] }, []);
  c2.setCanonicalHead(hashHeader(p));
  const r2 = new MethodRegistry([ethNamespace({ ...backend, config: old, chain: c2 })]);
  const text = await handleRpcValue({ jsonrpc: "2.0", id: 1, method: "eth_blobBaseFee", params: [] }, {
    registry: r2,
    limits: DEFAULT_ENVELOPE_LIMITS,
    logger: NOOP_LOGGER,
  });
  assertEquals(JSON.parse(text!).result, null);
  const t2 = await handleRpcValue({
    jsonrpc: "2.0",
    id: 2,
    method: "eth_feeHistory",
    params: ["0x1", "latest"],
  }, {
    registry: r2,
    limits: DEFAULT_ENVELOPE_LIMITS,
    logger: NOOP_LOGGER,
  });
  const h2 = JSON.parse(t2!).result;
  assertEquals([h2.baseFeePerBlobGas, h2.blobGasUsedRatio], [["0x0", "0x0"], [0]]);
});
