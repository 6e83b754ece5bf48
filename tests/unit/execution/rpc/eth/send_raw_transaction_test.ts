/** rawTxFee: the fee cap check of eth_sendRawTransaction reads fee cap and gas from the RLP fields. */
import { rawTxFee } from "../../../../../lib/execution/rpc/eth/send_raw_transaction.ts";
import { feeCap } from "../../../../../lib/execution/txpool/mod.ts";
import { RLP } from "@ethereumjs/rlp";
import { assert, assertEquals } from "../../../../assert.ts";
import { GWEI, tx1559, tx2930, tx7702, txLegacy } from "../../txpool/fixtures.ts";

Deno.test("rawTxFee: fee cap * gas for legacy, 2930, 1559 and 7702 transactions", () => {
  const txs = [
    txLegacy({ gasPrice: 3n * GWEI, gas: 50_000n }),
    txLegacy({ gasPrice: 7n, unprotected: true }),
    tx2930({ gasPrice: 5n * GWEI, gas: 30_000n }),
    tx1559({ feeCap: 40n * GWEI, tip: 2n * GWEI, gas: 2_000_000n }),
    tx1559({ feeCap: 0n, tip: 0n }),
    tx7702({ auths: 2 }),
  ];
  for (const tx of txs) assertEquals(rawTxFee(tx.serialize()), feeCap(tx) * tx.gasLimit);
});

Deno.test("rawTxFee: bytes that are not a transaction list give undefined (the pool reports them)", () => {
  assertEquals(rawTxFee(new Uint8Array()), undefined);
  assertEquals(rawTxFee(new Uint8Array([0x01])), undefined);
  assertEquals(rawTxFee(new Uint8Array([0x7e, 0xc0])), undefined, "deposits have no fee cap here");
  assertEquals(rawTxFee(new Uint8Array([0x02, 0xc1, 0x80])), undefined, "too few fields");
  const raw = tx1559().serialize();
  assertEquals(rawTxFee(raw.subarray(0, raw.length - 3)), undefined, "truncated");
});

/** The reference: fee cap * gas from a full RLP.decode of the payload (the walk must agree). */
function decodedFee(raw: Uint8Array): bigint | undefined {
  const type = raw.length > 0 && raw[0] < 0x80 ? raw[0] : 0;
  const layout: Record<number, [number, number, number]> = {
    0: [1, 2, 9],
    1: [2, 3, 11],
    2: [3, 4, 12],
    3: [3, 4, 14],
    4: [3, 4, 13],
  };
  const l = layout[type];
  if (l === undefined) return undefined;
  let fields: unknown;
  try {
    fields = RLP.decode(type === 0 ? raw : raw.subarray(1));
  } catch {
    return undefined;
  }
  if (!Array.isArray(fields) || fields.length !== l[2]) return undefined;
  const [cap, gas] = [fields[l[0]], fields[l[1]]];
  if (!(cap instanceof Uint8Array) || !(gas instanceof Uint8Array) || cap.length > 32 || gas.length > 8) {
    return undefined;
  }
  const big = (b: Uint8Array) => b.length === 0 ? 0n : BigInt(`0x${b.toHex()}`);
  return big(cap) * big(gas);
}

Deno.test("rawTxFee: non-canonical RLP gives undefined, as a full decode does", () => {
  // legacy [nonce, gasPrice, gas, to, value, data, v, r, s] with gasPrice 5 written as 0x81 0x05
  const fields = [0x80, 0x81, 0x05, 0x82, 0x52, 0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80];
  const bad = new Uint8Array([0xc0 + fields.length, ...fields]);
  assertEquals(decodedFee(bad), undefined);
  assertEquals(rawTxFee(bad), undefined, "single byte below 0x80 in the long form");
  const good = new Uint8Array([0xc0 + 11, 0x80, 0x05, 0x82, 0x52, 0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80]);
  assertEquals(rawTxFee(good), 5n * 0x5208n);
  assertEquals(rawTxFee(new Uint8Array([...good, 0x00])), undefined, "trailing byte");
  const longShort = new Uint8Array([0xf8, 11, ...good.subarray(1)]);
  assertEquals(decodedFee(longShort), undefined);
  assertEquals(rawTxFee(longShort), undefined, "long list header for a short list");
});

Deno.test("rawTxFee: agrees with a full RLP decode on every one-byte change of real transactions", () => {
  const txs = [
    txLegacy({ gasPrice: 3n * GWEI, gas: 50_000n }),
    tx2930({ gasPrice: 5n * GWEI, gas: 30_000n }),
    tx1559({ feeCap: 40n * GWEI, tip: 2n * GWEI, gas: 2_000_000n }),
    tx7702({ auths: 2 }),
  ];
  let defined = 0;
  for (const tx of txs) {
    const raw = tx.serialize();
    for (let i = 0; i < raw.length; i++) {
      for (const v of [0x00, 0x7f, 0x80, 0x81, 0xb8, 0xc0, 0xf8, 0xff, raw[i] ^ 1]) {
        const m = raw.slice();
        m[i] = v;
        const want = decodedFee(m);
        assertEquals(rawTxFee(m), want, `tx type ${tx.type}, byte ${i} = ${v}`);
        if (want !== undefined) defined++;
      }
    }
  }
  assert(defined > 100, `mutations that still decode: ${defined}`);
});
