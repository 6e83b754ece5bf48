import { RLP } from "@ethereumjs/rlp";
import { createEOACode7702Tx, createFeeMarket1559Tx } from "@ethereumjs/tx";
import { Address, bigIntToBytes, generateAddress } from "@ethereumjs/util";
import { assert, assertEquals, assertRejects } from "../../../assert.ts";
import type { DepositTx } from "../../../../lib/protocol/deposit_tx.ts";
import type { OpFork } from "../../../../lib/protocol/hardforks.ts";
import { l1Cost, operatorFee } from "../../../../lib/protocol/l1_cost.ts";
import {
  BASE_FEE_VAULT_ADDRESS,
  L1_FEE_VAULT_ADDRESS,
  OPERATOR_FEE_VAULT_ADDRESS,
  SEQUENCER_FEE_VAULT_ADDRESS,
} from "../../../../lib/protocol/predeploys.ts";
import { BlockBuilder, forkRules, loadL1FeeSource } from "../../../../lib/execution/evm/mod.ts";
import {
  atLeast,
  attributes,
  balanceOf,
  ETHER,
  FEES,
  fund,
  genesisHeader,
  GWEI,
  KEY,
  l1Config,
  legacyTransfer,
  newState,
  nonceOf,
  opConfig,
  RECIPIENT,
  SENDER,
  setL1Block,
  transfer,
} from "./helpers.ts";

const DEPOSITOR = new Uint8Array(20).fill(0xdd);
const REVERTER = new Uint8Array(20).fill(0xee);
/** PUSH1 0 PUSH1 0 REVERT: 6 gas. */
const REVERT_CODE = new Uint8Array([0x60, 0x00, 0x60, 0x00, 0xfd]);

function deposit(overrides: Partial<DepositTx> = {}): DepositTx {
  return {
    sourceHash: new Uint8Array(32).fill(1),
    from: DEPOSITOR,
    to: RECIPIENT,
    mint: ETHER,
    value: 0n,
    gas: 100_000n,
    isSystemTx: false,
    data: new Uint8Array(),
    ...overrides,
  };
}

async function open(fork: OpFork) {
  const config = opConfig(fork);
  const sm = newState();
  await sm.putCode(new Address(REVERTER), REVERT_CODE);
  await setL1Block(sm, FEES);
  const b = await BlockBuilder.open(config, genesisHeader(config, fork), attributes(fork), {
    stateManager: sm,
  });
  return { config, sm, b };
}

const VAULTS = [
  BASE_FEE_VAULT_ADDRESS,
  L1_FEE_VAULT_ADDRESS,
  OPERATOR_FEE_VAULT_ADDRESS,
  SEQUENCER_FEE_VAULT_ADDRESS,
];

for (const fork of ["bedrock", "regolith", "canyon"] as OpFork[]) {
  Deno.test(`deposit (${fork}): mint credited, nonce bumped, no fees, receipt fields by fork`, async () => {
    const { sm, b } = await open(fork);
    const r = await b.addTransaction(deposit({ value: 10n }));
    assertEquals(r.receipt.status, 1);
    assertEquals(await balanceOf(sm, DEPOSITOR), ETHER - 10n);
    assertEquals(await balanceOf(sm, RECIPIENT), 10n);
    assertEquals(await nonceOf(sm, DEPOSITOR), 1n);
    assertEquals(r.gasUsed, fork === "bedrock" ? 100_000n : 21_000n);
    assertEquals(r.receipt.depositNonce, fork === "bedrock" ? undefined : 0n);
    assertEquals(r.receipt.depositReceiptVersion, fork === "canyon" ? 1n : undefined);
    for (const v of VAULTS) assertEquals(await balanceOf(sm, v), 0n);
    assertEquals(b.gasUsed, r.gasUsed);
    await b.abort();
  });
}

