/**
 * Parameter schemas: each schema parses and validates one JSON value taken from a JSON-RPC
 * request and returns the typed value a handler works with (bigint, Uint8Array, ...).
 *
 * Error messages follow go-ethereum's JSON decoding (hexutil / common types), because viem,
 * ethers and operators' scripts see them: e.g. `hex string has length 3, want 40 for
 * common.Address`. The registry prefixes them with `invalid argument N: `.
 */
import { BaseError } from "../common/mod.ts";

/** Thrown by a schema when a value does not fit; the registry turns it into -32602. */
export class SchemaError extends BaseError {
  override name = "SchemaError";
  constructor(message: string) {
    super("RPC_INVALID_PARAM", message);
  }
}

/** One parser of a JSON value. `optional` schemas accept a missing value (and null). */
export interface Schema<T> {
  /** Human readable type name, for messages and docs. */
  readonly type: string;
  /** True when a missing or null value is allowed (it parses to undefined). */
  readonly optional: boolean;
  /** Parse and validate; throws SchemaError with a geth-style message. */
  parse(value: unknown): T;
}

/** The parsed type of a schema. */
export type Infer<S> = S extends Schema<infer T> ? T : never;

// deno-lint-ignore no-explicit-any
export type AnySchema = Schema<any>;

/** Where a block is taken (EIP-1898): a tag, a number, or a block hash. */
export type BlockTagName = "latest" | "pending" | "safe" | "finalized" | "earliest";
export type BlockNumberSpec =
  | { readonly kind: "tag"; readonly tag: BlockTagName }
  | { readonly kind: "number"; readonly number: bigint };
export type BlockSpec =
  | BlockNumberSpec
  | { readonly kind: "hash"; readonly hash: Uint8Array; readonly requireCanonical: boolean };

function make<T>(type: string, parse: (value: unknown) => T, optional = false): Schema<T> {
  return { type, optional, parse };
}

/** The JSON shape of a value, named as Go's encoding/json names it in its errors. */
function jsonKind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "string") return "string";
  if (typeof value === "number") return "number";
  if (typeof value === "boolean") return "bool";
  return "object";
}

function notString(goType: string): SchemaError {
  return new SchemaError(`json: cannot unmarshal non-string into Go value of type ${goType}`);
}

function typeError(what: string, goType: string): SchemaError {
  return new SchemaError(`json: cannot unmarshal ${what} into Go value of type ${goType}`);
}

const HEX_BODY = /^[0-9a-fA-F]*$/;

/** Nibble value per char code, -1 for a non-hex character. */
const NIBBLE = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) NIBBLE[48 + i] = i;
for (let i = 0; i < 6; i++) NIBBLE[97 + i] = NIBBLE[65 + i] = 10 + i;

/** Decode `hex` (no prefix) from offset 2 of `value`; undefined on a non-hex character. */
function decodeHexBody(value: string, bytes: number): Uint8Array | undefined {
  const out = new Uint8Array(bytes);
  for (let i = 0, j = 2; i < bytes; i++, j += 2) {
    const c1 = value.charCodeAt(j);
    const c2 = value.charCodeAt(j + 1);
    const hi = c1 < 128 ? NIBBLE[c1] : -1;
    const lo = c2 < 128 ? NIBBLE[c2] : -1;
    if (hi < 0 || lo < 0) return undefined;
    out[i] = (hi << 4) | lo;
  }
  return out;
}

function hasHexPrefix(value: string): boolean {
  return value.charCodeAt(0) === 48 && (value.charCodeAt(1) === 120 || value.charCodeAt(1) === 88);
}

/** Strict 0x-prefixed hex data of any even length (hexutil.Bytes). */
function parseHexData(value: unknown, goType: string): Uint8Array {
  if (typeof value !== "string") throw notString(goType);
  if (!hasHexPrefix(value)) throw typeError("hex string without 0x prefix", goType);
  const len = value.length - 2;
  if (len % 2 !== 0) throw typeError("hex string of odd length", goType);
  const out = decodeHexBody(value, len / 2);
  if (!out) throw typeError("invalid hex string", goType);
  return out;
}

/** Fixed-size 0x-prefixed hex (common.Address, common.Hash). */
function parseFixedHex(value: unknown, bytes: number, goType: string): Uint8Array {
  if (typeof value !== "string") throw notString(goType);
  if (!hasHexPrefix(value)) throw typeError("hex string without 0x prefix", goType);
  const len = value.length - 2;
  if (len !== bytes * 2) {
    throw new SchemaError(`hex string has length ${len}, want ${bytes * 2} for ${goType}`);
  }
  const out = decodeHexBody(value, bytes);
  if (!out) throw typeError("invalid hex string", goType);
  return out;
}

