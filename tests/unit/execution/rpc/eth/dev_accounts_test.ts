/**
 * The dev-account methods of `keel execution --dev` (anvil's): eth_accounts, eth_sendTransaction,
 * eth_signTransaction, eth_sign / personal_sign (EIP-191) and eth_signTypedData(_v4) (EIP-712),
 * through the RPC dispatcher on the fixture chain.
 */
import type { FeeMarket1559Tx, LegacyTx } from "@ethereumjs/tx";
import {
  parseTransaction,
  recoverMessageAddress,
  recoverTransactionAddress,
  recoverTypedDataAddress,
  type TransactionSerialized,
  type TransactionSerializedEIP1559,
} from "viem";
import { signMessage, signTypedData } from "viem/accounts";
import { bytesToHex, type Hex, hexToBytes, keccak256 } from "../../../../../lib/common/mod.ts";
import { deriveDevAccounts } from "../../../../../lib/execution/genesis/mod.ts";
import { sharedSenderCache } from "../../../../../lib/execution/evm/mod.ts";
import { assert, assertEquals } from "../../../../assert.ts";
import { createFixture, deployCode, ETHER, GWEI, LOGGER_RUNTIME } from "../fixture.ts";

const hex = bytesToHex;
const DEV = deriveDevAccounts();
const [A, B] = DEV;
const A_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
/** An address that is not a dev account. */
const STRANGER = "0x1111111111111111111111111111111111111111";

/** A fixture whose backend holds the 10 dev accounts (the first 4 are funded in its genesis). */
async function devFixture(options: Parameters<typeof createFixture>[0] = {}) {
  const f = await createFixture(options);
  f.backend.devAccounts = DEV;
  return f;
}

async function rpcError(f: Awaited<ReturnType<typeof createFixture>>, method: string, params: unknown[]) {
  const res = await f.rpc(method, params);
  assert(res.error !== undefined, `${method}: want an error, got ${JSON.stringify(res.result)}`);
  return res.error;
}

Deno.test("eth_accounts: the dev accounts' addresses in order, lowercase; none without dev accounts", async () => {
  const f = await createFixture();
  assertEquals(await f.call("eth_accounts"), []);
  f.backend.devAccounts = DEV;
  const accounts = await f.call<string[]>("eth_accounts");
  assertEquals(accounts.length, 10);
  assertEquals(accounts[0], "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266");
  assertEquals(accounts[1], "0x70997970c51812dc3a010c7d01b50e0d17dc79c8");
  assertEquals(accounts, DEV.map((a) => hex(a.address)));
  // anvil's alias, and eth_networkId (net_version's answer).
  assertEquals(await f.call("eth_requestAccounts"), accounts);
  assertEquals(await f.call("eth_networkId"), f.backend.config.chainId.toString(10));
});

Deno.test("eth_sendTransaction: a transfer gets the pool nonce, EIP-1559 fees, the chain id and a 21000 estimate", async () => {
  const f = await devFixture();
  const head = f.chain.getHeadHeader("latest")!;
  const baseFee = head.baseFeePerGas!;
  assert(baseFee > 0n);
  const tip = f.backend.options.minSuggestedPriorityFee;

  const hash = await f.call<string>("eth_sendTransaction", [{
    from: hex(A.address),
    to: hex(B.address),
    value: "0x7b",
  }]);
  assertEquals(hash, hash.toLowerCase());
  const tx = f.pool.get(hash as Hex) as FeeMarket1559Tx;
  assert(tx !== undefined, "in the pool");
  assertEquals(hex(tx.hash()), hash);
  assertEquals(hex(tx.getSenderAddress().bytes), hex(A.address), "signed by the sender's key");
  // The sender is remembered by hash as it is signed: the engine's pool takes it without recovering.
  assertEquals(sharedSenderCache.get(hexToBytes(hash)), tx.getSenderPublicKey());
  assertEquals(tx.type, 2);
  assertEquals(tx.nonce, 0n);
  assertEquals(tx.chainId, f.backend.config.chainId);
  assertEquals(tx.gasLimit, 21_000n);
  assertEquals(tx.value, 123n);
  assertEquals(hex(tx.to!.bytes), hex(B.address));
  assertEquals(tx.maxPriorityFeePerGas, tip);
  assertEquals(tx.maxFeePerGas, 2n * baseFee + tip);

  const second = await f.call<string>("eth_sendTransaction", [{ from: hex(A.address), to: hex(B.address) }]);
  assertEquals(f.pool.get(second as Hex)!.nonce, 1n);

  // Concurrent sends of one account get consecutive nonces (geth's nonce lock).
  const both = await Promise.all(
    [2, 3].map(() => f.call<string>("eth_sendTransaction", [{ from: hex(A.address), to: hex(B.address) }])),
  );
  assertEquals(both.map((h) => f.pool.get(h as Hex)!.nonce).sort(), [2n, 3n]);
  assertEquals(f.pool.status().pending, 4);
});

