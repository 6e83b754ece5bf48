import { createFeeMarket1559Tx, type TypedTransaction } from "@ethereumjs/tx";
import { assert, assertEquals, assertThrows } from "../../../../assert.ts";
import { bytesToHex, type Hex, hexToBytes } from "../../../../../lib/common/mod.ts";
import { EMPTY_OMMERS_HASH, hashHeader, type Header, type Log } from "../../../../../lib/protocol/mod.ts";
import {
  DEFAULT_RPC_ENDPOINT,
  DEFAULT_RPC_LIMITS,
  MethodRegistry,
  RpcServer,
} from "../../../../../lib/rpc/mod.ts";
import type { StoredReceipt } from "../../../../../lib/execution/chain/mod.ts";
import { decodingCommon } from "../../../../../lib/execution/txpool/mod.ts";
import {
  ethSubscriptions,
  parseSubscriptionLogFilter,
  type SubscriptionBlock,
  type SubscriptionHeadsEvent,
} from "../../../../../lib/execution/rpc/subscriptions/mod.ts";

/** The deps, driven by the test: the two event sources with their listener sets visible. */
class Sources {
  readonly heads = new Set<(e: SubscriptionHeadsEvent) => void>();
  readonly pending = new Set<(tx: TypedTransaction, hash: Hex) => void>();
  onNewHeads(cb: (e: SubscriptionHeadsEvent) => void): () => void {
    this.heads.add(cb);
    return () => this.heads.delete(cb);
  }
  onPending(cb: (tx: TypedTransaction, hash: Hex) => void): () => void {
    this.pending.add(cb);
    return () => this.pending.delete(cb);
  }
  newHeads(e: SubscriptionHeadsEvent): void {
    for (const cb of [...this.heads]) cb(e);
  }
  newPending(tx: TypedTransaction): void {
    for (const cb of [...this.pending]) cb(tx, bytesToHex(tx.hash()));
  }
}

const b32 = (n: number) => hexToBytes(`0x${n.toString(16).padStart(64, "0")}`);
const addr = (n: number) => hexToBytes(`0x${n.toString(16).padStart(40, "0")}`);

function makeBlock(
  number: bigint,
  parentHash: Uint8Array,
  salt: number,
  logs: Log[][] = [],
): SubscriptionBlock {
  const header: Header = {
    parentHash,
    ommersHash: EMPTY_OMMERS_HASH,
    coinbase: addr(0x4200 + salt),
    stateRoot: b32(1000 + salt),
    transactionsRoot: b32(2000 + salt),
    receiptsRoot: b32(3000 + salt),
    logsBloom: new Uint8Array(256),
    difficulty: 0n,
    number,
    gasLimit: 30_000_000n,
    gasUsed: 21_000n * BigInt(logs.length),
    timestamp: 1_700_000_000n + number * 2n,
    extraData: new Uint8Array(),
    mixHash: b32(salt),
    nonce: new Uint8Array(8),
    baseFeePerGas: 1_000_000n,
    withdrawalsRoot: b32(4000),
    blobGasUsed: 0n,
    excessBlobGas: 0n,
    parentBeaconBlockRoot: b32(5000),
  };
  let logIndexStart = 0;
  const receipts: StoredReceipt[] = logs.map((txLogs, i) => {
    const r: StoredReceipt = {
      type: 2,
      status: 1,
      cumulativeGasUsed: 21_000n * BigInt(i + 1),
      logsBloom: new Uint8Array(256),
      logs: txLogs,
      gasUsed: 21_000n,
      contractAddress: null,
      from: addr(1),
      to: addr(2),
      effectiveGasPrice: 1_000_000n,
      txHash: b32(10_000 * salt + i),
      logIndexStart,
    };
    logIndexStart += txLogs.length;
    return r;
  });
  return { hash: hashHeader(header), block: { header, transactions: [] }, receipts };
}

