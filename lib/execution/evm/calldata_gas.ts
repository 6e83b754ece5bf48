/**
 * Calldata pricing counted in numbers: EIP-2028's 4 gas a zero byte and 16 another, EIP-7623's floor of
 * 21,000 + 10 gas a token (1 token a zero byte, 4 another), EIP-3860's 2 gas an initcode word.
 *
 * @ethereumjs/tx sums bigints byte by byte (`getDataGas`, `countCalldataFloorTokens`): each `+=` makes a
 * new BigInt, ~140 for the 68 bytes of a token transfer, ~2.3 KB of garbage a transaction (heap profile
 * of scripts/bench_block.ts), collected by the young generation between every few dozen transactions.
 * The same sums here allocate nothing per byte. The constants are geth's (params/protocol_params.go).
 */
import type { TypedTransaction } from "@ethereumjs/tx";

const TX_GAS = 21_000n;
const TX_DATA_ZERO_GAS = 4; // EIP-2028
const TX_DATA_NON_ZERO_GAS = 16; // EIP-2028
const INIT_CODE_WORD_GAS = 2; // EIP-3860
const TX_TOKEN_PER_NON_ZERO_BYTE = 4; // EIP-7623
const TOTAL_COST_FLOOR_PER_TOKEN = 10n; // EIP-7623

/** Zero bytes in `data`. */
export function countZeroBytes(data: Uint8Array): number {
  let zeros = 0;
  for (let i = 0; i < data.length; i++) if (data[i] === 0) zeros++;
  return zeros;
}

/** EIP-2028 calldata gas (4 a zero byte, 16 another), plus EIP-3860's initcode words when `initcode`. */
export function calldataGas(data: Uint8Array, initcode = false): bigint {
  const zeros = countZeroBytes(data);
  let gas = zeros * TX_DATA_ZERO_GAS + (data.length - zeros) * TX_DATA_NON_ZERO_GAS;
  if (initcode) gas += Math.ceil(data.length / 32) * INIT_CODE_WORD_GAS;
  return BigInt(gas);
}

/** EIP-7623's floor: 21,000 + 10 per token (a zero byte one token, another byte four). */
export function calldataFloor(data: Uint8Array): bigint {
  const zeros = countZeroBytes(data);
  return TX_GAS +
    BigInt(zeros + (data.length - zeros) * TX_TOKEN_PER_NON_ZERO_BYTE) * TOTAL_COST_FLOOR_PER_TOKEN;
}

/**
 * Fills a frozen transaction's `cache.dataFee` as @ethereumjs's `getDataGas` would (the parameters of the
 * transaction's Common, initcode words for a create under EIP-3860), so that `tx.getIntrinsicGas()` reads
 * it instead of summing bigints. A transaction that is not frozen (its cache not kept) is left alone.
 */
export function primeDataGas(tx: TypedTransaction): void {
  if (!Object.isFrozen(tx)) return;
  const common = tx.common;
  const hardfork = common.hardfork();
  const cache = tx.cache as { dataFee?: { value: bigint; hardfork: string } };
  if (cache.dataFee !== undefined && cache.dataFee.hardfork === hardfork) return;
  const zero = common.param("txDataZeroGas");
  const nonZero = common.param("txDataNonZeroGas");
  const zeros = countZeroBytes(tx.data);
  let value = BigInt(zeros) * zero + BigInt(tx.data.length - zeros) * nonZero;
  if ((tx.to === undefined || tx.to === null) && common.isActivatedEIP(3860)) {
    value += common.param("initCodeWordGas") * BigInt(Math.ceil(tx.data.length / 32));
  }
  cache.dataFee = { value, hardfork };
}
