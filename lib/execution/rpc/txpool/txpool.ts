/**
 * The txpool namespace in geth's shapes (internal/ethapi TxPoolAPI): content and contentFrom
 * (sender -> nonce (decimal) -> transaction), status (pending/queued counts) and inspect
 * (sender -> nonce -> "to: value wei + gas gas × price wei").
 */
import type { TypedTransaction } from "@ethereumjs/tx";
import { toChecksumAddress } from "@ethereumjs/util";
import { bytesToHex, type Hex } from "../../../common/mod.ts";
import { defineMethod, s } from "../../../rpc/mod.ts";
import type { EthBackend } from "../backend.ts";
import { formatTransaction, q } from "../format.ts";

type ByNonce = Map<bigint, TypedTransaction>;

function group(
  accounts: Map<Hex, ByNonce>,
  fn: (tx: TypedTransaction) => unknown,
): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [address, txs] of accounts) {
    const entries: Record<string, unknown> = {};
    for (const [nonce, tx] of txs) entries[nonce.toString(10)] = fn(tx);
    out[toChecksumAddress(address)] = entries;
  }
  return out;
}

const full = (tx: TypedTransaction) => formatTransaction(tx, undefined, tx.hash());

function summary(tx: TypedTransaction): string {
  const price = "maxFeePerGas" in tx ? tx.maxFeePerGas : (tx as { gasPrice: bigint }).gasPrice;
  const to = tx.to === undefined ? "contract creation" : toChecksumAddress(tx.to.toString());
  return `${to}: ${tx.value} wei + ${tx.gasLimit} gas × ${price} wei`;
}

export function txpoolContent(backend: EthBackend) {
  return defineMethod({
    name: "txpool_content",
    params: [],
    handler: () => {
      const c = backend.pool.content();
      return { pending: group(c.pending, full), queued: group(c.queued, full) };
    },
  });
}

export function txpoolContentFrom(backend: EthBackend) {
  return defineMethod({
    name: "txpool_contentFrom",
    params: [s.address()],
    handler: ([address]) => {
      const c = backend.pool.content();
      const key = bytesToHex(address);
      const pick = (m: Map<Hex, ByNonce>) => {
        const out: Record<string, unknown> = {};
        for (const [nonce, tx] of m.get(key) ?? []) out[nonce.toString(10)] = full(tx);
        return out;
      };
      return { pending: pick(c.pending), queued: pick(c.queued) };
    },
  });
}

export function txpoolStatus(backend: EthBackend) {
  return defineMethod({
    name: "txpool_status",
    params: [],
    handler: () => {
      const st = backend.pool.status();
      return { pending: q(st.pending), queued: q(st.queued) };
    },
  });
}

export function txpoolInspect(backend: EthBackend) {
  return defineMethod({
    name: "txpool_inspect",
    params: [],
    handler: () => {
      const c = backend.pool.content();
      return { pending: group(c.pending, summary), queued: group(c.queued, summary) };
    },
  });
}
