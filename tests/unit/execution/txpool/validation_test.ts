import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import type { TypedTransaction } from "@ethereumjs/tx";
import { assert, assertEquals } from "../../../assert.ts";
import { BaseError } from "../../../../lib/common/errors.ts";
import {
  decodeRawTransaction,
  decodingCommon,
  effectiveTip,
  feeCap,
  floorDataGas,
  intrinsicGas,
  sharedTxCommon,
  tipCap,
  txCost,
} from "../../../../lib/execution/txpool/mod.ts";
import { forkRules } from "../../../../lib/execution/evm/mod.ts";
import { buildDevGenesis } from "../../../../lib/execution/genesis/mod.ts";
import { parseChainConfig } from "../../../../lib/protocol/mod.ts";
import { CHAIN_ID, GWEI, tx1559, tx2930, tx7702, txLegacy } from "./fixtures.ts";

const PRAGUE = { isShanghai: true, isPrague: true };
const ALL = new Set([0, 1, 2, 4]);

/** Rebuild a tx under another hardfork so @ethereumjs computes its intrinsic gas there. */
function under(tx: TypedTransaction, hardfork: string): TypedTransaction {
  const c = createCustomCommon({ chainId: Number(CHAIN_ID) }, Mainnet, { hardfork });
  return decodeRawTransaction(tx.serialize(), c, ALL);
}

Deno.test("intrinsicGas matches @ethereumjs getIntrinsicGas under Prague and Paris", () => {
  const cases: TypedTransaction[] = [
    tx1559(),
    tx1559({ data: new Uint8Array([0, 1, 0, 255, 3]) }),
    tx1559({ to: null, data: new Uint8Array(100).fill(0x60), gas: 200_000n }),
    tx1559({ to: null, data: new Uint8Array(33), gas: 200_000n }),
    txLegacy({ data: new Uint8Array(7).fill(9) }),
    tx2930(),
    tx7702({ auths: 3, gas: 200_000n }),
  ];
  for (const tx of cases) {
    const prague = under(tx, Hardfork.Prague);
    assertEquals(intrinsicGas(tx, PRAGUE), prague.getIntrinsicGas());
    // EIP-7623: the minimum gas limit is max(intrinsic, floor).
    const min = intrinsicGas(tx, PRAGUE) > floorDataGas(tx) ? intrinsicGas(tx, PRAGUE) : floorDataGas(tx);
    assertEquals(min, prague.getMinimumGasLimit());
    if (tx.type !== 4) {
      const paris = under(tx, Hardfork.Paris);
      assertEquals(intrinsicGas(tx, { isShanghai: false, isPrague: false }), paris.getIntrinsicGas());
    }
  }
});

Deno.test("intrinsicGas: the EIP-3860 word cost applies only from Shanghai", () => {
  const create = tx1559({ to: null, data: new Uint8Array(65), gas: 200_000n }); // 3 words
  assertEquals(
    intrinsicGas(create, PRAGUE) - intrinsicGas(create, { isShanghai: false, isPrague: false }),
    6n,
  );
});

Deno.test("floorDataGas: 21000 + 10 per token, 4 tokens per non-zero byte", () => {
  assertEquals(floorDataGas(tx1559()), 21_000n);
  assertEquals(floorDataGas(tx1559({ data: new Uint8Array([0, 0, 5]) })), 21_000n + 10n * 6n);
});

Deno.test("fee fields, effective tip and cost", () => {
  const d = tx1559({ tip: 2n * GWEI, feeCap: 5n * GWEI, value: 7n, gas: 21_000n });
  assertEquals(feeCap(d), 5n * GWEI);
  assertEquals(tipCap(d), 2n * GWEI);
  assertEquals(effectiveTip(d, 1n * GWEI), 2n * GWEI); // tip binds
  assertEquals(effectiveTip(d, 4n * GWEI), 1n * GWEI); // fee cap binds
  assertEquals(effectiveTip(d, 6n * GWEI), -1n * GWEI); // not includable
  assertEquals(txCost(d), 7n + 21_000n * 5n * GWEI);
  const l = txLegacy({ gasPrice: 3n * GWEI });
  assertEquals(feeCap(l), 3n * GWEI);
  assertEquals(tipCap(l), 3n * GWEI);
  assertEquals(effectiveTip(l, 1n * GWEI), 2n * GWEI);
});

Deno.test("decodeRawTransaction: types, chain id, bad bytes", () => {
  const common = decodingCommon(CHAIN_ID);
  assert(decodingCommon(CHAIN_ID) === common);
  const tx = tx1559();
  assertEquals(decodeRawTransaction(tx.serialize(), common, ALL).hash(), tx.hash());
  const codeOf = (fn: () => unknown): string => {
    try {
      fn();
    } catch (err) {
      assert(err instanceof BaseError);
      return `${err.code}|${err.message}`;
    }
    return "ok";
  };
  assertEquals(
    codeOf(() => decodeRawTransaction(tx.serialize(), common, new Set([0, 1]))),
    "TX_TYPE_NOT_SUPPORTED|transaction type not supported",
  );
  assertEquals(
    codeOf(() => decodeRawTransaction(txLegacy().serialize(), common, new Set([2]))),
    "TX_TYPE_NOT_SUPPORTED|transaction type not supported",
  );
  assertEquals(
    codeOf(() => decodeRawTransaction(tx.serialize(), decodingCommon(10n), ALL)),
    "INVALID_SENDER|invalid sender: invalid chain id for signer",
  );
  assertEquals(
    codeOf(() => decodeRawTransaction(new Uint8Array(), common, ALL)),
    "INVALID_TRANSACTION|invalid transaction: typed transaction too short",
  );
});

Deno.test("sharedTxCommon: decoded transactions share one Common (no per-tx copy) and keep its rules", () => {
  const base = createCustomCommon({ chainId: Number(CHAIN_ID) }, Mainnet, { hardfork: Hardfork.Prague });
  const shared = sharedTxCommon(base);
  assert(sharedTxCommon(base) === shared, "one view per Common");
  const a = decodeRawTransaction(tx1559().serialize(), shared, ALL);
  const b = decodeRawTransaction(tx1559({ nonce: 1n }).serialize(), shared, ALL);
  assert(a.common === b.common, "no copy per transaction");
  // The tx parameters were merged once, so @ethereumjs still finds them.
  assertEquals(a.common.param("txGas"), 21000n);
  assertEquals(a.getIntrinsicGas(), 21000n);
  assertEquals(b.common.hardfork(), Hardfork.Prague);
  assert(decodingCommon(CHAIN_ID).copy() === decodingCommon(CHAIN_ID), "the decoding Common is a view");
  // A fully configured fork Common (the engine's) works the same way.
  const config = parseChainConfig(buildDevGenesis({ chainId: CHAIN_ID }).config);
  const rules = forkRules(config, 0n).common;
  const c = decodeRawTransaction(tx1559().serialize(), sharedTxCommon(rules), ALL);
  assertEquals(c.hash(), tx1559().hash());
  assertEquals(c.common.hardfork(), rules.hardfork());
});
