import { bigIntToBytes, concatBytes, hexToBytes } from "../../../../lib/common/bytes.ts";
import { BaseError } from "../../../../lib/common/errors.ts";
import type { L1Header, L2BlockRef } from "../../../../lib/protocol/block_ref.ts";
import { encodeDepositLog, type L1Log, type L1Receipt } from "../../../../lib/protocol/deposit_event.ts";
import {
  decodeDepositTx,
  type DepositTx,
  l1InfoDepositSourceHash,
  userDepositSourceHash,
} from "../../../../lib/protocol/deposit_tx.ts";
import { blobBaseFee, MAINNET_L1_BLOB_FEE_SCHEDULE } from "../../../../lib/protocol/l1_blob_fee.ts";
import { decodeL1InfoCalldata } from "../../../../lib/protocol/l1_block_info.ts";
import {
  L1_ATTRIBUTES_DEPOSITOR_ADDRESS,
  L1_BLOCK_ADDRESS,
  SEQUENCER_FEE_VAULT_ADDRESS,
} from "../../../../lib/protocol/predeploys.ts";
import type { RollupConfig } from "../../../../lib/protocol/rollup_config.ts";
import {
  encodeEcotoneScalar,
  encodeOperatorFeeParams,
  type SystemConfig,
} from "../../../../lib/protocol/system_config.ts";
import {
  buildPayloadAttributes,
  L1_INFO_DEPOSIT_GAS_BEDROCK,
  L1_INFO_DEPOSIT_GAS_REGOLITH,
  l1InfoDepositTx,
  type PayloadAttributesInput,
} from "../../../../lib/rollup/derive/attributes.ts";
import { rollupFixture } from "./rollup_fixture.ts";
import { assert, assertEquals, assertThrows } from "../../../assert.ts";

const PORTAL = hexToBytes("0xbEb5Fc579115071764c7423A4f12eDde41f106Ed");
const BATCHER = new Uint8Array(20).fill(0xba);
const CANCUN = 3_338_477n;
const PRAGUE = 5_007_716n;

function config(forks: RollupConfig["forks"] = {}, extra: Partial<RollupConfig> = {}): RollupConfig {
  return { ...rollupFixture(forks), depositContractAddress: PORTAL, ...extra };
}

function systemConfig(over: Partial<SystemConfig> = {}): SystemConfig {
  return {
    batcherAddr: BATCHER,
    overhead: bigIntToBytes(188n, 32),
    scalar: bigIntToBytes(684_000n, 32),
    gasLimit: 30_000_000n,
    eip1559Params: new Uint8Array(8),
    operatorFeeParams: new Uint8Array(32),
    minBaseFee: 0n,
    daFootprintGasScalar: 0n,
    ...over,
  };
}

const hash = (n: number) => new Uint8Array(32).fill(n);

/** L1 block 100 at 1,200 s, child of the parent's origin 99 (hash 0x99...). */
function l1Header(over: Partial<L1Header> = {}): L1Header {
  return {
    hash: hash(0x10),
    number: 100n,
    parentHash: hash(0x99),
    timestamp: 1_200n,
    baseFeePerGas: 7_000_000_000n,
    mixHash: hash(0x77),
    ...over,
  };
}

/** L2 block at 1,210 s in epoch 99, third of its epoch. */
function parent(over: Partial<L2BlockRef> = {}): L2BlockRef {
  return {
    hash: hash(0x20),
    number: 605n,
    parentHash: hash(0x21),
    timestamp: 1_210n,
    l1Origin: { hash: hash(0x99), number: 99n },
    sequenceNumber: 2n,
    ...over,
  };
}

const alice = new Uint8Array(20).fill(0xa1);
const bob = new Uint8Array(20).fill(0xb0);
const deposit1 = {
  from: alice,
  to: bob,
  mint: 10n ** 18n,
  value: 5n,
  gas: 100_000n,
  data: Uint8Array.of(1, 2, 3),
};
const deposit2 = {
  from: bob,
  to: null,
  mint: 0n,
  value: 0n,
  gas: 500_000n,
  data: new Uint8Array(40).fill(0x60),
};

/** Receipt 0: an unrelated log then deposit 1 (log indexes 0, 1); receipt 1: deposit 2 (log index 2). */
function receipts(): L1Receipt[] {
  const other: L1Log = {
    address: new Uint8Array(20).fill(0xee),
    topics: [hash(0xee)],
    data: new Uint8Array(),
  };
  return [
    { status: 1, logs: [other, encodeDepositLog(PORTAL, deposit1)] },
    { status: 1, logs: [encodeDepositLog(PORTAL, deposit2)] },
  ];
}

