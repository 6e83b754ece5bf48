/**
 * EIP-7702 `authorizationList` in call objects (geth TransactionArgs): eth_call, eth_estimateGas and
 * eth_createAccessList apply the authorizations as a set-code transaction does, debug_traceCall too,
 * and eth_sendTransaction (dev mode) sends a type-4 transaction. Signatures are viem's.
 */
import type { EOACode7702Tx } from "@ethereumjs/tx";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { bytesToHex, type Hex } from "../../../../../lib/common/mod.ts";
import { deriveDevAccounts } from "../../../../../lib/execution/genesis/mod.ts";
import { debugNamespace } from "../../../../../lib/execution/rpc/debug/mod.ts";
import { createStateManager } from "../../../../../lib/execution/state/mod.ts";
import { assert, assertEquals } from "../../../../assert.ts";
import { createFixture } from "../fixture.ts";
import { rpc } from "../debug/fixture.ts";

const hex = bytesToHex;
const DEV = deriveDevAccounts();
const [A, B] = DEV;
/** The delegate's code: ADDRESS PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN (returns the executing account). */
const RETURNS_SELF = "0x3060005260206000f3";
const DELEGATE = "0x000000000000000000000000000000000000c0de";
const OVERRIDE = { [DELEGATE]: { code: RETURNS_SELF } };
const word = (address: string) => "0x" + address.slice(2).toLowerCase().padStart(64, "0");

type Auth = { chainId: Hex; address: Hex; nonce: Hex; yParity: Hex; r: Hex; s: Hex };

async function authorize(key: Hex, chainId: bigint, nonce: bigint, address = DELEGATE): Promise<Auth> {
  const signed = await privateKeyToAccount(key).signAuthorization({
    chainId: Number(chainId),
    address: address as Hex,
    nonce: Number(nonce),
  });
  return {
    chainId: `0x${chainId.toString(16)}`,
    address: address as Hex,
    nonce: `0x${nonce.toString(16)}`,
    yParity: `0x${(signed.yParity ?? 0).toString(16)}`,
    r: signed.r,
    s: signed.s,
  };
}

Deno.test("eth_call and eth_estimateGas with an authorizationList: the authority runs the delegate's code", async () => {
  const f = await createFixture();
  const chainId = f.backend.config.chainId;
  const key = generatePrivateKey();
  const authority = privateKeyToAccount(key).address.toLowerCase();
  const auth = await authorize(key, chainId, 0n);
  const call = { from: hex(A.address), to: authority, authorizationList: [auth] };
  // Without the authorization the authority is an empty account: no code runs.
  assertEquals(await f.call("eth_call", [{ from: hex(A.address), to: authority }, "latest", OVERRIDE]), "0x");
  assertEquals(await f.call("eth_call", [call, "latest", OVERRIDE]), word(authority));
  // The state stays as it was.
  assertEquals(await f.call("eth_getCode", [authority, "latest"]), "0x");

  // 25,000 of intrinsic gas per authorization, on top of what running the code costs.
  const plain = BigInt(await f.call<string>("eth_estimateGas", [{ to: DELEGATE }, "latest", OVERRIDE]));
  const estimate = BigInt(await f.call<string>("eth_estimateGas", [call, "latest", OVERRIDE]));
  assertEquals(estimate, plain + 25_000n);
  // An authorization for another chain is skipped, but still paid for.
  const other = await authorize(key, chainId + 1n, 0n);
  const skipped = { ...call, authorizationList: [other] };
  assertEquals(await f.call("eth_call", [skipped, "latest", OVERRIDE]), "0x");
  assertEquals(
    BigInt(await f.call<string>("eth_estimateGas", [skipped, "latest", OVERRIDE])),
    21_000n + 25_000n,
  );
  // A wrong nonce is skipped too.
  const stale = await authorize(key, chainId, 5n);
  assertEquals(await f.call("eth_call", [{ ...call, authorizationList: [stale] }, "latest", OVERRIDE]), "0x");

  // geth's refusals: no recipient, an empty list.
  const create = await f.rpc("eth_call", [{ from: hex(A.address), data: "0x00", authorizationList: [auth] }]);
  assert(create.error?.message.includes("cannot be used to create contract"), JSON.stringify(create.error));
  const empty = await f.rpc("eth_call", [{ ...call, authorizationList: [] }]);
  assert(empty.error?.message.includes("empty auth list"), JSON.stringify(empty.error));
});

