/** eth_getLogs filters and limits; polling filters with a fake clock. */
import { bytesToHex } from "../../../../lib/common/mod.ts";
import { assertEquals } from "../../../assert.ts";
import { A, B, C, createDeployed, createFixture, deployCode, LOG_TOPIC, LOGGER_RUNTIME } from "./fixture.ts";

const hex = bytesToHex;
const d = await createDeployed({ maxBlockRange: 3n, maxLogs: 2 });
const f = d.fixture;
const callerTopic = (a: Uint8Array) => hex(new Uint8Array(12)) + hex(a).slice(2);

Deno.test("eth_getLogs: address, topics with OR arrays and nulls, range and blockHash", async () => {
  const all = await f.call<Record<string, unknown>[]>("eth_getLogs", [{
    fromBlock: "0x0",
    toBlock: "latest",
  }]);
  assertEquals(all.length, 1);
  assertEquals(all[0].address, hex(d.logger));
  assertEquals(all[0].blockNumber, "0x2");
  assertEquals(all[0].logIndex, "0x0");
  const q = (filter: Record<string, unknown>) =>
    f.call<unknown[]>("eth_getLogs", [{ fromBlock: "0x0", ...filter }]);
  assertEquals((await q({ address: hex(d.logger) })).length, 1);
  assertEquals((await q({ address: [hex(d.reverter), hex(d.logger)] })).length, 1);
  assertEquals((await q({ address: hex(d.reverter) })).length, 0);
  assertEquals((await q({ topics: [hex(LOG_TOPIC)] })).length, 1);
  assertEquals((await q({ topics: [null, callerTopic(A.address)] })).length, 1);
  assertEquals((await q({ topics: [null, [callerTopic(B.address), callerTopic(A.address)]] })).length, 1);
  assertEquals((await q({ topics: [null, callerTopic(B.address)] })).length, 0);
  assertEquals(
    (await q({ topics: [hex(LOG_TOPIC), null, null] })).length,
    0,
    "a third topic position never matches",
  );
  assertEquals((await q({ fromBlock: "0x0", toBlock: "0x1" })).length, 0);
  const byHash = await f.call<unknown[]>("eth_getLogs", [{ blockHash: hex(d.block2.hash) }]);
  assertEquals(byHash, all);
  assertEquals(
    (await f.rpc("eth_getLogs", [{ blockHash: hex(new Uint8Array(32)) }])).error?.message,
    "unknown block",
  );
  const both = await f.rpc("eth_getLogs", [{ blockHash: hex(d.block2.hash), fromBlock: "0x1" }]);
  assertEquals(both.error?.code, -32602);
  const five = await f.rpc("eth_getLogs", [{ topics: [null, null, null, null, null] }]);
  assertEquals(five.error?.code, -32602);
  assertEquals(both.error?.message.startsWith("invalid argument 0: cannot specify both BlockHash"), true);
});

Deno.test("eth_getLogs: reversed, future and pending ranges are refused as the execution-apis tests expect", async () => {
  const g = await createFixture();
  await g.mine([]);
  await g.mine([]); // head 2
  const err = async (filter: Record<string, unknown>) => (await g.rpc("eth_getLogs", [filter])).error;
  const reversed = { code: -32602, message: "invalid block range params" };
  const beyond = { code: -32602, message: "block range extends beyond current head block" };
  // tests/eth_getLogs/filter-error-reversed-block-range.io
  assertEquals(await err({ fromBlock: "0x2", toBlock: "0x1" }), reversed);
  // filter-error-future-block-range.io: the start at or below the head, the end past it.
  assertEquals(await err({ fromBlock: "0x1", toBlock: "0x3" }), beyond);
  // filter-error-fully-future-block-range.io
  assertEquals(await err({ fromBlock: "0x38", toBlock: "0x3a" }), beyond);
  // filter-error-future-block-to-latest.io, and an omitted end (latest)
  assertEquals(await err({ fromBlock: "0x38", toBlock: "latest" }), reversed);
  assertEquals(await err({ fromBlock: "0x3" }), reversed);
  assertEquals(await err({ fromBlock: "pending" }), {
    code: -32000,
    message: "pending logs are not supported",
  });
  assertEquals(await err({ fromBlock: "0x0", toBlock: "pending" }), {
    code: -32000,
    message: "pending logs are not supported",
  });
  // geth's FilterCriteria takes numbers and tags only (rpc.BlockNumber), not EIP-1898 objects.
  assertEquals((await g.rpc("eth_getLogs", [{ fromBlock: { blockNumber: "0x1" } }])).error?.code, -32602);
  assertEquals(await g.call("eth_getLogs", [{ fromBlock: "0x0", toBlock: "0x2" }]), []);
  assertEquals(await g.call("eth_getLogs", [{ fromBlock: "0x2" }]), []);
});

