/** eth_sendRawTransaction: into the pool; geth's messages pass through as -32000. */
import type { Hex } from "../../../common/mod.ts";
import { DEPOSIT_TX_TYPE } from "../../../protocol/mod.ts";
import { defineMethod, RpcError, s } from "../../../rpc/mod.ts";
import { RLP } from "@ethereumjs/rlp";
import type { EthContext } from "../backend.ts";

/** Ether with up to 2 decimals, as geth prints the fee in its txfeecap error (%0.2f). */
function ether(wei: bigint): string {
  const cents = (wei + 5n * 10n ** 15n) / 10n ** 16n;
  return `${cents / 100n}.${(cents % 100n).toString().padStart(2, "0")}`;
}

/** Field positions of [fee cap, gas limit] and the field count, per transaction type (EIP-2718 payloads). */
const FEE_FIELDS: Record<number, [number, number, number]> = {
  0: [1, 2, 9], // legacy: nonce, gasPrice, gas, to, value, data, v, r, s
  1: [2, 3, 11], // EIP-2930: chainId, nonce, gasPrice, gas, ...
  2: [3, 4, 12], // EIP-1559: chainId, nonce, tip, feeCap, gas, ...
  3: [3, 4, 14], // EIP-4844
  4: [3, 4, 13], // EIP-7702
};

/**
 * fee cap * gas of a raw transaction, read from its RLP fields without building the transaction
 * (the pool decodes it once, right after); undefined when the bytes are not a well-formed list.
 */
export function rawTxFee(raw: Uint8Array): bigint | undefined {
  const type = raw.length > 0 && raw[0] < 0x80 ? raw[0] : 0;
  const layout = FEE_FIELDS[type];
  if (layout === undefined) return undefined;
  let fields: unknown;
  try {
    fields = RLP.decode(type === 0 ? raw : raw.subarray(1));
  } catch {
    return undefined;
  }
  if (!Array.isArray(fields) || fields.length !== layout[2]) return undefined;
  const cap = fields[layout[0]];
  const gas = fields[layout[1]];
  if (!(cap instanceof Uint8Array) || !(gas instanceof Uint8Array)) return undefined;
  if (cap.length > 32 || gas.length > 8) return undefined;
  return bytesToBigInt(cap) * bytesToBigInt(gas);
}

function bytesToBigInt(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt(`0x${b.toHex()}`);
}

export function ethSendRawTransaction(ctx: EthContext) {
  return defineMethod({
    name: "eth_sendRawTransaction",
    params: [s.hex()],
    handler: async ([raw]) => {
      if (raw.length > 0 && raw[0] === DEPOSIT_TX_TYPE) {
        // Deposits come only from L1 via the rollup node (specs/protocol/deposits.md).
        throw RpcError.server("transaction type not supported");
      }
      const cap = ctx.backend.options.txFeeCap;
      if (cap > 0n) {
        // Undecodable bytes: the pool reports the decoding error with geth's message.
        const fee = rawTxFee(raw);
        if (fee !== undefined && fee > cap) {
          // geth internal/ethapi checkTxFee
          throw RpcError.server(
            `tx fee (${ether(fee)} ether) exceeds the configured cap (${ether(cap)} ether)`,
          );
        }
      }
      const hash = await ctx.backend.pool.add(raw, { local: true });
      return hash.toLowerCase() as Hex;
    },
  });
}