/** A WebSocket client with a queue of received messages. */
async function openWs(url: string) {
  const ws = new WebSocket(url);
  const messages: Record<string, unknown>[] = [];
  let waiter: (() => void) | undefined;
  ws.onmessage = (e) => {
    messages.push(JSON.parse(e.data as string));
    waiter?.();
  };
  const closed = new Promise<CloseEvent>((resolve) => ws.addEventListener("close", (e) => resolve(e)));
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = (e) => reject(new Error(`ws error ${(e as ErrorEvent).message}`));
  });
  let nextId = 1;
  const next = async (): Promise<Record<string, unknown>> => {
    while (messages.length === 0) await new Promise<void>((r) => (waiter = r));
    return messages.shift()!;
  };
  return {
    next,
    messages,
    async call(method: string, params: unknown[] = []) {
      const id = nextId++;
      ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      return await next() as { id: number; result?: unknown; error?: { code: number; message: string } };
    },
    /** The next notification's result for subscription `sub`. */
    async notification(sub: unknown): Promise<Record<string, unknown> | string> {
      const m = await next();
      assertEquals(m.method, "eth_subscription");
      const params = m.params as { subscription: string; result: Record<string, unknown> | string };
      assertEquals(params.subscription, sub);
      return params.result;
    },
    async close() {
      ws.close();
      await closed;
    },
  };
}

async function withServer(fn: (url: string, sources: Sources) => Promise<void>): Promise<void> {
  const sources = new Sources();
  const server = new RpcServer(
    {
      endpoints: [{
        ...DEFAULT_RPC_ENDPOINT,
        name: "ws",
        port: 0,
        http: false,
        ws: true,
        namespaces: ["eth"],
      }],
      limits: DEFAULT_RPC_LIMITS,
      version: "test",
    },
    { registry: new MethodRegistry([ethSubscriptions(sources)]) },
  );
  await server.start();
  try {
    await fn(server.url("ws", "ws"), sources);
  } finally {
    await server.stop();
  }
}

/** Waits until the server has run the connection's close handling (listeners removed). */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  assert(cond(), "condition not reached within 2 s");
}

Deno.test("newHeads: one header per added block, in geth's header shape; a reorg sends the new branch", async () => {
  await withServer(async (url, sources) => {
    const c = await openWs(url);
    const sub = (await c.call("eth_subscribe", ["newHeads"])).result;
    assertEquals(typeof sub, "string");
    const b1 = makeBlock(1n, b32(0), 1);
    const b2 = makeBlock(2n, b1.hash, 2);
    sources.newHeads({ added: [b1, b2], removed: [] });
    const h1 = await c.notification(sub) as Record<string, unknown>;
    const h2 = await c.notification(sub) as Record<string, unknown>;
    assertEquals(h1.number, "0x1");
    assertEquals(h1.hash, bytesToHex(b1.hash));
    assertEquals(h2.number, "0x2");
    assertEquals(h2.parentHash, bytesToHex(b1.hash));
    assertEquals(Object.keys(h1).sort(), [
      "baseFeePerGas",
      "blobGasUsed",
      "difficulty",
      "excessBlobGas",
      "extraData",
      "gasLimit",
      "gasUsed",
      "hash",
      "logsBloom",
      "miner",
      "mixHash",
      "nonce",
      "number",
      "parentBeaconBlockRoot",
      "parentHash",
      "receiptsRoot",
      "sha3Uncles",
      "stateRoot",
      "timestamp",
      "transactionsRoot",
      "withdrawalsRoot",
    ]);
    assertEquals(h1.gasLimit, "0x1c9c380");
    assertEquals(h1.baseFeePerGas, "0xf4240");
    assertEquals(h1.miner, bytesToHex(addr(0x4201)));
    // Reorg: b2 replaced by b2' and b3'.
    const b2b = makeBlock(2n, b1.hash, 22);
    const b3b = makeBlock(3n, b2b.hash, 33);
    sources.newHeads({ added: [b2b, b3b], removed: [b2] });
    assertEquals((await c.notification(sub) as Record<string, unknown>).hash, bytesToHex(b2b.hash));
    assertEquals((await c.notification(sub) as Record<string, unknown>).hash, bytesToHex(b3b.hash));
    // Unsubscribe stops the source; a second unsubscribe is geth's "subscription not found".
    assertEquals(sources.heads.size, 1);
    assertEquals((await c.call("eth_unsubscribe", [sub])).result, true);
    assertEquals(sources.heads.size, 0);
    assertEquals((await c.call("eth_unsubscribe", [sub])).error?.message, "subscription not found");
    sources.newHeads({ added: [makeBlock(4n, b3b.hash, 4)], removed: [] });
    assertEquals((await c.call("eth_chainId")).error?.code, -32601); // the next message is this reply
    await c.close();
  });
});