for (const fork of ["bedrock", "regolith"] as OpFork[]) {
  Deno.test(`deposit (${fork}): a reverting call keeps the mint and the nonce, not the value`, async () => {
    const { sm, b } = await open(fork);
    const r = await b.addTransaction(deposit({ to: REVERTER, value: 5n }));
    assertEquals(r.receipt.status, 0);
    assertEquals(await balanceOf(sm, DEPOSITOR), ETHER);
    assertEquals(await balanceOf(sm, REVERTER), 0n);
    assertEquals(await nonceOf(sm, DEPOSITOR), 1n);
    assertEquals(r.gasUsed, fork === "bedrock" ? 100_000n : 21_006n);
    await b.abort();
  });
}

Deno.test("deposit (regolith): value above balance is a failed deposit using its whole gas limit", async () => {
  const { sm, b } = await open("regolith");
  const r = await b.addTransaction(deposit({ value: 2n * ETHER }));
  assertEquals(r.receipt.status, 0);
  assertEquals(r.gasUsed, 100_000n);
  assertEquals(await balanceOf(sm, DEPOSITOR), ETHER);
  assertEquals(await balanceOf(sm, RECIPIENT), 0n);
  assertEquals(await nonceOf(sm, DEPOSITOR), 1n);
  // A second deposit from the same account sees nonce 1.
  const r2 = await b.addTransaction(deposit({ mint: 0n }));
  assertEquals(r2.receipt.depositNonce, 1n);
  assertEquals(b.gasUsed, 121_000n);
  await b.abort();
});

Deno.test("deposit: system tx uses no gas before Regolith and fails from Regolith", async () => {
  const pre = await open("bedrock");
  const r = await pre.b.addTransaction(deposit({ isSystemTx: true, gas: 1_000_000n, mint: 0n }));
  assertEquals(r.receipt.status, 1);
  assertEquals(r.gasUsed, 0n);
  assertEquals(pre.b.gasUsed, 0n);
  await pre.b.abort();
  const post = await open("regolith");
  const r2 = await post.b.addTransaction(deposit({ isSystemTx: true, gas: 1_000_000n, mint: 3n }));
  assertEquals(r2.receipt.status, 0);
  assertEquals(r2.gasUsed, 1_000_000n);
  assertEquals(await nonceOf(post.sm, DEPOSITOR), 1n);
  assertEquals(await balanceOf(post.sm, DEPOSITOR), 3n);
  await post.b.abort();
});

Deno.test("deposit: contract creation deploys at the from/nonce address", async () => {
  const { sm, b } = await open("canyon");
  // init code: MSTORE8(0, 0x2a); RETURN(0, 1)
  const init = new Uint8Array([0x60, 0x2a, 0x60, 0x00, 0x53, 0x60, 0x01, 0x60, 0x00, 0xf3]);
  const r = await b.addTransaction(deposit({ to: null, data: init, gas: 200_000n }));
  assertEquals(r.receipt.status, 1);
  const expected = generateAddress(DEPOSITOR, bigIntToBytes(0n));
  assertEquals(r.contractAddress, expected);
  assertEquals(await sm.getCode(new Address(expected)), new Uint8Array([0x2a]));
  assertEquals(await nonceOf(sm, DEPOSITOR), 1n);
  await b.abort();
});