Deno.test("eth_getLogs and eth_newFilter: at most 1,000 addresses and 1,000 topics a position (geth maxSubTopics)", async () => {
  const addresses = (n: number) =>
    Array.from({ length: n }, (_, i) => `0x${(i + 1).toString(16).padStart(40, "0")}`);
  const topics = (n: number) =>
    Array.from({ length: n }, (_, i) => `0x${(i + 1).toString(16).padStart(64, "0")}`);
  const message = "exceed max addresses or topics per search position";
  assertEquals(await f.call("eth_getLogs", [{ fromBlock: "0x0", address: addresses(1000) }]), []);
  for (const method of ["eth_getLogs", "eth_newFilter"]) {
    assertEquals((await f.rpc(method, [{ fromBlock: "0x0", address: addresses(1001) }])).error, {
      code: -32000,
      message,
    });
    const err = (await f.rpc(method, [{ fromBlock: "0x0", topics: [topics(1001)] }])).error;
    assertEquals(err?.code, -32602);
    assertEquals(err?.message.endsWith(message), true, err?.message);
  }
});

Deno.test("eth_newFilter: the ranges geth's SubscribeLogs accepts, and no other", async () => {
  const g = await createFixture();
  await g.mine([]);
  for (
    const ok of [{}, { fromBlock: "0x1" }, { fromBlock: "0x1", toBlock: "0x5" }, { fromBlock: "earliest" }]
  ) {
    assertEquals(typeof await g.call("eth_newFilter", [ok]), "string", JSON.stringify(ok));
  }
  const refused = { code: -32000, message: "invalid block range params" };
  for (const bad of [{ fromBlock: "0x5", toBlock: "0x3" }, { toBlock: "0x3" }, { fromBlock: "safe" }]) {
    assertEquals((await g.rpc("eth_newFilter", [bad])).error, refused, JSON.stringify(bad));
  }
  assertEquals(
    (await g.rpc("eth_newFilter", [{ fromBlock: "pending" }])).error?.message,
    "pending logs are not supported",
  );
});

Deno.test("eth_newPendingTransactionFilter(true): full pending transactions; filter ids are exact", async () => {
  const g = await createFixture();
  const full = await g.call<string>("eth_newPendingTransactionFilter", [true]);
  const hashes = await g.call<string>("eth_newPendingTransactionFilter", [false]);
  const txHash = await g.pool.add(g.sign(C, 0n, { to: A.address, value: 1n, gas: 21_000n }).serialize());
  const [tx] = await g.call<Record<string, unknown>[]>("eth_getFilterChanges", [full]);
  assertEquals(tx.hash, txHash);
  assertEquals(tx.blockHash, null);
  assertEquals(tx.from, hex(C.address));
  assertEquals(tx.value, "0x1");
  assertEquals(await g.call("eth_getFilterChanges", [hashes]), [txHash]);
  assertEquals(
    (await g.rpc("eth_getFilterChanges", [full.toUpperCase().replace("0X", "0x")])).error?.message,
    "filter not found",
  );
});

