/** The registry of impersonated senders: placeholder transactions know their sender while registered. */
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { assertEquals } from "../../../assert.ts";
import {
  forkRules,
  impersonatedSender,
  placeholderSignature,
  registerImpersonated,
  txCommon,
  unregisterImpersonated,
} from "../../../../lib/execution/evm/mod.ts";
import { opConfig } from "./helpers.ts";

const SENDER = new Uint8Array(20).fill(0x5e);

function placeholderTx(nonce: bigint) {
  const common = txCommon(forkRules(opConfig("isthmus"), 0n).common);
  const [v, r, s] = placeholderSignature(SENDER);
  return createFeeMarket1559Tx({ chainId: 901n, nonce, gasLimit: 21000n, to: SENDER }, { common })
    .addSignature(v, r, s);
}

Deno.test("impersonation: a short-lived registration does not take away a lasting one of the same transaction", () => {
  const tx = placeholderTx(7n);
  assertEquals(impersonatedSender(tx), undefined);
  registerImpersonated(tx.hash(), SENDER); // eth_sendUnsignedTransaction: lasting
  registerImpersonated(tx.hash(), SENDER); // eth_simulateV1 of the same bytes
  unregisterImpersonated(tx.hash()); // the simulation ends
  assertEquals(impersonatedSender(tx)?.bytes, SENDER);
  unregisterImpersonated(tx.hash());
  assertEquals(impersonatedSender(tx), undefined);
  // Another transaction of the sender was never registered.
  registerImpersonated(tx.hash(), SENDER);
  assertEquals(impersonatedSender(placeholderTx(8n)), undefined);
  unregisterImpersonated(tx.hash());
});