for (const fork of ["bedrock", "regolith", "ecotone", "fjord", "isthmus", "jovian"] as OpFork[]) {
  Deno.test(`user tx (${fork}): sender pays value + gas + L1 fee (+ operator fee); vaults get their parts`, async () => {
    const { config, sm, b } = await open(fork);
    await fund(sm, SENDER, ETHER);
    const before = await balanceOf(sm, SENDER);
    const tx = transfer(config, 2n, 0n, { gasLimit: 50_000n });
    const r = await b.addTransaction(tx);
    assertEquals(r.receipt.status, 1);
    assertEquals(r.gasUsed, 21_000n);
    const src = await loadL1FeeSource(sm, fork);
    assertEquals(src.params.l1BaseFee, FEES.l1BaseFee);
    if (atLeast(fork, "ecotone")) {
      assertEquals(src.params.baseFeeScalar, FEES.baseFeeScalar);
      assertEquals(src.params.blobBaseFeeScalar, FEES.blobBaseFeeScalar);
    }
    if (atLeast(fork, "isthmus")) {
      assertEquals(src.params.operatorFeeScalar, FEES.operatorFeeScalar);
      assertEquals(src.params.operatorFeeConstant, FEES.operatorFeeConstant);
    }
    const l1 = l1Cost(fork, src.params, tx.serialize()).fee;
    const op = operatorFee(fork, src.params, 21_000n);
    assert(l1 > 0n, "l1 fee is charged");
    assertEquals(op > 0n, atLeast(fork, "isthmus"));
    const baseFee = b.header.baseFeePerGas!;
    const tip = GWEI / 2n;
    assertEquals(r.effectiveGasPrice, baseFee + tip);
    assertEquals(r.l1Fee?.l1Fee, l1);
    assertEquals(before - (await balanceOf(sm, SENDER)), 1000n + 21_000n * (baseFee + tip) + l1 + op);
    assertEquals(await balanceOf(sm, BASE_FEE_VAULT_ADDRESS), 21_000n * baseFee);
    assertEquals(await balanceOf(sm, SEQUENCER_FEE_VAULT_ADDRESS), 21_000n * tip);
    assertEquals(await balanceOf(sm, L1_FEE_VAULT_ADDRESS), l1);
    assertEquals(await balanceOf(sm, OPERATOR_FEE_VAULT_ADDRESS), op);
    assertEquals(r.l1Fee?.l1FeeScalar !== undefined, !atLeast(fork, "ecotone"));
    assertEquals(r.l1Fee?.operatorFeeScalar, atLeast(fork, "isthmus") ? FEES.operatorFeeScalar : undefined);
    await b.abort();
  });
}

Deno.test("user tx: a legacy tx pays gasPrice; tip = gasPrice - baseFee to the coinbase", async () => {
  const { config, sm, b } = await open("ecotone");
  await fund(sm, SENDER, ETHER);
  const r = await b.addTransaction(legacyTransfer(config, 2n, 0n, 2n * GWEI));
  assertEquals(r.effectiveGasPrice, 2n * GWEI);
  assertEquals(
    await balanceOf(sm, SEQUENCER_FEE_VAULT_ADDRESS),
    21_000n * (2n * GWEI - b.header.baseFeePerGas!),
  );
  await b.abort();
});

Deno.test("user tx: funds for gas and value but not the L1 fee make the tx invalid, without side effects", async () => {
  const { config, sm, b } = await open("fjord");
  const tx = transfer(config, 2n, 0n);
  await fund(sm, SENDER, 21_000n * 3n * GWEI + 1000n);
  const err = await assertRejects(() => b.addTransaction(tx));
  assertEquals((err as { code?: string }).code, "INSUFFICIENT_FUNDS");
  assertEquals(await balanceOf(sm, SENDER), 21_000n * 3n * GWEI + 1000n);
  assertEquals(await nonceOf(sm, SENDER), 0n);
  assertEquals(b.results.length, 0);
  assertEquals(b.gasUsed, 0n);
  await b.abort();
});

Deno.test("user tx: a tx above the remaining gas is rejected", async () => {
  const { config, sm, b } = await open("regolith");
  await fund(sm, SENDER, ETHER);
  const err = await assertRejects(() =>
    b.addTransaction(transfer(config, 2n, 0n, { gasLimit: 30_000_001n }))
  );
  assertEquals((err as { code?: string }).code, "GAS_LIMIT_REACHED");
  await b.abort();
});

Deno.test("user tx: blob transactions are refused on L2", async () => {
  const { config, sm, b } = await open("ecotone");
  await fund(sm, SENDER, ETHER);
  // A signed-looking type-3 envelope: refused by type before any decoding (decoding needs KZG).
  const body = RLP.encode([
    bigIntToBytes(config.chainId),
    new Uint8Array(),
    new Uint8Array([1]),
    bigIntToBytes(3n * GWEI),
    bigIntToBytes(21000n),
    RECIPIENT,
    new Uint8Array(),
    new Uint8Array(),
    [],
    new Uint8Array([1]),
    [new Uint8Array(32).fill(1)],
    new Uint8Array(),
    new Uint8Array(32).fill(2),
    new Uint8Array(32).fill(3),
  ]);
  const tx = new Uint8Array([3, ...body]);
  const err = await assertRejects(() => b.addTransaction(tx));
  assertEquals((err as { code?: string }).code, "TX_TYPE_NOT_SUPPORTED");
  await b.abort();
});