Deno.test("eth_sendTransaction: a given nonce, gas and fees are kept; a deploy's gas is eth_estimateGas's", async () => {
  const f = await devFixture();
  const hash = await f.call<string>("eth_sendTransaction", [{
    from: hex(B.address),
    to: hex(A.address),
    gas: "0x7530",
    maxFeePerGas: "0x2540be400",
    maxPriorityFeePerGas: "0x3b9aca00",
  }]);
  const tx = f.pool.get(hash as Hex) as FeeMarket1559Tx;
  assertEquals([tx.gasLimit, tx.maxFeePerGas, tx.maxPriorityFeePerGas], [30_000n, 10n * GWEI, GWEI]);

  const code = hex(deployCode(LOGGER_RUNTIME));
  const estimate = BigInt(await f.call<string>("eth_estimateGas", [{ from: hex(A.address), input: code }]));
  assert(estimate > 53_000n, `a creation costs more than its intrinsic gas: ${estimate}`);
  const deploy = await f.call<string>("eth_sendTransaction", [{
    from: hex(A.address),
    input: code,
    data: code,
  }]);
  const dtx = f.pool.get(deploy as Hex)!;
  assertEquals(dtx.to, undefined);
  assertEquals(hex(dtx.data), code);
  assertEquals(dtx.gasLimit, estimate);
});

Deno.test("eth_sendTransaction: gasPrice makes an EIP-155 legacy transaction; an access list an EIP-2930 one", async () => {
  const f = await devFixture();
  const chainId = f.backend.config.chainId;
  const hash = await f.call<string>("eth_sendTransaction", [{
    from: hex(A.address),
    to: hex(B.address),
    value: "0x1",
    gasPrice: "0x77359400",
  }]);
  const tx = f.pool.get(hash as Hex) as LegacyTx;
  assertEquals(tx.type, 0);
  assertEquals(tx.gasPrice, 2n * GWEI);
  assertEquals(tx.gasLimit, 21_000n);
  assertEquals(tx.nonce, 0n);
  assert(tx.v === chainId * 2n + 35n || tx.v === chainId * 2n + 36n, `EIP-155 v: ${tx.v}`);
  const parsed = parseTransaction(hex(tx.serialize()));
  assertEquals([parsed.type, parsed.chainId], ["legacy", Number(chainId)]);
  assertEquals(
    (await recoverTransactionAddress({ serializedTransaction: hex(tx.serialize()) as TransactionSerialized }))
      .toLowerCase(),
    hex(A.address),
  );

  const slot = hex(new Uint8Array(32).fill(1));
  const h2930 = await f.call<string>("eth_sendTransaction", [{
    from: hex(A.address),
    to: hex(B.address),
    gasPrice: "0x77359400",
    accessList: [{ address: hex(B.address), storageKeys: [slot] }],
  }]);
  const t2930 = f.pool.get(h2930 as Hex)!;
  assertEquals(t2930.type, 1);
  assertEquals(t2930.nonce, 1n);
  assertEquals(t2930.gasLimit, 21_000n + 2_400n + 1_900n, "the access list's intrinsic gas");

  // type 0x0 without gasPrice: a legacy transaction at eth_gasPrice.
  const h0 = await f.call<string>("eth_sendTransaction", [{
    from: hex(A.address),
    to: hex(B.address),
    type: "0x0",
  }]);
  const t0 = f.pool.get(h0 as Hex) as LegacyTx;
  assertEquals(t0.type, 0);
  assertEquals(t0.gasPrice, BigInt(await f.call<string>("eth_gasPrice")));
});

