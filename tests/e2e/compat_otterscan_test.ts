/**
 * The Otterscan API (ots_*, erigon_getHeaderByNumber) on `keel execution --dev`, beside the real anvil
 * (npm @foundry-rs/anvil), which serves it too: the same transactions (a contract deployed, a call that
 * forwards value, one that creates a contract, one that reverts) and the same questions on both
 * nodes, the answers checked against what happened and their shapes compared.
 */
import { assert, assertEquals } from "../assert.ts";
import { anvilForTest, DEV_ADDRESS, DEV_CHAIN_ID, startAnvil, startKeelExecution } from "./helpers/mod.ts";

/**
 * Creation code of the test contract. Runtime: no calldata -> CALL 0xbeef with the call's value;
 * first byte 1 -> CREATE an empty contract; anything else -> REVERT with 0xdeadbeef.
 */
const FORWARDER =
  "0x603780600b6000396000f33660135760006000600060003461beef5af1005b60003560f81c600114602d5763deadbeef6000526004601cfd5b600060006000f05000";
const BEEF = "0x000000000000000000000000000000000000beef";

type Rpc = (method: string, params?: unknown[]) => Promise<unknown>;

function client(url: string): Rpc {
  let id = 0;
  return async (method, params = []) => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
    });
    const body = await res.json();
    if (body.error !== undefined) throw new Error(`${method}: ${body.error.code} ${body.error.message}`);
    return body.result;
  };
}

interface Receipt {
  status: string;
  blockNumber: string;
  contractAddress: string | null;
  transactionHash: string;
}

/** The JSON types of a value's fields (to compare answers' shapes between the nodes). */
function shape(v: unknown): unknown {
  if (v === null || typeof v !== "object") return typeof v;
  if (Array.isArray(v)) return v.length === 0 ? [] : [shape(v[0])];
  return Object.fromEntries(
    Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)).map((
      [k, x],
    ) => [k, shape(x)]),
  );
}