Deno.test("user tx: EIP-7702 transactions are refused before Isthmus and run from Isthmus", async () => {
  for (const fork of ["holocene", "isthmus"] as OpFork[]) {
    const { config, sm, b } = await open(fork);
    await fund(sm, SENDER, ETHER);
    const prague = forkRules(opConfig("isthmus"), 2n).common;
    const tx = createEOACode7702Tx({
      chainId: config.chainId,
      to: RECIPIENT,
      gasLimit: 100_000n,
      maxFeePerGas: 3n * GWEI,
      maxPriorityFeePerGas: 1n,
      authorizationList: [{
        chainId: "0x0",
        address: `0x${"ee".repeat(20)}`,
        nonce: "0x1",
        yParity: "0x0",
        r: `0x${"11".repeat(32)}`,
        s: `0x${"22".repeat(32)}`,
      }],
    }, { common: prague }).sign(new Uint8Array(32).fill(1));
    if (fork === "holocene") {
      const err = await assertRejects(() => b.addTransaction(tx));
      assertEquals((err as { code?: string }).code, "TX_TYPE_NOT_SUPPORTED");
    } else {
      const r = await b.addTransaction(tx);
      assertEquals(r.type, 4);
    }
    await b.abort();
  }
});

Deno.test("L1 mode: base fee burned, tip to the coinbase, no vault credits", async () => {
  const config = l1Config();
  const sm = newState();
  await fund(sm, SENDER, ETHER);
  const coinbase = new Uint8Array(20).fill(0xcc);
  const b = await BlockBuilder.open(config, genesisHeader(config, "l1"), { ...attributes("l1"), coinbase }, {
    stateManager: sm,
  });
  const r = await b.addTransaction(transfer(config, 2n, 0n));
  const baseFee = b.header.baseFeePerGas!;
  assertEquals(await balanceOf(sm, SENDER), ETHER - 1000n - 21_000n * (baseFee + GWEI / 2n));
  assertEquals(await balanceOf(sm, coinbase), 21_000n * (GWEI / 2n));
  assertEquals(await balanceOf(sm, BASE_FEE_VAULT_ADDRESS), 0n);
  assertEquals(r.l1Fee, undefined);
  await b.abort();
});

Deno.test("deposit (isthmus): the EIP-7623 calldata floor applies to gas used and to the gas limit", async () => {
  const { b } = await open("isthmus");
  const data = new Uint8Array(1000).fill(1); // 4000 tokens: floor 61,000; intrinsic 37,000
  const r = await b.addTransaction(deposit({ data }));
  assertEquals(r.receipt.status, 1);
  assertEquals(r.gasUsed, 61_000n);
  const short = await b.addTransaction(deposit({ data, gas: 50_000n, mint: 0n }));
  assertEquals(short.receipt.status, 0);
  assertEquals(short.gasUsed, 50_000n);
  await b.abort();
});

Deno.test("user tx: an invalid tx (wrong nonce) is rejected and the L1 fee taken up front is given back", async () => {
  const { config, sm, b } = await open("isthmus");
  await fund(sm, SENDER, ETHER);
  const root = await sm.getStateRoot();
  const err = await assertRejects(() => b.addTransaction(transfer(config, 2n, 5n)));
  assertEquals((err as { code?: string }).code, "INVALID_TX");
  assertEquals(await balanceOf(sm, SENDER), ETHER);
  assertEquals(await sm.getStateRoot(), root);
  // The block goes on: the right nonce is accepted afterwards.
  const r = await b.addTransaction(transfer(config, 2n, 0n));
  assertEquals(r.receipt.cumulativeGasUsed, 21_000n);
  await b.abort();
});

