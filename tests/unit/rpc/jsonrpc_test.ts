import { assert, assertEquals, assertStringIncludes } from "../../assert.ts";
import { BaseError } from "../../../lib/common/mod.ts";
import {
  bodyText,
  DEFAULT_ENVELOPE_LIMITS,
  type DispatchContext,
  handleRpcBody,
  handleRpcText,
  handleRpcValue,
  RawJson,
} from "../../../lib/rpc/jsonrpc.ts";
import { JsonBytes } from "../../../lib/rpc/json_bytes.ts";
import { defineMethod, MethodRegistry } from "../../../lib/rpc/registry.ts";
import { RpcError } from "../../../lib/rpc/rpc_error.ts";
import { s } from "../../../lib/rpc/schema.ts";
import type { RpcLogger } from "../../../lib/rpc/types.ts";

function recordingLogger(): RpcLogger & { errors: { message: string; context?: Record<string, unknown> }[] } {
  const errors: { message: string; context?: Record<string, unknown> }[] = [];
  return {
    errors,
    debug() {},
    info() {},
    warn() {},
    error: (message, context) => errors.push({ message, context }),
  };
}

let notified = 0;
const registry = new MethodRegistry([{
  echo: defineMethod({ name: "test_echo", params: [s.string()], handler: ([v]) => v }),
  add: defineMethod({
    name: "test_add",
    params: [s.quantity(), s.optional(s.quantity())],
    handler: ([a, b]) => `0x${(a + (b ?? 0n)).toString(16)}`,
  }),
  asyncEcho: defineMethod({
    name: "test_asyncEcho",
    params: [s.string()],
    handler: async ([v]) => {
      await Promise.resolve();
      return v;
    },
  }),
  big: defineMethod({ name: "test_big", params: [], handler: () => ({ value: 1n }) }),
  nothing: defineMethod({ name: "test_nothing", params: [], handler: () => undefined }),
  revert: defineMethod({
    name: "test_revert",
    params: [],
    handler: () => {
      throw RpcError.reverted("0x08c379a0", "not owner");
    },
  }),
  fail: defineMethod({
    name: "test_fail",
    params: [],
    handler: () => {
      throw new BaseError("NONCE_TOO_LOW", "nonce too low");
    },
  }),
  crash: defineMethod({
    name: "test_crash",
    params: [],
    handler: () => {
      throw new TypeError("x is undefined");
    },
  }),
  notify: defineMethod({
    name: "test_notify",
    params: [],
    handler: () => {
      notified++;
      return true;
    },
  }),
  sized: defineMethod({ name: "test_sized", params: [s.uint64()], handler: ([n]) => "x".repeat(Number(n)) }),
  raw: defineMethod({
    name: "test_raw",
    params: [s.uint64()],
    handler: ([n]) =>
      new RawJson(`[${Array.from({ length: Number(n) }, (_, i) => `{"i":"0x${i}"}`).join(",")}]`),
  }),
  rawBytes: defineMethod({
    name: "test_rawBytes",
    params: [s.uint64()],
    handler: ([n]) => {
      const w = new JsonBytes(8).ascii("[");
      for (let i = 0; i < Number(n); i++) w.ascii(i === 0 ? '{"i":' : ',{"i":').quantity(i).ascii("}");
      return new RawJson(w.ascii("]").bytes());
    },
  }),
}]);

function ctx(limits = DEFAULT_ENVELOPE_LIMITS, logger: RpcLogger = recordingLogger()): DispatchContext {
  return { registry, limits, logger };
}

async function call(body: unknown, c: DispatchContext = ctx()): Promise<unknown> {
  const text = await handleRpcText(typeof body === "string" ? body : JSON.stringify(body), c);
  return text === undefined ? undefined : JSON.parse(text);
}

const req = (id: unknown, method: string, params?: unknown) => ({ jsonrpc: "2.0", id, method, params });