Deno.test("eth_sendTransaction: refuses an unknown sender, data != input, a wrong chain id, mixed fees, the fee cap", async () => {
  const f = await devFixture({ txFeeCap: ETHER / 100n });
  const from = hex(A.address);
  const to = hex(B.address);
  const unknown = await rpcError(f, "eth_sendTransaction", [{ from: STRANGER, to }]);
  assertEquals([unknown.code, unknown.message], [-32000, "unknown account"]);
  const conflict = await rpcError(f, "eth_sendTransaction", [{ from, to, data: "0x01", input: "0x02" }]);
  assertEquals(conflict.code, -32000);
  assert(conflict.message.startsWith(`both "data" and "input" are set and not equal`), conflict.message);
  const chain = await rpcError(f, "eth_sendTransaction", [{ from, to, chainId: "0x1" }]);
  assertEquals(chain.message, `chainId does not match node's (have=1, want=${f.backend.config.chainId})`);
  const mixed = await rpcError(f, "eth_sendTransaction", [{
    from,
    to,
    gasPrice: "0x1",
    maxFeePerGas: "0x2",
  }]);
  assertEquals(mixed.message, "both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified");
  const inverted = await rpcError(f, "eth_sendTransaction", [{
    from,
    to,
    maxFeePerGas: "0x1",
    maxPriorityFeePerGas: "0x2",
  }]);
  assertEquals(inverted.message, "maxFeePerGas (0x1) < maxPriorityFeePerGas (0x2)");
  const empty = await rpcError(f, "eth_sendTransaction", [{ from }]);
  assertEquals(empty.message, "contract creation without any data provided");
  const blob = await rpcError(f, "eth_sendTransaction", [{ from, to, type: "0x3" }]);
  assertEquals(blob.message, "transaction type not supported");
  const cap = await rpcError(f, "eth_sendTransaction", [{
    from,
    to,
    gas: "0x5208",
    gasPrice: "0x2540be40000",
  }]);
  assertEquals(cap.message, "tx fee (0.05 ether) exceeds the configured cap (0.01 ether)");
  assertEquals(f.pool.status().pending, 0, "nothing reached the pool");

  // Equal data and input are fine; without dev accounts every sender is unknown.
  await f.call("eth_sendTransaction", [{ from, to, data: "0x01", input: "0x01" }]);
  f.backend.devAccounts = undefined;
  assertEquals((await rpcError(f, "eth_sendTransaction", [{ from, to }])).message, "unknown account");
  assertEquals((await rpcError(f, "eth_sendTransaction", [{ to }])).message, "unknown account");
});

Deno.test("eth_sendTransaction: without from, the first dev account sends (anvil)", async () => {
  const f = await devFixture();
  const hash = await f.call<string>("eth_sendTransaction", [{ to: hex(B.address) }]);
  assertEquals(hex(f.pool.get(hash as Hex)!.getSenderAddress().bytes), hex(A.address));
});

Deno.test("eth_signTransaction: the signed raw transaction, filled as eth_sendTransaction, not submitted", async () => {
  const f = await devFixture();
  const raw = await f.call<Hex>("eth_signTransaction", [{
    from: hex(B.address),
    to: hex(A.address),
    value: "0x5",
  }]);
  assertEquals(raw, raw.toLowerCase());
  const parsed = parseTransaction(raw as TransactionSerializedEIP1559);
  assertEquals(parsed.type, "eip1559");
  assertEquals(parsed.chainId, Number(f.backend.config.chainId));
  assertEquals([parsed.nonce, parsed.gas, parsed.value], [0, 21_000n, 5n]);
  assertEquals(parsed.to, hex(A.address));
  assertEquals(
    (await recoverTransactionAddress({ serializedTransaction: raw as TransactionSerialized })).toLowerCase(),
    hex(B.address),
  );
  assertEquals(f.pool.status().pending, 0);
  // The same bytes are accepted by eth_sendRawTransaction.
  assertEquals(await f.call("eth_sendRawTransaction", [raw]), hex(keccak256(hexToBytes(raw))));

  const legacy = await f.call<Hex>("eth_signTransaction", [{
    from: hex(A.address),
    to: hex(B.address),
    gasPrice: "0x3b9aca00",
  }]);
  assertEquals(parseTransaction(legacy).type, "legacy");
  assertEquals(
    (await recoverTransactionAddress({ serializedTransaction: legacy as TransactionSerialized }))
      .toLowerCase(),
    hex(A.address),
  );
  const unknown = await rpcError(f, "eth_signTransaction", [{ from: STRANGER, to: hex(B.address) }]);
  assertEquals(unknown.message, "unknown account");
});

Deno.test("eth_sign / personal_sign: EIP-191 signatures, r || s || v with v 27 or 28", async () => {
  const f = await devFixture();
  assertEquals(hex(A.privateKey), A_KEY);
  const address = hex(A.address);
  for (const data of ["0x68656c6c6f", "0x", hex(new Uint8Array(100).fill(0xab))] as Hex[]) {
    const want = await signMessage({ message: { raw: data }, privateKey: A_KEY });
    const sig = await f.call<Hex>("eth_sign", [address, data]);
    assertEquals(sig, want);
    assertEquals(hexToBytes(sig).length, 65);
    assert([27, 28].includes(hexToBytes(sig)[64]), "v is 27 or 28");
    assertEquals(
      (await recoverMessageAddress({ message: { raw: data }, signature: sig })).toLowerCase(),
      address,
    );
    assertEquals(await f.call("personal_sign", [data, address]), want, "personal_sign: [data, address]");
  }
  // A signature of "hello" is not one of another message or by another key.
  const hello = await f.call<Hex>("eth_sign", [address, "0x68656c6c6f"]);
  assertEquals(await f.call("eth_sign", [hex(B.address), "0x68656c6c6f"]) === hello, false);
  assertEquals(await signMessage({ message: "hello", privateKey: A_KEY }), hello);
  const unknown = await rpcError(f, "eth_sign", [STRANGER, "0x01"]);
  assertEquals([unknown.code, unknown.message], [-32000, "unknown account"]);
  assertEquals((await rpcError(f, "personal_sign", ["0x01", STRANGER])).message, "unknown account");
});

