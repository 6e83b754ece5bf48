/**
 * The L1Block predeploy's state as the dev miner reads it for the next L1-info deposit: its values
 * (the layout of l1_block_info.ts L1_BLOCK_SLOTS), the code behind its proxy, and which L1-info
 * format that code accepts.
 */
import type { StateManagerInterface } from "@ethereumjs/common";
import { Address, bigIntToBytes as ejsBigIntToBytes, bytesToBigInt, setLengthLeft } from "@ethereumjs/util";
import { bigIntToBytes } from "../../common/bytes.ts";
import {
  type Header,
  L1_BLOCK_ADDRESS,
  L1_BLOCK_SLOTS,
  L1_INFO_SELECTORS,
  type L1BlockInfo,
  type L1InfoFormat,
} from "../../protocol/mod.ts";
import { EIP1967_IMPLEMENTATION_SLOT } from "../genesis/mod.ts";
import type { ExecutionEngine } from "./execution_engine.ts";

const U64 = (1n << 64n) - 1n;
const field = (word: bigint, offset: number, bytes: number) =>
  (word >> BigInt(offset * 8)) & ((1n << BigInt(bytes * 8)) - 1n);

/** Reads the L1Block predeploy's values at `header` (the layout of l1_block_info.ts L1_BLOCK_SLOTS). */
export function readL1BlockInfo(engine: ExecutionEngine, header: Header): Promise<L1BlockInfo> {
  return engine.readState(header, l1BlockInfoOf);
}

/** The L1Block predeploy's values in `sm`. */
export async function l1BlockInfoOf(sm: StateManagerInterface): Promise<L1BlockInfo> {
  const a = new Address(L1_BLOCK_ADDRESS);
  const slot = async (n: bigint) =>
    bytesToBigInt(await sm.getStorage(a, setLengthLeft(ejsBigIntToBytes(n), 32)));
  const s0 = await slot(L1_BLOCK_SLOTS.numberTimestamp);
  const s3 = await slot(L1_BLOCK_SLOTS.scalars);
  const s8 = await slot(L1_BLOCK_SLOTS.operatorFee);
  return {
    number: s0 & U64,
    timestamp: field(s0, 8, 8),
    baseFee: await slot(L1_BLOCK_SLOTS.basefee),
    blockHash: bigIntToBytes(await slot(L1_BLOCK_SLOTS.hash), 32),
    sequenceNumber: s3 & U64,
    blobBaseFeeScalar: field(s3, 8, 4),
    baseFeeScalar: field(s3, 12, 4),
    batcherHash: bigIntToBytes(await slot(L1_BLOCK_SLOTS.batcherHash), 32),
    l1FeeOverhead: await slot(L1_BLOCK_SLOTS.l1FeeOverhead),
    l1FeeScalar: await slot(L1_BLOCK_SLOTS.l1FeeScalar),
    blobBaseFee: await slot(L1_BLOCK_SLOTS.blobBaseFee),
    operatorFeeConstant: s8 & U64,
    operatorFeeScalar: field(s8, 8, 4),
    daFootprintGasScalar: field(s8, 12, 2),
  };
}

const FORMATS: L1InfoFormat[] = ["bedrock", "ecotone", "isthmus", "jovian"];

/**
 * The code that answers calls to the L1Block predeploy: behind its EIP-1967 proxy (predeploys.md:
 * the 0x4200… predeploys are proxies), the implementation's; the account's own code otherwise.
 */
export async function l1BlockImplementationCode(
  state: {
    getCode(a: Address): Promise<Uint8Array>;
    getStorage(a: Address, k: Uint8Array): Promise<Uint8Array>;
  },
): Promise<Uint8Array> {
  const l1Block = new Address(L1_BLOCK_ADDRESS);
  const impl = await state.getStorage(l1Block, EIP1967_IMPLEMENTATION_SLOT);
  if (impl.length === 0 || impl.every((b) => b === 0)) return await state.getCode(l1Block);
  return await state.getCode(new Address(setLengthLeft(impl, 32).subarray(12)));
}

/**
 * The newest L1-info format up to `wanted` whose setter the deployed L1Block has (its selector follows a
 * PUSH4 in the dispatcher). A genesis with an older L1Block (contracts-bedrock 0.17.3 stops at Ecotone)
 * would revert an Isthmus-format call and leave the L1Block values frozen.
 */
export function callableL1InfoFormat(code: Uint8Array, wanted: L1InfoFormat): L1InfoFormat {
  for (let i = FORMATS.indexOf(wanted); i > 0; i--) {
    if (containsPush4(code, L1_INFO_SELECTORS[FORMATS[i]])) return FORMATS[i];
  }
  return "bedrock";
}

function containsPush4(code: Uint8Array, selector: Uint8Array): boolean {
  outer: for (let i = 0; i + 5 <= code.length; i++) {
    if (code[i] !== 0x63) continue;
    for (let j = 0; j < 4; j++) if (code[i + 1 + j] !== selector[j]) continue outer;
    return true;
  }
  return false;
}
