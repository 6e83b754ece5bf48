/**
 * Test helpers: a dev genesis state in a real MerkleStateManager and EVM calls into its predeploys
 * (eth_call-style on a copy, or committed like a transaction), with ABI bits to build and read calldata.
 */
import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { createEVM } from "@ethereumjs/evm";
import { Caches, MerkleStateManager } from "@ethereumjs/statemanager";
import { Address } from "@ethereumjs/util";
import { assertEquals } from "../../../assert.ts";
import { bigIntToBytes, bytesToBigInt, bytesToHex, concatBytes } from "../../../../lib/common/bytes.ts";
import { keccak256 } from "../../../../lib/common/hash.ts";
import {
  buildDevGenesis,
  buildGenesis,
  type DevGenesisOptions,
  parseGenesis,
} from "../../../../lib/execution/genesis/mod.ts";

export const TIMESTAMP = 1_700_000_000n;
export const MAX_UINT256 = (1n << 256n) - 1n;

const enc = new TextEncoder();
/** First 4 bytes of keccak256 of a function, error or event signature. */
export const selector = (signature: string): Uint8Array => keccak256(enc.encode(signature)).subarray(0, 4);
export const u256 = (v: bigint): Uint8Array => bigIntToBytes(v, 32);

/** The state of `buildDevGenesis(options)` at TIMESTAMP. */
export async function devState(options: DevGenesisOptions = {}): Promise<MerkleStateManager> {
  const sm = new MerkleStateManager({ caches: new Caches() });
  await buildGenesis(parseGenesis(buildDevGenesis({ timestamp: TIMESTAMP, ...options })), sm);
  return sm;
}

export interface CallResult {
  ok: boolean;
  data: Uint8Array;
}

/** One call; `commit` runs on the state itself (a transaction), otherwise on a copy (eth_call). */
export async function run(
  sm: MerkleStateManager,
  to: Uint8Array,
  data: Uint8Array,
  options: { caller?: Uint8Array; commit?: boolean; hardfork?: Hardfork } = {},
): Promise<CallResult> {
  const caller = options.caller ?? new Uint8Array(20);
  const commit = options.commit ?? false;
  const hardfork = options.hardfork ?? Hardfork.Prague;
  const common = createCustomCommon({ chainId: 901 }, Mainnet, { hardfork });
  const evm = await createEVM({ common, stateManager: commit ? sm : sm.shallowCopy() });
  const res = await evm.runCall({
    to: new Address(to),
    caller: new Address(caller),
    data,
    gasLimit: 30_000_000n,
    skipBalance: true,
  });
  return { ok: res.execResult.exceptionError === undefined, data: res.execResult.returnValue };
}

/** A view call that must succeed; its return data as one integer. */
export async function call(
  sm: MerkleStateManager,
  to: Uint8Array,
  data: Uint8Array,
  hardfork: Hardfork = Hardfork.Prague,
): Promise<bigint> {
  const r = await run(sm, to, data, { hardfork });
  if (!r.ok) throw new Error(`call reverted: ${bytesToHex(r.data)}`);
  return bytesToBigInt(r.data);
}

/** ABI calldata of `sig` with one `bytes` argument. */
export const bytesArg = (sig: string, b: Uint8Array): Uint8Array =>
  concatBytes(selector(sig), u256(32n), u256(BigInt(b.length)), b, new Uint8Array((32 - b.length % 32) % 32));

/** The text of Error(string) revert data (asserts the selector). */
export function revertReason(data: Uint8Array): string {
  assertEquals(bytesToHex(data.subarray(0, 4)), bytesToHex(selector("Error(string)")));
  const len = Number(bytesToBigInt(data.subarray(36, 68)));
  return new TextDecoder().decode(data.subarray(68, 68 + len));
}

/** A storage word as an integer. */
export const word = async (sm: MerkleStateManager, address: Uint8Array, slot: bigint): Promise<bigint> =>
  bytesToBigInt(await sm.getStorage(new Address(address), u256(slot)));
