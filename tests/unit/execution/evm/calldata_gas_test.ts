import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { getCalldataFloorGas, type TypedTransaction } from "@ethereumjs/tx";
import { assertEquals } from "../../../assert.ts";
import {
  calldataFloor,
  calldataGas,
  countZeroBytes,
  primeDataGas,
} from "../../../../lib/execution/evm/calldata_gas.ts";
import { decodeRawTransaction } from "../../../../lib/execution/txpool/mod.ts";
import { CHAIN_ID, tx1559, tx2930, txLegacy } from "../txpool/fixtures.ts";

const ALL = new Set([0, 1, 2, 4]);

/** The transaction decoded afresh (frozen, nothing cached) under `hardfork`. */
function fresh(tx: TypedTransaction, hardfork: string): TypedTransaction {
  const common = createCustomCommon({ chainId: Number(CHAIN_ID) }, Mainnet, { hardfork });
  return decodeRawTransaction(tx.serialize(), common, ALL);
}

/** Calldata of `n` bytes from a small generator, about a third of them zero. */
function data(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out[i] = x % 3 === 0 ? 0 : x & 0xff;
  }
  return out;
}

const CASES: TypedTransaction[] = [
  tx1559(),
  tx1559({ data: new Uint8Array([0, 1, 0, 255, 3]), gas: 100_000n }),
  tx1559({ data: data(68, 1), gas: 100_000n }),
  tx1559({ data: data(1_000, 2), gas: 1_000_000n }),
  tx1559({ to: null, data: data(100, 3), gas: 500_000n }),
  tx1559({ to: null, data: new Uint8Array(33), gas: 500_000n }),
  txLegacy({ data: data(7, 4), gas: 100_000n }),
  tx2930(),
];

Deno.test("primeDataGas: getIntrinsicGas as @ethereumjs sums it, under Prague, Shanghai and London", () => {
  for (const hardfork of [Hardfork.Prague, Hardfork.Shanghai, Hardfork.London]) {
    for (const tx of CASES) {
      const primed = fresh(tx, hardfork);
      primeDataGas(primed);
      const cached = (primed.cache as { dataFee?: { value: bigint } }).dataFee?.value;
      const plain = fresh(tx, hardfork);
      plain.getDataGas(); // fills the cache with @ethereumjs's own sum (the calldata part)
      const own = (plain.cache as { dataFee?: { value: bigint } }).dataFee?.value;
      assertEquals(cached, own, `${hardfork} ${tx.data.length} bytes`);
      assertEquals(primed.getIntrinsicGas(), plain.getIntrinsicGas());
    }
  }
});

Deno.test("calldataFloor: @ethereumjs getCalldataFloorGas under Prague (EIP-7623)", () => {
  for (const tx of CASES) {
    const t = fresh(tx, Hardfork.Prague);
    assertEquals(calldataFloor(t.data), getCalldataFloorGas(t, t.getSenderAddress()));
  }
  // 21,000 + 10 x (2 zero bytes + 4 x 3 others).
  assertEquals(calldataFloor(new Uint8Array([0, 1, 0, 2, 3])), 21_140n);
});

Deno.test("calldataGas: 4 a zero byte, 16 another, 2 an initcode word", () => {
  const d = new Uint8Array([0, 0, 7, 0, 9]);
  assertEquals(countZeroBytes(d), 3);
  assertEquals(calldataGas(d), 3n * 4n + 2n * 16n);
  assertEquals(calldataGas(new Uint8Array(33).fill(1), true), 33n * 16n + 2n * 2n);
  assertEquals(calldataGas(new Uint8Array(0), true), 0n);
});