function input(over: Partial<PayloadAttributesInput> = {}): PayloadAttributesInput {
  return {
    config: config(),
    parent: parent(),
    l1Origin: l1Header(),
    receipts: receipts(),
    systemConfig: systemConfig(),
    upgradeTransactions: () => [],
    ...over,
  };
}

function l1InfoOf(tx: Uint8Array): DepositTx {
  const d = decodeDepositTx(tx);
  assertEquals(d.from, L1_ATTRIBUTES_DEPOSITOR_ADDRESS);
  assertEquals(d.to, L1_BLOCK_ADDRESS);
  assertEquals(d.mint, 0n);
  assertEquals(d.value, 0n);
  return d;
}

Deno.test("attributes: a pre-Ecotone epoch start carries the L1 info deposit and the epoch's user deposits", () => {
  const attrs = buildPayloadAttributes(input());
  assertEquals(attrs.timestamp, 1_212n);
  assertEquals(attrs.prevRandao, hash(0x77));
  assertEquals(attrs.suggestedFeeRecipient, SEQUENCER_FEE_VAULT_ADDRESS);
  assertEquals(attrs.noTxPool, true);
  assertEquals(attrs.gasLimit, 30_000_000n);
  assertEquals(attrs.withdrawals, undefined, "no withdrawals before Canyon");
  assertEquals(attrs.parentBeaconBlockRoot, undefined);
  assertEquals(attrs.eip1559Params, undefined);
  assertEquals(attrs.minBaseFee, undefined);
  const txs = attrs.transactions!;
  assertEquals(txs.length, 3);

  const info = l1InfoOf(txs[0]);
  assertEquals(info.sourceHash, l1InfoDepositSourceHash(hash(0x10), 0n));
  assertEquals(info.gas, L1_INFO_DEPOSIT_GAS_REGOLITH);
  assertEquals(info.isSystemTx, false);
  const { format, info: l1 } = decodeL1InfoCalldata(info.data);
  assertEquals(format, "bedrock");
  assertEquals(l1.number, 100n);
  assertEquals(l1.timestamp, 1_200n);
  assertEquals(l1.baseFee, 7_000_000_000n);
  assertEquals(l1.blockHash, hash(0x10));
  assertEquals(l1.sequenceNumber, 0n);
  assertEquals(l1.batcherHash, concatBytes(new Uint8Array(12), BATCHER));
  assertEquals(l1.l1FeeOverhead, 188n);
  assertEquals(l1.l1FeeScalar, 684_000n);

  const d1 = decodeDepositTx(txs[1]);
  assertEquals(d1.sourceHash, userDepositSourceHash(hash(0x10), 1n), "log index counts the unrelated log");
  assertEquals([d1.from, d1.to, d1.mint, d1.value, d1.gas, d1.isSystemTx, d1.data], [
    alice,
    bob,
    10n ** 18n,
    5n,
    100_000n,
    false,
    Uint8Array.of(1, 2, 3),
  ]);
  const d2 = decodeDepositTx(txs[2]);
  assertEquals(d2.sourceHash, userDepositSourceHash(hash(0x10), 2n));
  assertEquals([d2.from, d2.to, d2.gas, d2.data], [bob, null, 500_000n, new Uint8Array(40).fill(0x60)]);
});

Deno.test("attributes: before Regolith the L1 info deposit is a system tx with 150M gas", () => {
  const attrs = buildPayloadAttributes(input({ config: config({ regolith: 5_000n }) }));
  const info = l1InfoOf(attrs.transactions![0]);
  assertEquals(info.gas, L1_INFO_DEPOSIT_GAS_BEDROCK);
  assertEquals(info.gas, 150_000_000n);
  assertEquals(info.isSystemTx, true);
  const after = l1InfoOf(
    buildPayloadAttributes(input({ config: config({ regolith: 1_212n }) })).transactions![0],
  );
  assertEquals([after.gas, after.isSystemTx], [1_000_000n, false], "Regolith active at the new block's time");
});

Deno.test("attributes: a block in the parent's epoch has the next sequence number and no user deposits", () => {
  const origin = l1Header({ hash: hash(0x99), number: 99n, parentHash: hash(0x98), timestamp: 1_188n });
  const attrs = buildPayloadAttributes(input({ l1Origin: origin }));
  assertEquals(attrs.transactions!.length, 1, "receipts are not read");
  const info = l1InfoOf(attrs.transactions![0]);
  assertEquals(info.sourceHash, l1InfoDepositSourceHash(hash(0x99), 3n));
  const { info: l1 } = decodeL1InfoCalldata(info.data);
  assertEquals([l1.number, l1.sequenceNumber, l1.timestamp], [99n, 3n, 1_188n]);
});