Deno.test("logs: address and topic filter (positions, OR, null); removed logs of a reorg first, oldest first", async () => {
  await withServer(async (url, sources) => {
    const c = await openWs(url);
    const A = addr(0xa), B = addr(0xb), C = addr(0xc);
    const T1 = b32(0x71), T2 = b32(0x72), T3 = b32(0x73), X = b32(0x99);
    const filtered = (await c.call("eth_subscribe", [
      "logs",
      {
        address: [bytesToHex(A), bytesToHex(B)],
        topics: [[bytesToHex(T1), bytesToHex(T2)], null, bytesToHex(T3)],
      },
    ])).result;
    const all = (await c.call("eth_subscribe", ["logs", {}])).result;
    assert(typeof filtered === "string" && typeof all === "string" && filtered !== all);
    const log = (address: Uint8Array, topics: Uint8Array[], data = "0x") => ({
      address,
      topics,
      data: hexToBytes(data),
    });
    const b1 = makeBlock(1n, b32(0), 1, [
      [log(A, [T1, X, T3], "0x01"), log(C, [T1, X, T3])], // match, wrong address
      [log(B, [T2, T1, T3, X], "0x02"), log(A, [T1, X]), log(A, [X, X, T3])], // match, too few topics, wrong topic 0
    ]);
    sources.newHeads({ added: [b1], removed: [] });
    // Notifications of the two subscriptions arrive in listener order: filtered first, then all.
    const got1 = await c.notification(filtered) as Record<string, unknown>;
    const got2 = await c.notification(filtered) as Record<string, unknown>;
    assertEquals([got1.data, got2.data], ["0x01", "0x02"]);
    assertEquals(got1.logIndex, "0x0");
    assertEquals(got2.logIndex, "0x2");
    assertEquals(got2.transactionIndex, "0x1");
    assertEquals(got2.transactionHash, bytesToHex(b1.receipts[1].txHash));
    assertEquals(got2.blockHash, bytesToHex(b1.hash));
    assertEquals(got2.blockNumber, "0x1");
    assertEquals(got2.removed, false);
    assertEquals(got2.address, bytesToHex(B));
    assertEquals(got2.topics, [T2, T1, T3, X].map((t) => bytesToHex(t)));
    const allLogs = [];
    for (let i = 0; i < 5; i++) allLogs.push(await c.notification(all) as Record<string, unknown>);
    assertEquals(allLogs.map((l) => l.logIndex), ["0x0", "0x1", "0x2", "0x3", "0x4"]);

    // A reorg dropping b2 and b3 (removed is highest first) and adding b2'.
    const b2 = makeBlock(2n, b1.hash, 2, [[log(A, [T1, X, T3], "0x22")]]);
    const b3 = makeBlock(3n, b2.hash, 3, [[log(A, [T2, X, T3], "0x33")]]);
    const b2b = makeBlock(2n, b1.hash, 4, [[log(B, [T1, X, T3], "0x44")]]);
    await c.call("eth_unsubscribe", [all]);
    sources.newHeads({ added: [b2, b3], removed: [] });
    assertEquals((await c.notification(filtered) as Record<string, unknown>).data, "0x22");
    assertEquals((await c.notification(filtered) as Record<string, unknown>).data, "0x33");
    sources.newHeads({ added: [b2b], removed: [b3, b2] });
    const r1 = await c.notification(filtered) as Record<string, unknown>;
    const r2 = await c.notification(filtered) as Record<string, unknown>;
    const n1 = await c.notification(filtered) as Record<string, unknown>;
    assertEquals([r1.data, r1.removed, r1.blockHash], ["0x22", true, bytesToHex(b2.hash)]);
    assertEquals([r2.data, r2.removed, r2.blockHash], ["0x33", true, bytesToHex(b3.hash)]);
    assertEquals([n1.data, n1.removed, n1.blockHash], ["0x44", false, bytesToHex(b2b.hash)]);
    await c.close();
    // Closing the connection stops the remaining subscription.
    await until(() => sources.heads.size === 0);
  });
});

