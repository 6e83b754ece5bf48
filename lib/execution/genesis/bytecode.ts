/**
 * Runtime code from a forge artifact, with `immutable` variables filled in.
 * solc leaves a 32-byte placeholder for each read of an immutable in the deployed bytecode and lists
 * those offsets in `deployedBytecode.immutableReferences`, keyed by the AST id of the variable.
 * Writing the ABI-encoded (32-byte, right-aligned) value at every offset gives the same runtime code
 * the constructor would have returned.
 */
import { BaseError } from "../../common/errors.ts";
import { bigIntToBytes, bytesToBigInt, hexToBytes } from "../../common/bytes.ts";
import type { Artifact } from "./artifacts.ts";

/** An immutable's value: bigint (uint/enum), boolean, or bytes (address / bytes32, right-aligned). */
export type ImmutableValue = bigint | boolean | Uint8Array;

/** AST id -> name of every `immutable` state variable declared in the given artifacts' sources. */
export function immutableNames(...sources: Artifact[]): Map<number, string> {
  const out = new Map<number, string>();
  const stack: unknown[] = sources.map((a) => a.ast);
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (const n of node) stack.push(n);
    } else if (typeof node === "object" && node !== null) {
      const n = node as Record<string, unknown>;
      if (n.nodeType === "VariableDeclaration" && n.mutability === "immutable") {
        out.set(n.id as number, n.name as string);
      }
      for (const v of Object.values(n)) if (typeof v === "object" && v !== null) stack.push(v);
    }
  }
  return out;
}

function word(v: ImmutableValue): Uint8Array {
  if (typeof v === "boolean") return bigIntToBytes(v ? 1n : 0n, 32);
  if (typeof v === "bigint") return bigIntToBytes(v, 32);
  if (v.length > 32) throw new BaseError("INVALID_IMMUTABLE", `Cannot encode immutable of ${v.length} bytes`);
  return bigIntToBytes(bytesToBigInt(v), 32);
}

/**
 * The deployed bytecode of `artifact` with its immutables set from `values` (by variable name).
 * `sources` are the artifacts whose ASTs declare the immutables (the contract itself and the parents
 * that declare them, e.g. `FeeVault` for `SequencerFeeVault`). Every immutable must be given.
 */
export function runtimeCode(
  artifact: Artifact,
  name: string,
  values: Record<string, ImmutableValue> = {},
  sources: Artifact[] = [],
): Uint8Array {
  const code = hexToBytes(artifact.deployedBytecode.object);
  const refs = artifact.deployedBytecode.immutableReferences ?? {};
  const ids = Object.keys(refs);
  if (ids.length === 0) return code;
  const names = immutableNames(artifact, ...sources);
  const used = new Set<string>();
  for (const id of ids) {
    const varName = names.get(Number(id));
    if (varName === undefined) {
      throw new BaseError(
        "UNKNOWN_IMMUTABLE",
        `Cannot resolve immutable #${id} of ${name}: pass its declaring artifact`,
      );
    }
    const value = values[varName];
    if (value === undefined) {
      throw new BaseError("MISSING_IMMUTABLE", `Cannot build ${name}: immutable ${varName} has no value`);
    }
    used.add(varName);
    const w = word(value);
    for (const { start, length } of refs[id]) {
      if (length !== 32 || start + 32 > code.length) {
        throw new BaseError("INVALID_IMMUTABLE", `Cannot patch ${name}: bad reference ${start}+${length}`);
      }
      code.set(w, start);
    }
  }
  for (const key of Object.keys(values)) {
    if (!used.has(key)) {
      throw new BaseError("UNKNOWN_IMMUTABLE", `Cannot build ${name}: it has no immutable ${key}`);
    }
  }
  return code;
}