Deno.test("eth_createAccessList: an authority that exists earns back 12,500 (capped at a fifth of the gas)", async () => {
  const f = await createFixture();
  const chainId = f.backend.config.chainId;
  const fresh = generatePrivateKey();
  const freshAuth = await authorize(fresh, chainId, 0n);
  // Each authority delegates to the same code and is called: the same gas before the refund.
  const used = async (auth: Auth, to: string) =>
    BigInt(
      (await f.call<{ gasUsed: string }>("eth_createAccessList", [
        { from: hex(A.address), to, authorizationList: [auth] },
        "latest",
        OVERRIDE,
      ])).gasUsed,
    );
  const forFresh = await used(freshAuth, privateKeyToAccount(fresh).address);
  // B is funded in genesis (it exists) and has sent nothing: nonce 0.
  const bKey = hex(B.privateKey) as Hex;
  const forB = await used(await authorize(bKey, chainId, 0n), hex(B.address));
  assertEquals(forFresh - forB, forFresh / 5n < 12_500n ? forFresh / 5n : 12_500n);
});

Deno.test("debug_traceCall with an authorizationList: the traced call runs the delegate's code", async () => {
  const f = await createFixture();
  const chainId = f.backend.config.chainId;
  const key = generatePrivateKey();
  const authority = privateKeyToAccount(key).address.toLowerCase();
  const auth = await authorize(key, chainId, 0n);
  const ns = debugNamespace({
    config: f.backend.config,
    chain: f.chain,
    stateAt: (h) => createStateManager(f.store, h.stateRoot),
    options: { evmTimeoutMs: 5_000, gasCap: 50_000_000n },
  });
  const traced = await rpc([ns], "debug_traceCall", [
    { from: hex(A.address), to: authority, authorizationList: [auth] },
    "latest",
    { tracer: "callTracer", stateOverrides: OVERRIDE },
  ]) as { output: string; gasUsed: string };
  assertEquals(traced.output, word(authority));
});

Deno.test("eth_sendTransaction with an authorizationList sends a type-4 transaction that sets the delegation", async () => {
  const f = await createFixture();
  f.backend.devAccounts = DEV;
  const chainId = f.backend.config.chainId;
  // B delegates, A sends (and pays); B's nonce is 0.
  const auth = await authorize(hex(B.privateKey) as Hex, chainId, 0n, hex(A.address));
  const hash = await f.call<string>("eth_sendTransaction", [{
    from: hex(A.address),
    to: hex(B.address),
    authorizationList: [auth],
  }]);
  const tx = f.pool.get(hash as Hex) as EOACode7702Tx;
  assert(tx !== undefined, "in the pool");
  assertEquals(tx.type, 4);
  assertEquals(tx.authorizationList.length, 1);
  // The estimate counted the authorization.
  assert(tx.gasLimit >= 46_000n, `gas ${tx.gasLimit}`);
  await f.mine([tx]);
  assertEquals(await f.call("eth_getCode", [hex(B.address), "latest"]), "0xef0100" + hex(A.address).slice(2));
  assertEquals(await f.call("eth_getTransactionCount", [hex(B.address), "latest"]), "0x1");
  const got = await f.call<{ type: string; authorizationList: unknown[] }>("eth_getTransactionByHash", [
    hash,
  ]);
  assertEquals(got.type, "0x4");
  assertEquals(got.authorizationList.length, 1);
  // Not for a create, nor for another type.
  const create = await f.rpc("eth_sendTransaction", [{
    from: hex(A.address),
    data: "0x00",
    authorizationList: [auth],
  }]);
  assert(create.error !== undefined);
  const typed = await f.rpc("eth_sendTransaction", [{
    from: hex(A.address),
    to: hex(B.address),
    type: "0x2",
    authorizationList: [auth],
  }]);
  assert(typed.error?.message.includes("not valid for transaction type"), JSON.stringify(typed.error));
});

Deno.test("eth_simulateV1 with an authorizationList: a set-code call in a simulated block", async () => {
  const f = await createFixture();
  const chainId = f.backend.config.chainId;
  const key = generatePrivateKey();
  const authority = privateKeyToAccount(key).address.toLowerCase();
  const auth = await authorize(key, chainId, 0n);
  const [block] = await f.call<{ calls: { status: string; returnData: string }[] }[]>("eth_simulateV1", [{
    blockStateCalls: [{
      stateOverrides: OVERRIDE,
      calls: [
        { from: hex(A.address), to: authority, authorizationList: [auth] },
        // The delegation stays for the next call of the block.
        { from: hex(A.address), to: authority },
      ],
    }],
  }, "latest"]);
  assertEquals(block.calls.map((c) => c.status), ["0x1", "0x1"]);
  assertEquals(block.calls[0].returnData, word(authority));
  assertEquals(block.calls[1].returnData, word(authority));
});
