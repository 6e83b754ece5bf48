import { assertEquals, assertThrows } from "../../assert.ts";
import { BaseError } from "../../../lib/common/mod.ts";
import {
  aliasNamespace,
  defineMethod,
  defineSubscription,
  MethodRegistry,
  namespaceOf,
  parseParams,
  switchedNamespace,
} from "../../../lib/rpc/registry.ts";
import { RpcError } from "../../../lib/rpc/rpc_error.ts";
import { s } from "../../../lib/rpc/schema.ts";

const getBalance = defineMethod({
  name: "eth_getBalance",
  params: [s.address(), s.optional(s.blockTag())],
  handler: ([address, block]) => {
    // The handler's params are typed: address is Uint8Array, block is BlockSpec | undefined.
    const n: number = address.length;
    return { n, block: block?.kind ?? "none" };
  },
});
const chainId = defineMethod({ name: "eth_chainId", params: [], handler: () => "0x1" });
const version = defineMethod({ name: "net_version", params: [], handler: () => "1" });
const heads = defineSubscription({
  namespace: "eth",
  name: "newHeads",
  params: [],
  start: () => () => {},
});

Deno.test("defineMethod counts required params and refuses a required one after an optional", () => {
  assertEquals(getBalance.required, 1);
  assertEquals(chainId.required, 0);
  assertThrows(
    () => defineMethod({ name: "eth_x", params: [s.optional(s.bool()), s.bool()], handler: () => null }),
    BaseError,
    "required param 1 follows an optional one",
  );
  assertThrows(
    () => defineMethod({ name: "nonamespace", params: [], handler: () => null }),
    BaseError,
    "want <namespace>_<method>",
  );
});

Deno.test("parseParams: geth's messages for too many, missing and invalid arguments", () => {
  const p = getBalance.params;
  assertEquals(parseParams(p, 1, ["0x" + "11".repeat(20)])[1], undefined);
  assertEquals(parseParams(p, 1, ["0x" + "11".repeat(20), null])[1], undefined);
  const cases: [unknown, string][] = [
    [[], "missing value for required argument 0"],
    [undefined, "missing value for required argument 0"],
    [["0xabc"], "invalid argument 0: hex string has length 3, want 40 for common.Address"],
    [
      ["0x" + "11".repeat(20), "bad"],
      "invalid argument 1: json: cannot unmarshal hex string without 0x prefix",
    ],
    [["0x" + "11".repeat(20), "latest", 1], "too many arguments, want at most 2"],
    [{ a: 1 }, "non-array args"],
  ];
  for (const [raw, message] of cases) {
    const err = assertThrows(() => parseParams(p, 1, raw), RpcError);
    assertEquals((err as RpcError).code, -32602);
    assertEquals(err.message.startsWith(message), true, `${err.message} should start with ${message}`);
  }
  const shifted = assertThrows(() => parseParams([s.bool()], 1, ["x"], 1), RpcError);
  assertEquals(shifted.message.startsWith("invalid argument 1:"), true);
});

Deno.test("MethodRegistry registers namespaces, selects by prefix, merges", () => {
  const reg = new MethodRegistry([{ getBalance, chainId, heads }, { version }]);
  assertEquals(reg.namespaces(), ["eth", "net"]);
  assertEquals(reg.methodNames(), ["eth_chainId", "eth_getBalance", "net_version"]);
  assertEquals(reg.method("eth_chainId"), chainId);
  assertEquals(reg.subscription("eth", "newHeads"), heads);
  assertEquals(reg.hasSubscriptions("eth"), true);
  assertEquals(reg.hasSubscriptions("net"), false);

  const onlyNet = reg.select(["net"]);
  assertEquals(onlyNet.methodNames(), ["net_version"]);
  assertEquals(onlyNet.hasSubscriptions("eth"), false);
  assertEquals(reg.select(["*"]).methodNames().length, 3);

  assertThrows(
    () => reg.register({ chainId: defineMethod({ name: "eth_chainId", params: [], handler: () => "0x2" }) }),
    BaseError,
    "already registered",
  );

  const merged = MethodRegistry.merge([reg.select(["eth"]), reg.select(["net"]), reg.select(["eth"])]);
  assertEquals(merged.methodNames(), ["eth_chainId", "eth_getBalance", "net_version"]);
  const other = new MethodRegistry([{
    c: defineMethod({ name: "eth_chainId", params: [], handler: () => "0x2" }),
  }]);
  assertThrows(() => MethodRegistry.merge([reg, other]), BaseError, "eth_chainId: already registered");
  assertEquals(namespaceOf("engine_newPayloadV4"), "engine");
});