Deno.test("attributes: noTxPool defaults to true and a sequencer can ask for false", () => {
  assertEquals(buildPayloadAttributes(input({ noTxPool: false })).noTxPool, false);
  assertEquals(buildPayloadAttributes(input({ noTxPool: true })).noTxPool, true);
});

const ecotoneForks = { canyon: 0n, delta: 0n, ecotone: 0n };

Deno.test("attributes: Ecotone blocks use the packed format, the blob base fee and the beacon root", () => {
  const scalar = encodeEcotoneScalar({ baseFeeScalar: 1_368n, blobBaseFeeScalar: 810_949n });
  const excess = 60_000_000n;
  const origin = l1Header({ excessBlobGas: excess, blobGasUsed: 0n, parentBeaconBlockRoot: hash(0xbe) });
  const attrs = buildPayloadAttributes(input({
    config: config(ecotoneForks),
    l1Origin: origin,
    systemConfig: systemConfig({ scalar, overhead: new Uint8Array(32) }),
  }));
  assertEquals(attrs.withdrawals, [], "Canyon: an empty withdrawals list");
  assertEquals(attrs.parentBeaconBlockRoot, hash(0xbe));
  assertEquals(attrs.eip1559Params, undefined, "not before Holocene");
  const { format, info } = decodeL1InfoCalldata(l1InfoOf(attrs.transactions![0]).data);
  assertEquals(format, "ecotone");
  assertEquals([info.baseFeeScalar, info.blobBaseFeeScalar], [1_368n, 810_949n]);
  assertEquals(info.blobBaseFee, blobBaseFee(excess, CANCUN), "unknown L1: Cancun's fraction");
  assert(info.blobBaseFee > 1n);
  assertEquals([info.number, info.timestamp, info.sequenceNumber, info.baseFee], [
    100n,
    1_200n,
    0n,
    7_000_000_000n,
  ]);
  assertEquals(info.batcherHash, concatBytes(new Uint8Array(12), BATCHER));
});

Deno.test("attributes: Ecotone blob base fee follows the L1 schedule, and is 1 without excess blob gas", () => {
  const t = 1_746_612_311n; // mainnet Prague
  const excess = 60_000_000n;
  const cfg = config(ecotoneForks);
  const origin = l1Header({ timestamp: t, excessBlobGas: excess });
  const at = (o: L1Header) =>
    buildPayloadAttributes(
      input({
        config: cfg,
        l1Origin: o,
        parent: parent({ timestamp: t + 10n }),
        l1BlobFeeSchedule: MAINNET_L1_BLOB_FEE_SCHEDULE,
      }),
    );
  const prague = decodeL1InfoCalldata(l1InfoOf(at(origin).transactions![0]).data).info;
  assertEquals(prague.blobBaseFee, blobBaseFee(excess, PRAGUE));
  const cancun =
    decodeL1InfoCalldata(l1InfoOf(at({ ...origin, timestamp: t - 1n }).transactions![0]).data).info;
  assertEquals(cancun.blobBaseFee, blobBaseFee(excess, CANCUN));
  assert(cancun.blobBaseFee !== prague.blobBaseFee);
  const none = at({ ...origin, excessBlobGas: undefined });
  assertEquals(decodeL1InfoCalldata(l1InfoOf(none.transactions![0]).data).info.blobBaseFee, 1n);
  assertEquals(none.parentBeaconBlockRoot, new Uint8Array(32), "zero root when the L1 header has none");
});

Deno.test("attributes: the Ecotone activation block keeps the Bedrock L1 info format and gets its upgrade txs", () => {
  const seen: bigint[] = [];
  const upgrades = [Uint8Array.of(0x7e, 1), Uint8Array.of(0x7e, 2)];
  const attrs = buildPayloadAttributes(input({
    config: config({ canyon: 0n, delta: 0n, ecotone: 1_212n }),
    l1Origin: l1Header({ excessBlobGas: 1n, parentBeaconBlockRoot: hash(0xbe) }),
    upgradeTransactions: (timestamp) => {
      seen.push(timestamp);
      return timestamp === 1_212n ? upgrades : [];
    },
  }));
  assertEquals(seen, [1_212n]);
  const { format, info } = decodeL1InfoCalldata(l1InfoOf(attrs.transactions![0]).data);
  assertEquals(format, "bedrock");
  assertEquals([info.l1FeeOverhead, info.l1FeeScalar], [188n, 684_000n]);
  assertEquals(attrs.parentBeaconBlockRoot, hash(0xbe), "Ecotone is active in its activation block");
  assertEquals(attrs.transactions!.slice(3), upgrades, "after the L1 info deposit and the two user deposits");
  // The next block is the first with the Ecotone format.
  const next = buildPayloadAttributes(input({
    config: config({ canyon: 0n, delta: 0n, ecotone: 1_212n }),
    parent: parent({ timestamp: 1_212n }),
    l1Origin: l1Header({ excessBlobGas: 1n }),
    systemConfig: systemConfig({ scalar: encodeEcotoneScalar({ baseFeeScalar: 5n, blobBaseFeeScalar: 6n }) }),
  }));
  assertEquals(decodeL1InfoCalldata(l1InfoOf(next.transactions![0]).data).format, "ecotone");
});

