/** rawTxFee: the fee cap check of eth_sendRawTransaction reads fee cap and gas from the RLP fields. */
import { rawTxFee } from "../../../../../lib/execution/rpc/eth/send_raw_transaction.ts";
import { feeCap } from "../../../../../lib/execution/txpool/mod.ts";
import { assertEquals } from "../../../../assert.ts";
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