Deno.test("single call: result, id echoed (number, string, null)", async () => {
  assertEquals(await call(req(1, "test_echo", ["hi"])), { jsonrpc: "2.0", id: 1, result: "hi" });
  assertEquals(await call(req("a", "test_asyncEcho", ["x"])), { jsonrpc: "2.0", id: "a", result: "x" });
  assertEquals(await call(req(null, "test_add", ["0x1", "0x2"])), {
    jsonrpc: "2.0",
    id: null,
    result: "0x3",
  });
  assertEquals(await call(req(2, "test_add", ["0x1"])), { jsonrpc: "2.0", id: 2, result: "0x1" });
  assertEquals(await call(req(3, "test_nothing")), { jsonrpc: "2.0", id: 3, result: null });
});

Deno.test("-32700 parse error with id null", async () => {
  assertEquals(await call("{not json"), {
    jsonrpc: "2.0",
    id: null,
    error: { code: -32700, message: "parse error" },
  });
});

Deno.test("-32600 invalid request: non-object, missing method, bad id", async () => {
  const invalid = (id: unknown) => ({
    jsonrpc: "2.0",
    id,
    error: { code: -32600, message: "invalid request" },
  });
  assertEquals(await call(1), invalid(null));
  assertEquals(await call({ jsonrpc: "2.0", id: 4 }), invalid(4));
  assertEquals(await call({ jsonrpc: "2.0", id: 5, method: 7 }), invalid(5));
  assertEquals(await call({ jsonrpc: "2.0", id: { a: 1 }, method: "test_echo" }), invalid(null));
});

Deno.test("-32601 method not found, geth's message", async () => {
  assertEquals(await call(req(1, "eth_nope")), {
    jsonrpc: "2.0",
    id: 1,
    error: { code: -32601, message: "the method eth_nope does not exist/is not available" },
  });
});

Deno.test("-32602 invalid params names the argument", async () => {
  const r = await call(req(1, "test_add", ["12"])) as { error: { code: number; message: string } };
  assertEquals(r.error.code, -32602);
  assertEquals(
    r.error.message,
    "invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type *hexutil.Big",
  );
  const many = await call(req(1, "test_add", ["0x1", "0x1", "0x1"])) as { error: { message: string } };
  assertEquals(many.error.message, "too many arguments, want at most 2");
  const missing = await call(req(1, "test_add", [])) as { error: { message: string } };
  assertEquals(missing.error.message, "missing value for required argument 0");
});

Deno.test("code 3 revert with data; BaseError -> -32000; unexpected -> -32603 and logged", async () => {
  assertEquals(await call(req(1, "test_revert")), {
    jsonrpc: "2.0",
    id: 1,
    error: { code: 3, message: "execution reverted: not owner", data: "0x08c379a0" },
  });
  assertEquals(await call(req(1, "test_fail")), {
    jsonrpc: "2.0",
    id: 1,
    error: { code: -32000, message: "nonce too low" },
  });
  const logger = recordingLogger();
  assertEquals(await call(req(1, "test_crash"), ctx(DEFAULT_ENVELOPE_LIMITS, logger)), {
    jsonrpc: "2.0",
    id: 1,
    error: { code: -32603, message: "internal error" },
  });
  assertEquals(logger.errors.length, 1);
  assertStringIncludes(String(logger.errors[0].context?.error), "x is undefined");
});

Deno.test("a bigint in a result is -32603 with a clear log, not a crash", async () => {
  const logger = recordingLogger();
  assertEquals(await call(req(9, "test_big"), ctx(DEFAULT_ENVELOPE_LIMITS, logger)), {
    jsonrpc: "2.0",
    id: 9,
    error: { code: -32603, message: "internal error" },
  });
  assertEquals(logger.errors.length, 1);
  assertStringIncludes(logger.errors[0].message, "not bigint");
  assertEquals(logger.errors[0].context?.method, "test_big");
});

Deno.test("notifications run and get no response; all-notification batch -> nothing", async () => {
  const before = notified;
  assertEquals(await call({ jsonrpc: "2.0", method: "test_notify" }), undefined);
  assertEquals(notified, before + 1);
  assertEquals(await call({ jsonrpc: "2.0", method: "eth_unknown" }), undefined);
  assertEquals(
    await call([{ jsonrpc: "2.0", method: "test_notify" }, { jsonrpc: "2.0", method: "test_notify" }]),
    undefined,
  );
  assertEquals(notified, before + 3);
});

