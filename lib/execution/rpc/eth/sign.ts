/**
 * The signing methods of the keys the node holds (`keel execution --dev`: the test mnemonic's, as
 * anvil): eth_sign and personal_sign (EIP-191 personal message), eth_signTypedData_v4 and its
 * aliases eth_signTypedData and eth_signTypedData_v3 (EIP-712). Signatures are r || s || v with v 27 or 28, in 0x hex.
 * Without the key of the address: geth's "unknown account".
 */
import { signMessage, signTypedData } from "viem/accounts";
import { BaseError as ViemError } from "viem";
import { bytesToHex, equalBytes, type Hex } from "../../../common/mod.ts";
import { defineMethod, RpcError, s, SchemaError } from "../../../rpc/mod.ts";
import type { EthContext } from "../backend.ts";

/** The private key of a dev account; geth's "unknown account" otherwise. */
export function devAccountKey(ctx: EthContext, address: Uint8Array): Uint8Array {
  const account = ctx.backend.devAccounts?.find((a) => equalBytes(a.address, address));
  if (account === undefined) throw RpcError.server("unknown account");
  return account.privateKey;
}

/** EIP-191 version 0x45: sign(keccak256("\x19Ethereum Signed Message:\n" || len(data) || data)). */
function signPersonal(ctx: EthContext, address: Uint8Array, data: Uint8Array): Promise<Hex> {
  const key = devAccountKey(ctx, address);
  return signMessage({ message: { raw: data }, privateKey: bytesToHex(key) });
}

/** eth_sign [address, data] (geth's order). */
export function ethSign(ctx: EthContext) {
  return defineMethod({
    name: "eth_sign",
    params: [s.address(), s.hex()],
    handler: ([address, data]) => signPersonal(ctx, address, data),
  });
}

/** personal_sign [data, address, password?] (geth's order; the password of geth's keystore is ignored). */
export function personalSign(ctx: EthContext) {
  return defineMethod({
    name: "personal_sign",
    params: [s.hex(), s.address(), s.optional(s.unknown())],
    handler: ([data, address]) => signPersonal(ctx, address, data),
  });
}

/** The JSON of EIP-712 typed data: {types, primaryType, domain, message}. */
export interface TypedDataJson {
  types: Record<string, { name: string; type: string }[]>;
  primaryType: string;
  domain: Record<string, unknown>;
  message: Record<string, unknown>;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Typed data as an object or as its JSON text (MetaMask sends the string). */
export const typedDataSchema = s.custom<TypedDataJson>("typedData", (v) => {
  let value = v;
  if (typeof v === "string") {
    try {
      value = JSON.parse(v);
    } catch {
      throw new SchemaError("typed data: invalid JSON");
    }
  }
  if (!isRecord(value)) {
    throw new SchemaError("typed data: want an object {types, primaryType, domain, message}");
  }
  const { types, primaryType, domain, message } = value;
  if (!isRecord(types)) throw new SchemaError("typed data: missing types");
  for (const [name, fields] of Object.entries(types)) {
    if (
      !Array.isArray(fields) ||
      !fields.every((f) => isRecord(f) && typeof f.name === "string" && typeof f.type === "string")
    ) {
      throw new SchemaError(`typed data: type ${name} is not a list of {name, type}`);
    }
  }
  if (typeof primaryType !== "string") throw new SchemaError("typed data: missing primaryType");
  if (domain !== undefined && !isRecord(domain)) throw new SchemaError("typed data: domain is not an object");
  if (!isRecord(message)) throw new SchemaError("typed data: missing message");
  return {
    types: types as TypedDataJson["types"],
    primaryType,
    domain: domain ?? {},
    message,
  };
});

/**
 * EIP-712: sign(keccak256(0x1901 || domainSeparator || hashStruct(message))). A declared
 * EIP712Domain type is used as declared (else it follows the domain's fields, as MetaMask's
 * eth-sig-util); quantities may be numbers or decimal / hex strings.
 */
async function signTyped(ctx: EthContext, address: Uint8Array, data: TypedDataJson): Promise<Hex> {
  const key = devAccountKey(ctx, address);
  try {
    return await signTypedData(
      {
        types: data.types,
        primaryType: data.primaryType,
        domain: data.domain,
        message: data.message,
        privateKey: bytesToHex(key),
      } as Parameters<typeof signTypedData>[0],
    );
  } catch (e) {
    // viem's validation (a missing type, an out-of-range integer, a malformed address, ...).
    if (e instanceof ViemError) throw RpcError.invalidParams(`invalid typed data: ${e.shortMessage}`);
    if (e instanceof Error) throw RpcError.invalidParams(`invalid typed data: ${e.message}`);
    throw e;
  }
}

/** eth_signTypedData_v4 [address, typedData]. */
export function ethSignTypedDataV4(ctx: EthContext) {
  return defineMethod({
    name: "eth_signTypedData_v4",
    params: [s.address(), typedDataSchema],
    handler: ([address, data]) => signTyped(ctx, address, data),
  });
}

/**
 * eth_signTypedData and eth_signTypedData_v3: the same as eth_signTypedData_v4 (anvil serves the three
 * names; v3's data, without arrays, is v4's too).
 */
export function ethSignTypedData(ctx: EthContext, name: "eth_signTypedData" | "eth_signTypedData_v3") {
  return defineMethod({
    name,
    params: [s.address(), typedDataSchema],
    handler: ([address, data]) => signTyped(ctx, address, data),
  });
}
