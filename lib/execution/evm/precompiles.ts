/**
 * OP-Stack precompile changes, given to the EVM through `customPrecompiles`:
 * - Fjord: P256VERIFY (RIP-7212) at 0x100, 3450 gas (specs/protocol/fjord/exec-engine.md, overview).
 * - Granite: bn256Pairing input at most 112,687 bytes (specs/protocol/granite/exec-engine.md).
 * - Isthmus: BLS12-381 G1 MSM / G2 MSM / pairing input limits (specs/protocol/isthmus/exec-engine.md "BLS Precompiles").
 * - Jovian: tighter limits on the same four (specs/protocol/jovian/exec-engine.md "Precompile Input Size Restrictions").
 * An input over a limit is an error that consumes all gas given to the precompile, as op-geth returns an error.
 */
import { type Common, Hardfork } from "@ethereumjs/common";
import {
  type CustomPrecompile,
  EVMError,
  type ExecResult,
  getActivePrecompiles,
  type PrecompileFunc,
  type PrecompileInput,
} from "@ethereumjs/evm";
import { p256 } from "@noble/curves/nist.js";
import type { OpFork } from "../../protocol/hardforks.ts";
import { OP_FORKS } from "../../protocol/hardforks.ts";

/** RIP-7212 P256VERIFY address and gas. */
export const P256VERIFY_ADDRESS = "0x0000000000000000000000000000000000000100";
export const P256VERIFY_GAS = 3450n;
/** Granite bn256Pairing input limit in bytes. */
export const GRANITE_PAIRING_MAX_INPUT = 112_687;

const after = (fork: OpFork, other: OpFork) => OP_FORKS.indexOf(fork) >= OP_FORKS.indexOf(other);

function oog(gasLimit: bigint): ExecResult {
  return {
    returnValue: new Uint8Array(),
    executionGasUsed: gasLimit,
    exceptionError: new EVMError(EVMError.errorMessages.OUT_OF_GAS),
  };
}

const ONE = new Uint8Array(32);
ONE[31] = 1;

/** RIP-7212: input hash(32) r(32) s(32) x(32) y(32); output 32-byte 1 on a valid signature, empty otherwise. */
export function p256Verify(input: PrecompileInput): ExecResult {
  if (input.gasLimit < P256VERIFY_GAS) return oog(input.gasLimit);
  const data = input.data;
  let ok = false;
  if (data.length === 160) {
    const pub = new Uint8Array(65);
    pub[0] = 4;
    pub.set(data.subarray(96, 160), 1);
    try {
      ok = p256.verify(data.subarray(32, 96), data.subarray(0, 32), pub, { prehash: false, lowS: false });
    } catch {
      ok = false;
    }
  }
  return { returnValue: ok ? ONE.slice() : new Uint8Array(), executionGasUsed: P256VERIFY_GAS };
}

function limited(inner: PrecompileFunc, maxInput: number): PrecompileFunc {
  return (input: PrecompileInput) => input.data.length > maxInput ? oog(input.gasLimit) : inner(input);
}

function addr(n: number): `0x${string}` {
  return `0x${n.toString(16).padStart(40, "0")}`;
}

/** The custom precompile list for an OP fork (empty before Fjord and on plain chains). */
export function opPrecompiles(opFork: OpFork | undefined, common: Common): CustomPrecompile[] {
  if (opFork === undefined) return [];
  const out: CustomPrecompile[] = [];
  const active = getActivePrecompiles(common);
  const builtin = (n: number): PrecompileFunc => {
    const f = active.get(addr(n).slice(2));
    if (f === undefined) throw new Error(`precompile ${addr(n)} missing for ${common.hardfork()}`);
    return f;
  };
  if (after(opFork, "fjord")) out.push({ address: P256VERIFY_ADDRESS, function: p256Verify });
  const jovian = after(opFork, "jovian");
  if (after(opFork, "granite")) {
    out.push({
      address: addr(8),
      function: limited(builtin(8), jovian ? 81_984 : GRANITE_PAIRING_MAX_INPUT),
    });
  }
  if (after(opFork, "isthmus") && common.gteHardfork(Hardfork.Prague)) {
    out.push({ address: addr(0x0c), function: limited(builtin(0x0c), jovian ? 288_960 : 513_760) });
    out.push({ address: addr(0x0e), function: limited(builtin(0x0e), jovian ? 278_784 : 488_448) });
    out.push({ address: addr(0x0f), function: limited(builtin(0x0f), jovian ? 156_672 : 235_008) });
  }
  return out;
}