Deno.test("deposit: a deposit above the remaining block gas cannot be included", async () => {
  const { b } = await open("regolith");
  const err = await assertRejects(() => b.addTransaction(deposit({ gas: 30_000_001n })));
  assertEquals((err as { code?: string }).code, "GAS_LIMIT_REACHED");
  assertEquals(b.results.length, 0);
  await b.abort();
});

Deno.test("user tx: a tx decoded under an earlier fork runs under the block's rules (Isthmus calldata floor)", async () => {
  const { config, sm, b } = await open("isthmus");
  await fund(sm, SENDER, ETHER);
  const ecotone = opConfig("ecotone");
  // 1000 non-zero bytes: intrinsic 37,000; EIP-7623 floor 61,000 (Prague rules only).
  const tx = transfer(ecotone, 2n, 0n, { data: new Uint8Array(1000).fill(1), gasLimit: 100_000n });
  assertEquals(tx.common.hardfork(), "cancun");
  const r = await b.addTransaction(tx);
  assertEquals(r.gasUsed, 61_000n);
  assertEquals(r.txHash, tx.hash());
  assertEquals(config.chainId, ecotone.chainId);
  await b.abort();
});

Deno.test("user tx (Ecotone activation block): pre-Ecotone L1Block values keep the Bedrock fee formula", async () => {
  const config = opConfig("ecotone");
  const sm = newState();
  // Only the Bedrock fields are set, as before the first Ecotone L1-info deposit.
  await setL1Block(sm, { ...FEES, baseFeeScalar: 0n, blobBaseFeeScalar: 0n, l1BlobBaseFee: 0n });
  await fund(sm, SENDER, ETHER);
  const b = await BlockBuilder.open(config, genesisHeader(config, "ecotone"), attributes("ecotone"), {
    stateManager: sm,
  });
  const tx = transfer(config, 2n, 0n);
  const r = await b.addTransaction(tx);
  let zeroes = 0n;
  for (const x of tx.serialize()) if (x === 0) zeroes++;
  const ones = BigInt(tx.serialize().length) - zeroes;
  const l1GasUsed = zeroes * 4n + ones * 16n + FEES.overhead;
  assertEquals(r.l1Fee?.l1GasUsed, l1GasUsed);
  assertEquals(r.l1Fee?.l1Fee, l1GasUsed * FEES.l1BaseFee * FEES.scalar / 1_000_000n);
  assertEquals(r.l1Fee?.l1FeeScalar, "0.684");
  assertEquals(await balanceOf(sm, L1_FEE_VAULT_ADDRESS), r.l1Fee!.l1Fee);
  await b.abort();
});

Deno.test("a creation that fails still names its address in the receipt, as geth's MakeReceipt (user tx and deposit)", async () => {
  const { config, sm, b } = await open("isthmus");
  await fund(sm, SENDER, ETHER);
  // Initcode that reverts: PUSH1 0, PUSH1 0, REVERT.
  const tx = createFeeMarket1559Tx({
    chainId: config.chainId,
    nonce: 0n,
    gasLimit: 100_000n,
    maxFeePerGas: 3n * GWEI,
    maxPriorityFeePerGas: GWEI / 2n,
    data: REVERT_CODE,
  }, { common: forkRules(config, 2n).common }).sign(KEY);
  const r = await b.addTransaction(tx);
  assertEquals(r.receipt.status, 0);
  assertEquals(r.contractAddress, generateAddress(SENDER, bigIntToBytes(0n)));
  // A deposit whose creation reverts: the address of the depositor's nonce before it.
  await b.addTransaction(deposit({ mint: 0n }));
  const d = await b.addTransaction(deposit({ to: null, data: REVERT_CODE, gas: 200_000n, mint: 0n }));
  assertEquals(d.receipt.status, 0);
  assertEquals(d.contractAddress, generateAddress(DEPOSITOR, bigIntToBytes(1n)));
  // A call names none.
  const call = await b.addTransaction(deposit({ mint: 0n }));
  assertEquals(call.contractAddress, undefined);
  await b.abort();
});