/** A hexutil quantity: 0x prefix, no leading zeros, at most `bits` bits. */
function parseQuantity(value: unknown, bits: number, goType: string): bigint {
  if (typeof value !== "string") throw notString(goType);
  if (!(value.startsWith("0x") || value.startsWith("0X"))) {
    throw typeError("hex string without 0x prefix", goType);
  }
  const body = value.slice(2);
  if (body.length === 0) throw typeError(`hex string "0x"`, goType);
  if (body.length > 1 && body[0] === "0") throw typeError("hex number with leading zero digits", goType);
  if (!HEX_BODY.test(body)) throw typeError("invalid hex string", goType);
  if (body.length > bits / 4) throw typeError(`hex number > ${bits} bits`, goType);
  return BigInt("0x" + body);
}

const BLOCK_TAGS: ReadonlySet<string> = new Set(["latest", "pending", "safe", "finalized", "earliest"]);

const MAX_INT64 = 2n ** 63n - 1n;

/** A tag or a quantity (geth rpc.BlockNumber: numbers above int64 are refused). */
function parseBlockNumberOrTag(value: string): BlockNumberSpec {
  if (BLOCK_TAGS.has(value)) return { kind: "tag", tag: value as BlockTagName };
  const number = parseQuantity(value, 64, "rpc.BlockNumber");
  if (number > MAX_INT64) throw new SchemaError("block number larger than int64");
  return { kind: "number", number };
}

/** EIP-1898: a tag, a quantity, `{blockNumber}` or `{blockHash, requireCanonical?}`. */
function parseBlockSpec(value: unknown): BlockSpec {
  // geth rpc.BlockNumberOrHash: a bare 66-character string is a block hash.
  if (typeof value === "string" && value.length === 66) {
    return { kind: "hash", hash: parseFixedHex(value, 32, "common.Hash"), requireCanonical: false };
  }
  if (typeof value === "string") return parseBlockNumberOrTag(value);
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new SchemaError(
      `json: cannot unmarshal ${jsonKind(value)} into Go value of type rpc.BlockNumberOrHash`,
    );
  }
  const obj = value as Record<string, unknown>;
  const hasNumber = obj.blockNumber !== undefined && obj.blockNumber !== null;
  const hasHash = obj.blockHash !== undefined && obj.blockHash !== null;
  if (hasNumber && hasHash) {
    throw new SchemaError("cannot specify both BlockHash and BlockNumber, choose one or the other");
  }
  if (hasHash) {
    const rc = obj.requireCanonical;
    if (rc !== undefined && rc !== null && typeof rc !== "boolean") {
      throw new SchemaError("json: cannot unmarshal non-bool into Go struct field requireCanonical");
    }
    return {
      kind: "hash",
      hash: parseFixedHex(obj.blockHash, 32, "common.Hash"),
      requireCanonical: rc === true,
    };
  }
  if (hasNumber) {
    if (typeof obj.blockNumber !== "string") throw notString("rpc.BlockNumber");
    return parseBlockNumberOrTag(obj.blockNumber);
  }
  throw new SchemaError("invalid block number or hash: neither blockNumber nor blockHash given");
}

type ObjectShape = Record<string, AnySchema>;
type InferObject<F extends ObjectShape> = { [K in keyof F]: Infer<F[K]> };

/**
 * The schema builders. Each call returns a fresh Schema; they compose:
 * `s.object({ from: s.optional(s.address()), data: s.optional(s.hex()) })`.
 */