Deno.test("eth_getLogs: the block-range limit and the result cap answer -32005", async () => {
  await f.mine([]);
  await f.mine([]);
  const range = await f.rpc("eth_getLogs", [{ fromBlock: "0x0", toBlock: "latest" }]);
  assertEquals(range.error, { code: -32005, message: "query exceeds max block range 3" });
  // Three more logs in one block: over the cap of 2.
  const word = new Uint8Array(32).fill(1);
  await f.mine([
    f.sign(A, 6n, { to: d.logger, data: word }),
    f.sign(A, 7n, { to: d.logger, data: word }),
    f.sign(A, 8n, { to: d.logger, data: word }),
  ]);
  const cap = await f.rpc("eth_getLogs", [{ fromBlock: "latest" }]);
  assertEquals(cap.error, { code: -32005, message: "query returned more than 2 results" });
});

Deno.test("filters: log, block and pending filters; changes since the last poll; expiry after 5 idle minutes", async () => {
  const g = await createFixture();
  const logs = await g.call<string>("eth_newFilter", [{ topics: [hex(LOG_TOPIC)] }]);
  const blocks = await g.call<string>("eth_newBlockFilter");
  const pending = await g.call<string>("eth_newPendingTransactionFilter");
  const deployed = await g.mine([g.sign(A, 0n, { data: deployCode(LOGGER_RUNTIME) })]);
  const logger = deployed.results[0].contractAddress!;
  const b2 = await g.mine([g.sign(A, 1n, { to: logger, data: new Uint8Array(32).fill(3) })]);
  assertEquals(await g.call("eth_getFilterChanges", [blocks]), [hex(deployed.hash), hex(b2.hash)]);
  assertEquals(await g.call("eth_getFilterChanges", [blocks]), []);
  const changes = await g.call<Record<string, unknown>[]>("eth_getFilterChanges", [logs]);
  assertEquals(changes.length, 1);
  assertEquals(changes[0].blockHash, hex(b2.hash));
  assertEquals(await g.call("eth_getFilterChanges", [logs]), []);
  const filterLogs = await g.call<unknown[]>("eth_getFilterLogs", [logs]);
  assertEquals(filterLogs, changes);
  const txHash = await g.pool.add(g.sign(C, 0n, { to: A.address, value: 1n, gas: 21_000n }).serialize());
  assertEquals(await g.call("eth_getFilterChanges", [pending]), [txHash]);
  // 5 minutes idle: the block filter expires, the log filter polled just now does not.
  g.now.ms += 4 * 60 * 1000;
  await g.call("eth_getFilterChanges", [logs]);
  g.now.ms += 2 * 60 * 1000;
  assertEquals((await g.rpc("eth_getFilterChanges", [blocks])).error, {
    code: -32000,
    message: "filter not found",
  });
  assertEquals(await g.call("eth_getFilterChanges", [logs]), []);
  assertEquals(await g.call("eth_uninstallFilter", [logs]), true);
  assertEquals(await g.call("eth_uninstallFilter", [logs]), false);
  assertEquals(g.filters.size, 0);
});

Deno.test("filters: removed logs are reported with removed: true on a reorg", async () => {
  const g = await createFixture();
  const id = await g.call<string>("eth_newFilter", [{}]);
  const deployed = await g.mine([g.sign(A, 0n, { data: deployCode(LOGGER_RUNTIME) })]);
  const logger = deployed.results[0].contractAddress!;
  const b2 = await g.mine([g.sign(A, 1n, { to: logger, data: new Uint8Array(32).fill(3) })]);
  assertEquals((await g.call<unknown[]>("eth_getFilterChanges", [id])).length, 1);
  g.filters.onNewHeads({ added: [], removed: [g.chain.getBlockRef(b2.hash)!] });
  const removed = await g.call<Record<string, unknown>[]>("eth_getFilterChanges", [id]);
  assertEquals(removed.length, 1);
  assertEquals(removed[0].removed, true);
  assertEquals(removed[0].blockHash, hex(b2.hash));
  // The engine's NewHeadsEvent items ({hash, block}) fit as they are.
  g.filters.onNewHeads({ added: [{ hash: b2.hash, block: g.chain.getBlockByHash(b2.hash)! }], removed: [] });
  const readded = await g.call<Record<string, unknown>[]>("eth_getFilterChanges", [id]);
  assertEquals(readded.map((l) => l.removed), [false]);
});