Deno.test("batch: responses in order, notifications skipped, invalid items answered", async () => {
  const r = await call([
    req(1, "test_echo", ["a"]),
    { jsonrpc: "2.0", method: "test_notify" },
    5,
    req(2, "eth_nope"),
    req(3, "test_add", ["0x2", "0x2"]),
  ]);
  assertEquals(r, [
    { jsonrpc: "2.0", id: 1, result: "a" },
    { jsonrpc: "2.0", id: null, error: { code: -32600, message: "invalid request" } },
    {
      jsonrpc: "2.0",
      id: 2,
      error: { code: -32601, message: "the method eth_nope does not exist/is not available" },
    },
    { jsonrpc: "2.0", id: 3, result: "0x4" },
  ]);
});

Deno.test("empty batch -> one -32600 'empty batch' (not an array)", async () => {
  assertEquals(await call([]), { jsonrpc: "2.0", id: null, error: { code: -32600, message: "empty batch" } });
});

Deno.test("batch too large -> [-32600 'batch too large'] with the first call's id", async () => {
  const limits = { ...DEFAULT_ENVELOPE_LIMITS, batchItemLimit: 3 };
  const body = [
    { jsonrpc: "2.0", method: "test_notify" },
    ...[7, 8, 9].map((id) => req(id, "test_echo", ["x"])),
  ];
  assertEquals(await call(body, ctx(limits)), [
    { jsonrpc: "2.0", id: 7, error: { code: -32600, message: "batch too large" } },
  ]);
  // The default limit is geth's 1000.
  const ok = await call(Array.from({ length: 1000 }, (_, i) => req(i, "test_echo", ["x"]))) as unknown[];
  assertEquals(ok.length, 1000);
  const tooMany = await call(Array.from({ length: 1001 }, (_, i) => req(i, "test_echo", ["x"]))) as unknown[];
  assertEquals(tooMany.length, 1);
});

Deno.test("batch response too large -> remaining calls get -32003", async () => {
  const limits = { ...DEFAULT_ENVELOPE_LIMITS, batchResponseMaxSize: 250 };
  const r = await call([
    req(1, "test_sized", ["0x64"]),
    req(2, "test_sized", ["0xc8"]), // crosses the limit: still answered (geth keeps it)
    req(3, "test_sized", ["0x1"]),
    { jsonrpc: "2.0", method: "test_notify" },
    req(4, "test_echo", ["x"]),
  ], ctx(limits)) as { id: number; result?: string; error?: { code: number; message: string } }[];
  assertEquals(r.length, 4);
  assertEquals(r[0].result?.length, 100);
  assertEquals(r[1].result?.length, 200);
  assertEquals(
    r[2],
    { jsonrpc: "2.0", id: 3, error: { code: -32003, message: "response too large" } } as never,
  );
  assertEquals(r[3].error, { code: -32003, message: "response too large" });
});

Deno.test("subscribe over a transport without subscriptions: 'notifications not supported'", async () => {
  const withSubs = new MethodRegistry([{
    heads: {
      kind: "subscription",
      namespace: "eth",
      name: "newHeads",
      params: [],
      required: 0,
      start: () => () => {},
    },
  }]);
  const r = await call(req(1, "eth_subscribe", ["newHeads"]), {
    registry: withSubs,
    limits: DEFAULT_ENVELOPE_LIMITS,
    logger: recordingLogger(),
  });
  assertEquals(r, { jsonrpc: "2.0", id: 1, error: { code: -32601, message: "notifications not supported" } });
});