export const s = {
  /** A 20-byte address (common.Address) as bytes. */
  address(): Schema<Uint8Array> {
    return make("address", (v) => parseFixedHex(v, 20, "common.Address"));
  },
  /** A 32-byte hash (common.Hash) as bytes. */
  hash(): Schema<Uint8Array> {
    return make("hash", (v) => parseFixedHex(v, 32, "common.Hash"));
  },
  /** 0x-prefixed even-length hex data (hexutil.Bytes) as bytes. */
  hex(): Schema<Uint8Array> {
    return make("hex", (v) => parseHexData(v, "hexutil.Bytes"));
  },
  /** A quantity (hexutil.Big): 0x, no leading zeros, at most 256 bits, as bigint. */
  quantity(): Schema<bigint> {
    return make("quantity", (v) => parseQuantity(v, 256, "*hexutil.Big"));
  },
  /** A 64-bit quantity (hexutil.Uint64) as bigint. */
  uint64(): Schema<bigint> {
    return make("uint64", (v) => parseQuantity(v, 64, "hexutil.Uint64"));
  },
  /** A JSON number or a hex / decimal string (math.HexOrDecimal64), as bigint. */
  hexOrDecimal(): Schema<bigint> {
    return make("hexOrDecimal", (v) => {
      if (typeof v === "number") {
        if (!Number.isSafeInteger(v) || v < 0) throw new SchemaError(`invalid number ${v}`);
        return BigInt(v);
      }
      if (typeof v !== "string") throw notString("math.HexOrDecimal64");
      if (/^0[xX][0-9a-fA-F]{1,16}$/.test(v) || /^[0-9]{1,20}$/.test(v)) {
        const n = BigInt(v);
        if (n < 2n ** 64n) return n;
      }
      throw new SchemaError(`invalid hex or decimal integer ${JSON.stringify(v.slice(0, 80))}`);
    });
  },
  /** A block tag, number, or EIP-1898 object (`{blockHash, requireCanonical}` / `{blockNumber}`). */
  blockTag(): Schema<BlockSpec> {
    return make("blockTag", parseBlockSpec);
  },
  /** A block tag or number only (geth rpc.BlockNumber, e.g. eth_getBlockByNumber). */
  blockNumber(): Schema<BlockNumberSpec> {
    return make("blockNumber", (v) => {
      if (typeof v !== "string") throw typeError(jsonKind(v), "rpc.BlockNumber");
      return parseBlockNumberOrTag(v);
    });
  },
  bool(): Schema<boolean> {
    return make("bool", (v) => {
      if (typeof v !== "boolean") throw typeError(jsonKind(v), "bool");
      return v;
    });
  },
  string(): Schema<string> {
    return make("string", (v) => {
      if (typeof v !== "string") throw typeError(jsonKind(v), "string");
      return v;
    });
  },
  /** One of the given strings. */
  enum<const T extends readonly string[]>(values: T): Schema<T[number]> {
    const set = new Set<string>(values);
    return make(`enum(${values.join("|")})`, (v) => {
      if (typeof v !== "string" || !set.has(v)) {
        const shown = typeof v === "string" ? JSON.stringify(v.slice(0, 80)) : jsonKind(v);
        throw new SchemaError(`invalid value ${shown}, want one of ${values.join(", ")}`);
      }
      return v as T[number];
    });
  },
  /** Any JSON value, unchecked. */
  unknown(): Schema<unknown> {
    return make("unknown", (v) => v);
  },
  /** An object with the given fields; unknown fields are ignored, as geth does. */
  object<const F extends ObjectShape>(fields: F): Schema<InferObject<F>> {
    const entries = Object.entries(fields);
    return make("object", (v) => {
      if (v === null || typeof v !== "object" || Array.isArray(v)) {
        throw new SchemaError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type object`);
      }
      const obj = v as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [key, schema] of entries) {
        const raw = obj[key];
        if (raw === undefined || raw === null) {
          if (!schema.optional) throw new SchemaError(`missing required field '${key}'`);
          out[key] = undefined;
          continue;
        }
        try {
          out[key] = schema.parse(raw);
        } catch (err) {
          if (err instanceof SchemaError) throw new SchemaError(`field '${key}': ${err.message}`);
          throw err;
        }
      }
      return out as InferObject<F>;
    });
  },
  /** An array of items, optionally bounded in length. */
  array<T>(item: Schema<T>, options: { max?: number } = {}): Schema<T[]> {
    return make(`array(${item.type})`, (v) => {
      if (!Array.isArray(v)) {
        throw new SchemaError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type array`);
      }
      if (options.max !== undefined && v.length > options.max) {
        throw new SchemaError(`too many items: ${v.length}, want at most ${options.max}`);
      }
      const out: T[] = new Array(v.length);
      for (let i = 0; i < v.length; i++) {
        try {
          out[i] = item.parse(v[i]);
        } catch (err) {
          if (err instanceof SchemaError) throw new SchemaError(`item ${i}: ${err.message}`);
          throw err;
        }
      }
      return out;
    });
  },
  /** Either null or the inner value (the param itself is required). */
  nullable<T>(inner: Schema<T>): Schema<T | null> {
    return make(`nullable(${inner.type})`, (v) => (v === null ? null : inner.parse(v)));
  },
  /** Missing or null parses to undefined; allowed only for trailing params. */
  optional<T>(inner: Schema<T>): Schema<T | undefined> {
    return make(
      `optional(${inner.type})`,
      (v) => (v === undefined || v === null ? undefined : inner.parse(v)),
      true,
    );
  },
  /** A custom parser; throw SchemaError (or any BaseError) with a clear message. */
  custom<T>(type: string, parse: (value: unknown) => T): Schema<T> {
    return make(type, (v) => {
      try {
        return parse(v);
      } catch (err) {
        if (err instanceof BaseError && !(err instanceof SchemaError)) throw new SchemaError(err.message);
        throw err;
      }
    });
  },
};

/** The schema namespace's type, for documentation. */
export type SchemaBuilders = typeof s;