Deno.test("logs: a bad filter is an invalid-params error and starts nothing", async () => {
  await withServer(async (url, sources) => {
    const c = await openWs(url);
    const bad = await c.call("eth_subscribe", ["logs", { address: "0x12" }]);
    assertEquals(bad.error?.code, -32602);
    assert(bad.error!.message.includes("invalid address"), bad.error!.message);
    const five = await c.call("eth_subscribe", ["logs", { topics: [null, null, null, null, null] }]);
    assertEquals(five.error?.code, -32602);
    assert(five.error!.message.includes("exceed max topics"), five.error!.message);
    assertEquals(sources.heads.size, 0);
    await c.close();
  });
});

Deno.test("syncing: subscribed and unsubscribed as on geth; no notification (the node never syncs)", async () => {
  await withServer(async (url) => {
    const c = await openWs(url);
    const sub = await c.call("eth_subscribe", ["syncing"]);
    assertEquals(typeof sub.result, "string");
    assertEquals(
      (await c.call("eth_subscribe", ["syncing", 1])).error?.message,
      "too many arguments, want at most 1",
    );
    assertEquals((await c.call("eth_unsubscribe", [sub.result])).result, true);
    assertEquals(c.messages.length, 0);
    await c.close();
  });
});

Deno.test("parseSubscriptionLogFilter: single address, null components, and clear errors", () => {
  const f = parseSubscriptionLogFilter({
    address: "0x000000000000000000000000000000000000000a",
    topics: [null, [bytesToHex(b32(1)), null], bytesToHex(b32(2))],
    fromBlock: "latest",
  });
  assertEquals(f.addresses, [addr(0xa)]);
  assertEquals(f.topics, [null, null, [b32(2)]]);
  assertEquals(parseSubscriptionLogFilter({}), { addresses: [], topics: [] });
  assertThrows(() => parseSubscriptionLogFilter("x"), Error, "FilterCriteria");
  assertThrows(() => parseSubscriptionLogFilter({ topics: [5] }), Error, "invalid topic 0");
  assertThrows(() => parseSubscriptionLogFilter({ topics: [["0x01"]] }), Error, "invalid topic 0.0");
  assertThrows(
    () => parseSubscriptionLogFilter({ address: new Array(1001).fill(bytesToHex(addr(1))) }),
    Error,
    "exceed max addresses",
  );
});

Deno.test("newPendingTransactions: hashes, or full pool transactions with true", async () => {
  await withServer(async (url, sources) => {
    const c = await openWs(url);
    const hashes = (await c.call("eth_subscribe", ["newPendingTransactions"])).result;
    const full = (await c.call("eth_subscribe", ["newPendingTransactions", true])).result;
    const key = hexToBytes("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
    const tx = createFeeMarket1559Tx({
      chainId: 901n,
      nonce: 7n,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1_000_000n,
      gasLimit: 21_000n,
      to: addr(0xbeef),
      value: 5n,
    }, { common: decodingCommon(901n) }).sign(key);
    sources.newPending(tx);
    assertEquals(await c.notification(hashes), bytesToHex(tx.hash()));
    const obj = await c.notification(full) as Record<string, unknown>;
    assertEquals(obj.hash, bytesToHex(tx.hash()));
    assertEquals(obj.from, "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266");
    assertEquals(obj.nonce, "0x7");
    assertEquals(obj.value, "0x5");
    assertEquals(obj.to, bytesToHex(addr(0xbeef)));
    assertEquals(obj.blockHash, null);
    assertEquals(obj.blockNumber, null);
    assertEquals(obj.type, "0x2");
    assertEquals(sources.pending.size, 2);
    await c.close();
    await until(() => sources.pending.size === 0);
  });
});