Deno.test("RawJson of bytes: the HTTP body is bytes, alone and in a batch with text answers", async () => {
  const one = await handleRpcBody(JSON.stringify(req(3, "test_rawBytes", ["0x3"])), ctx());
  assert(one instanceof Uint8Array, "a byte result makes a byte body");
  assertEquals(bodyText(one), '{"jsonrpc":"2.0","id":3,"result":[{"i":"0x0"},{"i":"0x1"},{"i":"0x2"}]}');
  const batch = await handleRpcBody(
    JSON.stringify([req(1, "test_echo", ["é"]), req(2, "test_rawBytes", ["0x1000"]), req(3, "test_nope")]),
    ctx(),
  );
  assert(batch instanceof Uint8Array);
  const parsed = JSON.parse(bodyText(batch)) as { id: number; result?: unknown[]; error?: unknown }[];
  assertEquals(parsed.map((p) => p.id), [1, 2, 3]);
  assertEquals(parsed[0].result, "é" as unknown);
  assertEquals(parsed[1].result?.length, 4096);
  assertEquals(parsed[1].result?.[4095], { i: "0xfff" });
  assert(parsed[2].error !== undefined);
  // Text results keep a text body; handleRpcText gives text for byte bodies too.
  assertEquals(typeof await handleRpcBody(JSON.stringify(req(4, "test_echo", ["x"])), ctx()), "string");
  assertEquals(
    await handleRpcText(JSON.stringify(req(5, "test_rawBytes", ["0x1"])), ctx()),
    '{"jsonrpc":"2.0","id":5,"result":[{"i":"0x0"}]}',
  );
  // The batch size limit counts byte results too.
  const limits = { ...DEFAULT_ENVELOPE_LIMITS, batchResponseMaxSize: 20 };
  const out = await call(
    [req(1, "test_rawBytes", ["0x3"]), req(2, "test_rawBytes", ["0x1"])],
    ctx(limits),
  ) as {
    error?: { message: string };
  }[];
  assertStringIncludes(out[1].error?.message ?? "", "response too large");
});

Deno.test("RawJson: pre-serialised results go out as they are, counted against the batch size limit", async () => {
  assertEquals(await call(req(7, "test_raw", ["0x2"])), {
    jsonrpc: "2.0",
    id: 7,
    result: [{ i: "0x0" }, { i: "0x1" }],
  });
  const text = await handleRpcText(JSON.stringify(req(8, "test_raw", ["0x0"])), ctx());
  assertEquals(text, '{"jsonrpc":"2.0","id":8,"result":[]}');
  // 20 items make 251 characters: the first call crosses 250 bytes (still answered, as geth does);
  // the next one gets the error.
  const first = JSON.stringify((await call(req(0, "test_raw", ["0x14"])) as { result: unknown }).result);
  assertEquals(first.length, 251);
  const limits = { ...DEFAULT_ENVELOPE_LIMITS, batchResponseMaxSize: 250 };
  const out = await call([req(1, "test_raw", ["0x14"]), req(2, "test_raw", ["0x1"])], ctx(limits)) as {
    result?: unknown[];
    error?: { message: string };
  }[];
  assertEquals(out.length, 2);
  assertEquals(out[0].result?.length, 20);
  assertStringIncludes(out[1].error?.message ?? "", "response too large");
});

Deno.test("onCall hears each call answered, sync or async, result or error, batch items one by one", async () => {
  const registry = new MethodRegistry([{
    now: defineMethod({ name: "t_now", params: [], handler: () => 1 }),
    later: defineMethod({
      name: "t_later",
      params: [],
      handler: () => new Promise((r) => setTimeout(() => r(2), 20)),
    }),
    fails: defineMethod({
      name: "t_fails",
      params: [],
      handler: () => {
        throw new Error("no");
      },
    }),
  }]);
  const heard: [string, number][] = [];
  const ctx = {
    registry,
    limits: DEFAULT_ENVELOPE_LIMITS,
    logger: recordingLogger(),
    onCall: (method: string, seconds: number) => heard.push([method, seconds]),
  };
  await handleRpcValue([
    { jsonrpc: "2.0", id: 1, method: "t_now" },
    { jsonrpc: "2.0", id: 2, method: "t_later" },
    { jsonrpc: "2.0", id: 3, method: "t_fails" },
  ], ctx);
  assertEquals(heard.map(([m]) => m).sort(), ["t_fails", "t_later", "t_now"]);
  const later = heard.find(([m]) => m === "t_later")![1];
  assertEquals(later >= 0.015 && later < 5, true, String(later));
});
