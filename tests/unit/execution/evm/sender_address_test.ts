import {
  createAccessList2930Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  createTxFromRLP,
} from "@ethereumjs/tx";
import { createAddressFromPrivateKey, hexToBytes } from "@ethereumjs/util";
import { forkRules, txCommon } from "../../../../lib/execution/evm/mod.ts";
import type { ChainConfig } from "../../../../lib/protocol/chain_config.ts";
import { assert, assertEquals } from "../../../assert.ts";

const KEY = hexToBytes("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const ADDRESS = createAddressFromPrivateKey(KEY).toString(); // 0xf39f…2266
const CONFIG: ChainConfig = { chainId: 901n, l1: { shanghaiTime: 0n, cancunTime: 0n, pragueTime: 0n } };
const common = txCommon(forkRules(CONFIG, 0n).common);

Deno.test("sender address: every transaction type derives the signer's address, once per object", () => {
  const txs = [
    createLegacyTx({ nonce: 1n, gasPrice: 10n, gasLimit: 21000n, to: ADDRESS }, { common }).sign(KEY),
    createAccessList2930Tx({ chainId: 901n, gasPrice: 10n, gasLimit: 21000n, to: ADDRESS }, { common }).sign(
      KEY,
    ),
    createFeeMarket1559Tx({ chainId: 901n, maxFeePerGas: 10n, gasLimit: 21000n, to: ADDRESS }, { common })
      .sign(KEY),
  ];
  for (const tx of txs) {
    const a = tx.getSenderAddress();
    assertEquals(a.toString(), ADDRESS, `type ${tx.type}`);
    assert(tx.getSenderAddress() === a, `type ${tx.type}: the address is kept, not derived again`);
    // A decoded copy recovers its own sender (the memo is per object).
    const copy = createTxFromRLP(tx.serialize(), { common });
    assertEquals(copy.getSenderAddress().toString(), ADDRESS);
    assert(copy.getSenderAddress() !== a);
  }
});

Deno.test("sender address: a transaction signed by another key has another sender", () => {
  const other = hexToBytes("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
  const tx = createFeeMarket1559Tx({ chainId: 901n, maxFeePerGas: 10n, gasLimit: 21000n }, { common }).sign(
    other,
  );
  assertEquals(tx.getSenderAddress().toString(), "0x70997970c51812dc3a010c7d01b50e0d17dc79c8");
});