Deno.test("attributes: upgrade transactions come after the user deposits, in the order given", () => {
  const upgrades = [Uint8Array.of(0x7e, 0xaa), Uint8Array.of(0x7e, 0xbb), Uint8Array.of(0x7e, 0xcc)];
  const attrs = buildPayloadAttributes(input({ upgradeTransactions: () => upgrades }));
  const txs = attrs.transactions!;
  assertEquals(txs.length, 6);
  assertEquals(decodeL1InfoCalldata(l1InfoOf(txs[0]).data).format, "bedrock");
  assertEquals(decodeDepositTx(txs[1]).from, alice);
  assertEquals(decodeDepositTx(txs[2]).from, bob);
  assertEquals(txs.slice(3), upgrades);
});

const holoceneForks = { ...ecotoneForks, fjord: 0n, granite: 0n, holocene: 0n };
const ecotoneScalar = encodeEcotoneScalar({ baseFeeScalar: 1_368n, blobBaseFeeScalar: 810_949n });

Deno.test("attributes: Holocene passes the SystemConfig's eip1559Params", () => {
  const params = Uint8Array.of(0, 0, 0, 250, 0, 0, 0, 6);
  const attrs = buildPayloadAttributes(input({
    config: config(holoceneForks),
    systemConfig: systemConfig({ scalar: ecotoneScalar, eip1559Params: params }),
  }));
  assertEquals(attrs.eip1559Params, params);
  assertEquals(attrs.minBaseFee, undefined, "not before Jovian");
  const zero = buildPayloadAttributes(input({
    config: config(holoceneForks),
    systemConfig: systemConfig({ scalar: ecotoneScalar }),
  }));
  assertEquals(zero.eip1559Params, new Uint8Array(8), "zero params are passed as they are");
});

Deno.test("attributes: Isthmus carries the operator fee parameters; its activation block keeps the Ecotone format", () => {
  const operatorFeeParams = encodeOperatorFeeParams({
    operatorFeeScalar: 7_000n,
    operatorFeeConstant: 123_456n,
  });
  const sys = systemConfig({ scalar: ecotoneScalar, operatorFeeParams });
  const active = buildPayloadAttributes(
    input({ config: config({ ...holoceneForks, isthmus: 0n }), systemConfig: sys }),
  );
  const { format, info } = decodeL1InfoCalldata(l1InfoOf(active.transactions![0]).data);
  assertEquals(format, "isthmus");
  assertEquals([info.operatorFeeScalar, info.operatorFeeConstant], [7_000n, 123_456n]);
  assertEquals([info.baseFeeScalar, info.blobBaseFeeScalar], [1_368n, 810_949n]);
  const activation = buildPayloadAttributes(input({
    config: config({ ...holoceneForks, isthmus: 1_212n }),
    systemConfig: sys,
  }));
  assertEquals(decodeL1InfoCalldata(l1InfoOf(activation.transactions![0]).data).format, "ecotone");
});