const PERMIT = {
  types: {
    EIP712Domain: [
      { name: "name", type: "string" },
      { name: "version", type: "string" },
      { name: "chainId", type: "uint256" },
      { name: "verifyingContract", type: "address" },
    ],
    Permit: [
      { name: "owner", type: "address" },
      { name: "spender", type: "address" },
      { name: "value", type: "uint256" },
      { name: "nonce", type: "uint256" },
      { name: "deadline", type: "uint256" },
    ],
  },
  primaryType: "Permit",
  domain: {
    name: "USD Coin",
    version: "2",
    chainId: 901,
    verifyingContract: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
  },
  message: {
    owner: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
    spender: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
    value: "1000000000000000000",
    nonce: 0,
    deadline: "115792089237316195423570985008687907853269984665640564039457584007913129639935",
  },
} as const;

/** PERMIT as viem types it (bigints): the JSON's numbers and decimal strings must hash the same. */
const PERMIT_TYPED = {
  ...PERMIT,
  domain: { ...PERMIT.domain, chainId: 901n },
  message: { ...PERMIT.message, value: 10n ** 18n, nonce: 0n, deadline: 2n ** 256n - 1n },
} as const;

/** The example of EIP-712 itself (its private key is keccak256("cow")). */
const MAIL = {
  types: {
    EIP712Domain: [
      { name: "name", type: "string" },
      { name: "version", type: "string" },
      { name: "chainId", type: "uint256" },
      { name: "verifyingContract", type: "address" },
    ],
    Person: [{ name: "name", type: "string" }, { name: "wallet", type: "address" }],
    Mail: [
      { name: "from", type: "Person" },
      { name: "to", type: "Person" },
      { name: "contents", type: "string" },
    ],
  },
  primaryType: "Mail",
  domain: {
    name: "Ether Mail",
    version: "1",
    chainId: 1,
    verifyingContract: "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC",
  },
  message: {
    from: { name: "Cow", wallet: "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826" },
    to: { name: "Bob", wallet: "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB" },
    contents: "Hello, Bob!",
  },
} as const;

Deno.test("eth_signTypedData_v4: EIP-712 signatures of an object or its JSON; eth_signTypedData and _v3 the same", async () => {
  const f = await devFixture();
  const address = hex(A.address);
  const want = await signTypedData({ ...PERMIT_TYPED, privateKey: A_KEY });
  const sig = await f.call<Hex>("eth_signTypedData_v4", [address, PERMIT]);
  assertEquals(sig, want);
  assertEquals(
    await f.call("eth_signTypedData_v4", [address, JSON.stringify(PERMIT)]),
    want,
    "as a JSON string",
  );
  assertEquals(await f.call("eth_signTypedData", [address, PERMIT]), want);
  assertEquals(await f.call("eth_signTypedData_v3", [address, PERMIT]), want);
  assertEquals((await recoverTypedDataAddress({ ...PERMIT_TYPED, signature: sig })).toLowerCase(), address);
  const other = await f.call<Hex>("eth_signTypedData_v4", [address, {
    ...PERMIT,
    message: { ...PERMIT.message, nonce: 1 },
  }]);
  assert(other !== sig, "the message is signed");

  // The vector of EIP-712 (v = 28, r, s as in the EIP's Example.js).
  const cow = keccak256(new TextEncoder().encode("cow"));
  f.backend.devAccounts = [{ address: hexToBytes(MAIL.message.from.wallet), privateKey: cow }];
  const mail = await f.call<Hex>("eth_signTypedData_v4", [MAIL.message.from.wallet, MAIL]);
  assertEquals(
    mail,
    "0x4355c47d63924e8a72e509b65029052eb6c299d53a04e167c5775fd466751c9d" +
      "07299936d304c153f6443dfa05f40ff007d72911b6f72307f996231605b91562" + "1c",
  );

  const unknown = await rpcError(f, "eth_signTypedData_v4", [STRANGER, PERMIT]);
  assertEquals(unknown.message, "unknown account");
  const bad = await rpcError(f, "eth_signTypedData_v4", [MAIL.message.from.wallet, "{not json"]);
  assertEquals(bad.code, -32602);
  const missingType = await rpcError(f, "eth_signTypedData_v4", [MAIL.message.from.wallet, {
    ...MAIL,
    primaryType: "Letter",
  }]);
  assertEquals(missingType.code, -32602);
});