Deno.test("withModules: rpc_modules answers each namespace served and rpc at 1.0; the registry itself is unchanged", async () => {
  const reg = new MethodRegistry([{ getBalance, chainId, heads }, { version }]);
  const served = reg.withModules();
  assertEquals(reg.method("rpc_modules"), undefined);
  assertEquals(served.namespaces(), ["eth", "net", "rpc"]);
  const def = served.method("rpc_modules")!;
  assertEquals(await def.handler([] as never, {} as never), { eth: "1.0", net: "1.0", rpc: "1.0" });
  assertEquals(served.withModules().method("rpc_modules"), def); // once
  assertEquals(
    await reg.select(["net"]).withModules().method("rpc_modules")!.handler([] as never, {} as never),
    {
      net: "1.0",
      rpc: "1.0",
    },
  );
});

Deno.test("handler params are inferred from the schemas (checked by deno check)", async () => {
  const m = defineMethod({
    name: "eth_call",
    params: [s.object({ to: s.address(), value: s.optional(s.quantity()) }), s.optional(s.blockTag())],
    handler: ([call, block]) => {
      const to: Uint8Array = call.to;
      const value: bigint | undefined = call.value;
      // @ts-expect-error the value is a bigint, not a string
      const wrong: string = call.value;
      const kind: "tag" | "number" | "hash" | undefined = block?.kind;
      return [
        to.length,
        value === undefined ? "none" : `0x${value.toString(16)}`,
        kind ?? "none",
        typeof wrong,
      ];
    },
  });
  const params = parseParams(m.params, m.required, [{ to: "0x" + "22".repeat(20), value: "0x10" }, "latest"]);
  assertEquals(await m.handler(params as never, {}), [20, "0x10", "tag", "bigint"]);
});

Deno.test("aliasNamespace: the same handlers under another namespace name; other namespaces left out", async () => {
  const ns = {
    self: defineMethod({ name: "nodep2p_self", params: [], handler: () => "me" }),
    add: defineMethod({ name: "nodep2p_add", params: [s.uint64()], handler: ([n]) => n + 1n }),
    other: defineMethod({ name: "other_x", params: [], handler: () => 0 }),
  };
  const alias = aliasNamespace(ns, "nodep2p", "opp2p");
  assertEquals(Object.values(alias).map((d) => d.name).sort(), ["opp2p_add", "opp2p_self"]);
  const registry = new MethodRegistry([ns, alias]);
  assertEquals(registry.select(["opp2p"]).methodNames().sort(), ["opp2p_add", "opp2p_self"]);
  assertEquals(registry.method("nodep2p_self")?.name, "nodep2p_self");
  assertEquals(await registry.method("opp2p_add")?.handler([2n] as never, {} as never), 3n);
});

Deno.test("switchedNamespace: each call goes to the registry current at the time; a name it lacks is not found", async () => {
  const ctx = {} as Parameters<typeof chainId.handler>[1];
  const one = new MethodRegistry([{ chainId, version }]);
  const two = new MethodRegistry([{
    chainId: defineMethod({ name: "eth_chainId", params: [], handler: () => "0x2" }),
  }]);
  let current = one;
  const switched = new MethodRegistry([switchedNamespace(one, () => current)]);
  assertEquals(switched.methodNames(), ["eth_chainId", "net_version"]);
  // The template's schemas stay: the server parses with them.
  assertEquals(switched.method("eth_chainId")!.params, chainId.params);
  assertEquals(await switched.method("eth_chainId")!.handler([], ctx), "0x1");
  current = two;
  assertEquals(await switched.method("eth_chainId")!.handler([], ctx), "0x2");
  const missing = (() => {
    try {
      switched.method("net_version")!.handler([], ctx);
    } catch (e) {
      return e;
    }
  })();
  assertEquals((missing as RpcError).code, RpcError.methodNotFound("net_version").code);
  // Subscriptions are not the switched namespace's.
  assertEquals(
    new MethodRegistry([switchedNamespace(new MethodRegistry([{ heads }]), () => one)]).hasSubscriptions(
      "eth",
    ),
    false,
  );
});