Deno.test("attributes: Jovian carries minBaseFee and the DA footprint gas scalar (0 becomes 400)", () => {
  const jovianForks = { ...holoceneForks, isthmus: 0n, jovian: 0n };
  const sys = systemConfig({
    scalar: ecotoneScalar,
    operatorFeeParams: encodeOperatorFeeParams({ operatorFeeScalar: 1n, operatorFeeConstant: 2n }),
    minBaseFee: 1_000_000n,
    daFootprintGasScalar: 1_234n,
  });
  const attrs = buildPayloadAttributes(input({ config: config(jovianForks), systemConfig: sys }));
  assertEquals(attrs.minBaseFee, 1_000_000n);
  const { format, info } = decodeL1InfoCalldata(l1InfoOf(attrs.transactions![0]).data);
  assertEquals(format, "jovian");
  assertEquals([info.daFootprintGasScalar, info.operatorFeeScalar, info.operatorFeeConstant], [
    1_234n,
    1n,
    2n,
  ]);

  const zero = buildPayloadAttributes(input({
    config: config(jovianForks),
    systemConfig: { ...sys, daFootprintGasScalar: 0n, minBaseFee: 0n },
  }));
  assertEquals(zero.minBaseFee, 0n, "non-null from Jovian even when zero");
  assertEquals(decodeL1InfoCalldata(l1InfoOf(zero.transactions![0]).data).info.daFootprintGasScalar, 400n);

  const activation = buildPayloadAttributes(input({
    config: config({ ...jovianForks, jovian: 1_212n }),
    systemConfig: sys,
  }));
  assertEquals(decodeL1InfoCalldata(l1InfoOf(activation.transactions![0]).data).format, "isthmus");
  assertEquals(activation.minBaseFee, 1_000_000n, "Jovian is active in its activation block");
});

function epochError(fn: () => unknown, includes: string): BaseError {
  const err = assertThrows(fn, BaseError, includes) as BaseError;
  assertEquals(err.code, "ATTRIBUTES_EPOCH");
  assertEquals(err.severity, "reset");
  return err;
}

Deno.test("attributes: an L1 origin that is neither the parent's nor the next one is refused", () => {
  epochError(
    () => buildPayloadAttributes(input({ l1Origin: l1Header({ number: 101n, parentHash: hash(0x10) }) })),
    "does not follow",
  );
  epochError(
    () => buildPayloadAttributes(input({ l1Origin: l1Header({ number: 101n }) })),
    "does not follow",
  );
  epochError(
    () => buildPayloadAttributes(input({ l1Origin: l1Header({ parentHash: hash(0x55) }) })),
    "does not follow",
  );
  epochError(
    () => buildPayloadAttributes(input({ l1Origin: l1Header({ number: 98n, parentHash: hash(0x97) }) })),
    "does not follow",
  );
  epochError(
    () => buildPayloadAttributes(input({ l1Origin: l1Header({ number: 99n, hash: hash(0x44) }) })),
    "conflicts",
  );
});

Deno.test("attributes: an L2 time before the L1 origin's time is refused", () => {
  const err = epochError(
    () => buildPayloadAttributes(input({ l1Origin: l1Header({ timestamp: 1_213n }) })),
    "before the L1 origin",
  );
  assertEquals(err.meta.timestamp, 1_212n);
  assertEquals(
    buildPayloadAttributes(input({ l1Origin: l1Header({ timestamp: 1_212n }) })).timestamp,
    1_212n,
  );
});

Deno.test("attributes: malformed deposit logs and fee scalars are critical", () => {
  const bad = encodeDepositLog(PORTAL, deposit1);
  const broken: L1Receipt[] = [{ status: 1, logs: [{ ...bad, data: bad.data.subarray(0, 40) }] }];
  const err = assertThrows(() => buildPayloadAttributes(input({ receipts: broken })), BaseError) as BaseError;
  assertEquals([err.code, err.severity], ["INVALID_DEPOSIT_LOG", "critical"]);

  const badScalar = new Uint8Array(32);
  badScalar[0] = 2;
  const scalarErr = assertThrows(
    () =>
      buildPayloadAttributes(
        input({ config: config(ecotoneForks), systemConfig: systemConfig({ scalar: badScalar }) }),
      ),
    BaseError,
    "unknown version 2",
  ) as BaseError;
  assertEquals([scalarErr.code, scalarErr.severity], ["ATTRIBUTES_L1_INFO", "critical"]);
});

Deno.test("l1InfoDepositTx: matches the attributes' first transaction and carries the given sequence number", () => {
  const cfg = config(ecotoneForks);
  const sys = systemConfig({ scalar: ecotoneScalar });
  const origin = l1Header({ excessBlobGas: 0n });
  const tx = l1InfoDepositTx(cfg, sys, origin, 4n, 1_300n);
  assertEquals(tx.sourceHash, l1InfoDepositSourceHash(hash(0x10), 4n));
  const { info } = decodeL1InfoCalldata(tx.data);
  assertEquals([info.sequenceNumber, info.blobBaseFee], [4n, 1n]);
  const attrs = buildPayloadAttributes(input({ config: cfg, systemConfig: sys, l1Origin: origin }));
  assertEquals(decodeDepositTx(attrs.transactions![0]), l1InfoDepositTx(cfg, sys, origin, 0n, 1_212n));
});