/** Runs the scenario on one node; returns the answers to compare. */
async function scenario(t: Deno.TestContext, rpc: Rpc): Promise<Record<string, unknown>> {
  const send = async (tx: Record<string, unknown>): Promise<Receipt> => {
    const hash = await rpc("eth_sendTransaction", [{ from: DEV_ADDRESS, ...tx }]);
    for (let i = 0; i < 200; i++) {
      const r = await rpc("eth_getTransactionReceipt", [hash]);
      if (r !== null) return r as Receipt;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`no receipt for ${hash}`);
  };
  const deploy = await send({ data: FORWARDER });
  const forwarder = deploy.contractAddress!;
  const nonce = BigInt(await rpc("eth_getTransactionCount", [DEV_ADDRESS, "latest"]) as string);
  const forward = await send({ to: forwarder, value: "0xa" });
  const create = await send({ to: forwarder, data: "0x01", gas: "0x30000" });
  const revert = await send({ to: forwarder, data: "0x02", gas: "0x30000" });
  assertEquals([deploy, forward, create, revert].map((r) => r.status), ["0x1", "0x1", "0x1", "0x0"]);
  // CREATE from the forwarder at its nonce 1 (EIP-161: a contract starts at 1).
  const ops = await rpc("ots_getInternalOperations", [create.transactionHash]) as {
    type: unknown;
    to: string;
  }[];
  const child = ops.find((op) => String(op.type) === "2")?.to;
  const out: Record<string, unknown> = {};

  await t.step("ots_getApiLevel, ots_hasCode, erigon_getHeaderByNumber", async () => {
    assertEquals(await rpc("ots_getApiLevel"), 8);
    assertEquals(await rpc("ots_hasCode", [forwarder, "latest"]), true);
    assertEquals(await rpc("ots_hasCode", [DEV_ADDRESS, "latest"]), false);
    assertEquals(await rpc("ots_hasCode", [forwarder, "0x0"]), false);
    const header = await rpc("erigon_getHeaderByNumber", [Number(forward.blockNumber)]) as { number: string };
    assertEquals(header.number, forward.blockNumber);
  });

  await t.step("ots_getInternalOperations: the forwarded value, the creation", async () => {
    const ops = await rpc("ots_getInternalOperations", [forward.transactionHash]) as Record<
      string,
      unknown
    >[];
    const inner = ops.filter((op) => op.from !== DEV_ADDRESS.toLowerCase());
    assertEquals(inner.map((op) => [String(op.type), op.from, op.to, op.value]), [[
      "0",
      forwarder,
      BEEF,
      "0xa",
    ]]);
    // anvil also lists the transaction's own transfer (DEV to the forwarder); Erigon, Otterscan's node, and
    // keel list only what happens inside it.
    out.internalOperations = inner.map((op) => ({ ...op, type: String(op.type) }));
    assert(child !== undefined, "a create operation");
    out.createOperations = shape(await rpc("ots_getInternalOperations", [create.transactionHash]));
  });

  await t.step("ots_getTransactionError: the revert data; 0x for a success", async () => {
    assertEquals(await rpc("ots_getTransactionError", [revert.transactionHash]), "0xdeadbeef");
    assertEquals(await rpc("ots_getTransactionError", [forward.transactionHash]), "0x");
  });

  await t.step("ots_traceTransaction: the call tree", async () => {
    const trace = await rpc("ots_traceTransaction", [forward.transactionHash]) as Record<string, unknown>[];
    const calls = trace.map((e) => [String(e.type).toUpperCase(), e.depth, e.from, e.to, e.value]);
    assertEquals(calls, [
      ["CALL", 0, DEV_ADDRESS.toLowerCase(), forwarder, "0xa"],
      ["CALL", 1, forwarder, BEEF, "0xa"],
    ]);
    out.trace = trace.map((e) => ({ type: e.type, keys: Object.keys(e).sort() }));
  });

  await t.step("ots_getBlockDetails, ots_getBlockTransactions", async () => {
    const details = await rpc("ots_getBlockDetails", [Number(forward.blockNumber)]) as {
      block: Record<string, unknown>;
      totalFees: string;
      issuance: unknown;
    };
    assertEquals(details.block.number, forward.blockNumber);
    assertEquals(details.block.transactions, undefined);
    assert(BigInt(details.totalFees) > 0n);
    const byHash = await rpc("ots_getBlockDetailsByHash", [details.block.hash]) as typeof details;
    assertEquals(byHash.totalFees, details.totalFees);
    const page = await rpc("ots_getBlockTransactions", [Number(create.blockNumber), 0, 10]) as {
      fullblock: { transactionCount: number; transactions: { hash: string; input: string }[] };
      receipts: { transactionHash: string; logs: unknown; timestamp: string }[];
    };
    const mine = page.fullblock.transactions.findIndex((tx) => tx.hash === create.transactionHash);
    assert(mine >= 0);
    assertEquals(page.fullblock.transactions[mine].input, "0x01");
    assertEquals(page.receipts[mine].transactionHash, create.transactionHash);
    // Otterscan's node leaves logs out (null); anvil sends them.
    assert(page.receipts[mine].logs === null || Array.isArray(page.receipts[mine].logs));
    assertEquals(page.fullblock.transactionCount, page.fullblock.transactions.length);
    out.details = { issuance: details.issuance, keys: shape({ ...details, block: undefined }) };
    // The fields beside the L1 fee ones of an OP receipt (anvil's L1 chain adds blobGasPrice).
    out.receipt = Object.keys(page.receipts[mine])
      .filter((k) => !k.startsWith("l1") && k !== "depositNonce" && k !== "blobGasPrice").sort();
  });

  await t.step("ots_searchTransactionsBefore / After: the transactions that touch an address", async () => {
    const before = await rpc("ots_searchTransactionsBefore", [BEEF, 0, 10]) as {
      txs: { hash: string }[];
      receipts: unknown[];
      firstPage: boolean;
      lastPage: boolean;
    };
    assertEquals(before.txs.map((tx) => tx.hash), [forward.transactionHash]);
    assertEquals([before.firstPage, before.lastPage], [true, true]);
    const after = await rpc("ots_searchTransactionsAfter", [forwarder, 0, 10]) as typeof before;
    // Newest first: the revert, the create, the forward, the deployment.
    assertEquals(
      after.txs.map((tx) => tx.hash),
      [revert, create, forward, deploy].map((r) => r.transactionHash),
    );
    assertEquals(after.receipts.length, 4);
    // A page of 2 from the newest: filled by the two newest blocks, more to come.
    const first = await rpc("ots_searchTransactionsBefore", [forwarder, 0, 2]) as typeof before;
    assertEquals(first.txs.map((tx) => tx.hash), [revert, create].map((r) => r.transactionHash));
    assertEquals([first.firstPage, first.lastPage], [true, false]);
    // The next page starts below the last block returned and runs out at the genesis.
    const next = await rpc("ots_searchTransactionsBefore", [
      forwarder,
      Number(create.blockNumber),
      10,
    ]) as typeof before;
    assertEquals(next.txs.map((tx) => tx.hash), [forward, deploy].map((r) => r.transactionHash));
    assertEquals([next.firstPage, next.lastPage], [false, true]);
    out.search = [before.firstPage, before.lastPage, after.firstPage, after.lastPage];
  });

  await t.step("ots_getTransactionBySenderAndNonce, ots_getContractCreator", async () => {
    assertEquals(
      await rpc("ots_getTransactionBySenderAndNonce", [DEV_ADDRESS, Number(nonce) + 1]),
      create.transactionHash,
    );
    assertEquals(await rpc("ots_getTransactionBySenderAndNonce", [DEV_ADDRESS, 1_000_000]), null);
    assertEquals(await rpc("ots_getContractCreator", [forwarder]), {
      hash: deploy.transactionHash,
      creator: DEV_ADDRESS.toLowerCase(),
    });
    assertEquals(await rpc("ots_getContractCreator", [child]), {
      hash: create.transactionHash,
      creator: forwarder,
    });
    assertEquals(await rpc("ots_getContractCreator", [BEEF]), null);
    assertEquals(await rpc("ots_getContractCreator", [DEV_ADDRESS]), null);
    const unknown = "0x" + "ab".repeat(32);
    const failed = await rpc("ots_getInternalOperations", [unknown]).then(() => false, () => true);
    assert(failed, "the operations of an unknown transaction: an error");
  });
  return out;
}

Deno.test({
  name: "Otterscan API: the same questions answered alike by anvil and keel execution --dev",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const tool = await anvilForTest("compat_otterscan_test");
    let anvilOut: Record<string, unknown> | undefined;
    if (tool.ok) {
      const anvil = await startAnvil(tool.binary, ["--chain-id", String(DEV_CHAIN_ID)]);
      try {
        await t.step("anvil", async (t) => {
          anvilOut = await scenario(t, client(anvil.url));
        });
      } finally {
        await anvil.stop();
      }
    }
    const node = await startKeelExecution({ ws: false });
    let keelOut: Record<string, unknown> | undefined;
    try {
      await t.step("keel", async (t) => {
        keelOut = await scenario(t, client(node.httpUrl));
      });
    } catch (e) {
      console.error(node.output().slice(-4000));
      throw e;
    } finally {
      await node.stop();
    }
    if (anvilOut !== undefined) assertEquals(keelOut, anvilOut);
  },
});
