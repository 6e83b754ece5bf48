/**
 * The integer parameters of the dev methods as anvil reads them (alloy U256/u64): a JSON number, a hex
 * string (leading zeros allowed, as a 32-byte storage slot has them) or a decimal string. `cast rpc
 * anvil_mine 2` sends a JSON number; viem's setStorageAt sends a slot as a 32-byte hash.
 */
import { s, type Schema, SchemaError } from "../../../rpc/mod.ts";

export function devQuantity(bits = 256): Schema<bigint> {
  return s.custom<bigint>(bits === 64 ? "u64" : "U256", (v) => {
    let n: bigint;
    if (typeof v === "number") {
      if (!Number.isSafeInteger(v) || v < 0) throw new SchemaError(`invalid number ${v}`);
      n = BigInt(v);
    } else if (typeof v === "string" && (/^0[xX][0-9a-fA-F]+$/.test(v) || /^[0-9]+$/.test(v))) {
      n = BigInt(v);
    } else {
      throw new SchemaError(`invalid integer ${JSON.stringify(v)}: want a number, hex or decimal`);
    }
    if (n >> BigInt(bits) !== 0n) throw new SchemaError(`integer ${v} does not fit in ${bits} bits`);
    return n;
  });
}
