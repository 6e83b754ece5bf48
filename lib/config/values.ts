/**
 * Value kinds of the option table: each turns the text of a flag or environment variable
 * into a typed value (or rejects it with the reason), and prints a value back for `--help`.
 */
import { keccak256 } from "../common/hash.ts";
import { formatDuration, parseDuration } from "./duration.ts";
import { nearest } from "./suggest.ts";

/** Thrown by a kind's `parse`; the parser turns it into a `ConfigError` naming flag, env and value. */
export class ValueError extends Error {
  override name = "ValueError";
  /** A nearby accepted value, when there is one. */
  readonly suggestion?: string;

  constructor(message: string, suggestion?: string) {
    super(message);
    this.suggestion = suggestion;
  }
}

export interface ValueKind<T> {
  /** Placeholder shown in `--help`, e.g. `<duration>`. */
  readonly placeholder: string;
  /** The accepted form, in words, for error messages: "a duration such as 6m24s, 500ms or 0". */
  readonly form: string;
  /** A boolean flag: a bare `--flag` means true and takes no value. */
  readonly bool?: boolean;
  /** A list: a repeated flag appends, a comma splits. */
  readonly list?: boolean;
  /** Turns text into a value; throws ValueError when the text is not of this kind. */
  parse(text: string): T;
  /** Prints a value in the form `parse` accepts. */
  format(value: T): string;
}

export const bool: ValueKind<boolean> = {
  placeholder: "<bool>",
  form: "true or false",
  bool: true,
  parse(text) {
    const t = text.trim().toLowerCase();
    // Go's strconv.ParseBool forms.
    if (["true", "t", "1"].includes(t)) return true;
    if (["false", "f", "0"].includes(t)) return false;
    throw new ValueError("not a boolean");
  },
  format: (v) => String(v),
};

export const text: ValueKind<string> = {
  placeholder: "<string>",
  form: "a string",
  parse: (t) => t,
  format: (v) => v,
};

export const path: ValueKind<string> = {
  placeholder: "<path>",
  form: "a file path",
  parse(t) {
    if (t.trim() === "") throw new ValueError("empty path");
    if (t.includes("\0")) throw new ValueError("path contains a NUL byte");
    return t;
  },
  format: (v) => v,
};

/** A safe integer in [min, max]. */
export function int(min: number, max: number, placeholder = "<int>"): ValueKind<number> {
  return {
    placeholder,
    form: `an integer from ${min} to ${max}`,
    parse(t) {
      const s = t.trim();
      if (!/^[-+]?\d+$/.test(s)) throw new ValueError("not an integer");
      const n = Number(s);
      if (!Number.isSafeInteger(n) || n < min || n > max) throw new ValueError("out of range");
      return n;
    },
    format: (v) => String(v),
  };
}

export const port: ValueKind<number> = int(0, 65535, "<port>");

const UINT64_MAX = (1n << 64n) - 1n;

/** An unsigned 64-bit integer (decimal, or hex with 0x as Go's ParseUint base 0 reads it). */
export const uint64: ValueKind<bigint> = {
  placeholder: "<uint64>",
  form: "an unsigned integer from 0 to 18446744073709551615",
  parse(t) {
    const s = t.trim();
    if (!/^(\d+|0x[0-9a-fA-F]+)$/.test(s)) throw new ValueError("not an unsigned integer");
    const n = BigInt(s);
    if (n > UINT64_MAX) throw new ValueError("out of range");
    return n;
  },
  format: (v) => v.toString(),
};

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/** A signed 64-bit integer (decimal with an optional sign, or hex with 0x). */
export const int64: ValueKind<bigint> = {
  placeholder: "<int64>",
  form: `an integer from ${INT64_MIN} to ${INT64_MAX}`,
  parse(t) {
    const s = t.trim();
    if (!/^([-+]?\d+|0x[0-9a-fA-F]+)$/.test(s)) throw new ValueError("not an integer");
    const n = BigInt(s.startsWith("+") ? s.slice(1) : s);
    if (n < INT64_MIN || n > INT64_MAX) throw new ValueError("out of range");
    return n;
  },
  format: (v) => v.toString(),
};

/** A finite decimal number >= min. */
export function float(min = -Infinity): ValueKind<number> {
  return {
    placeholder: "<float>",
    form: min === -Infinity ? "a number" : `a number >= ${min}`,
    parse(t) {
      const s = t.trim();
      if (!/^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(s)) throw new ValueError("not a number");
      const n = Number(s);
      if (!Number.isFinite(n) || n < min) throw new ValueError("out of range");
      return n;
    },
    format: (v) => String(v),
  };
}

/** A Go duration, kept as milliseconds. */
export const duration: ValueKind<number> = {
  placeholder: "<duration>",
  form: "a duration such as 6m24s, 1h0m0s, 500ms or 0",
  parse(t) {
    const ms = parseDuration(t);
    if (ms === undefined) throw new ValueError("not a duration");
    return ms;
  },
  format: formatDuration,
};

/** One of a fixed set of words, matched case-insensitively and returned in canonical spelling. */
export function oneOf<const V extends string>(values: readonly V[]): ValueKind<V> {
  return {
    placeholder: `<${values.join("|")}>`,
    form: `one of ${values.join(", ")}`,
    parse(t) {
      const s = t.trim().toLowerCase();
      const hit = values.find((v) => v.toLowerCase() === s);
      if (hit === undefined) throw new ValueError("not an accepted value", nearest(s, values));
      return hit;
    },
    format: (v) => v,
  };
}

/** Checks the EIP-55 checksum of a mixed-case address. */
function checksumOk(addr: string): boolean {
  const lower = addr.slice(2).toLowerCase();
  const hash = keccak256(new TextEncoder().encode(lower));
  for (let i = 0; i < 40; i++) {
    const c = addr[2 + i];
    if (!/[a-fA-F]/.test(c)) continue;
    const nibble = (hash[i >> 1] >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    if ((nibble >= 8) !== (c === c.toUpperCase())) return false;
  }
  return true;
}

/** A 20-byte address, 0x + 40 hex digits; a mixed-case address must carry a valid EIP-55 checksum. */
export const address: ValueKind<string> = {
  placeholder: "<address>",
  form: "an address, 0x followed by 40 hex digits",
  parse(t) {
    const s = t.trim();
    if (!/^0x[0-9a-fA-F]{40}$/.test(s)) throw new ValueError("not an address");
    const body = s.slice(2);
    if (body !== body.toLowerCase() && body !== body.toUpperCase() && !checksumOk(s)) {
      throw new ValueError("bad EIP-55 checksum");
    }
    return s;
  },
  format: (v) => v,
};

/** 32 bytes as hex, with or without 0x (private keys). */
export const hex32: ValueKind<string> = {
  placeholder: "<hex>",
  form: "32 bytes as 64 hex digits, with or without 0x",
  parse(t) {
    const s = t.trim();
    if (!/^(0x)?[0-9a-fA-F]{64}$/.test(s)) throw new ValueError("not 32 bytes of hex");
    return s;
  },
  format: (v) => v,
};

/** A URL whose scheme is one of `schemes` (without the colon). */
export function url(schemes: readonly string[]): ValueKind<string> {
  return {
    placeholder: "<url>",
    form: `a URL (${schemes.map((s) => `${s}://`).join(", ")})`,
    parse(t) {
      const s = t.trim();
      let u: URL;
      try {
        u = new URL(s);
      } catch {
        throw new ValueError("not a URL");
      }
      if (!schemes.includes(u.protocol.slice(0, -1)) || u.hostname === "") {
        throw new ValueError("scheme not accepted");
      }
      return s;
    },
    format: (v) => v,
  };
}

export const HTTP_SCHEMES = ["http", "https"] as const;
export const RPC_SCHEMES = ["http", "https", "ws", "wss"] as const;

function isIPv4(s: string): boolean {
  const parts = s.split(".");
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}

function isIPv6(s: string): boolean {
  if (!s.includes(":") || !/^[0-9a-fA-F:.]+$/.test(s)) return false;
  try {
    return new URL(`http://[${s}]/`).hostname !== "";
  } catch {
    return false;
  }
}

/** An IPv4 or IPv6 address. */
export const ip: ValueKind<string> = {
  placeholder: "<ip>",
  form: "an IPv4 or IPv6 address",
  parse(t) {
    const s = t.trim();
    if (!isIPv4(s) && !isIPv6(s)) throw new ValueError("not an IP address");
    return s;
  },
  format: (v) => v,
};

/** A listen or advertise host: an IP address or a host name. */
export const host: ValueKind<string> = {
  placeholder: "<host>",
  form: "an IP address or host name",
  parse(t) {
    const s = t.trim();
    if (isIPv4(s) || isIPv6(s)) return s;
    if (!/^[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*\.?$/.test(s)) {
      throw new ValueError("not a host");
    }
    return s;
  },
  format: (v) => v,
};

/** A CIDR mask: IPv4 `a.b.c.d/n` (n <= 32) or IPv6 `x::/n` (n <= 128). */
export const cidr: ValueKind<string> = {
  placeholder: "<cidr>",
  form: "a CIDR mask such as 10.0.0.0/8 or fd00::/8",
  parse(t) {
    const s = t.trim();
    const m = /^(.+)\/(\d{1,3})$/.exec(s);
    if (m === null) throw new ValueError("not a CIDR mask");
    const bits = Number(m[2]);
    if (isIPv4(m[1]) && bits <= 32) return s;
    if (isIPv6(m[1]) && bits <= 128) return s;
    throw new ValueError("not a CIDR mask");
  },
  format: (v) => v,
};

/** A word matching `re` (bootnode ENRs, multiaddrs, header pairs), with `form` naming it. */
export function pattern(re: RegExp, placeholder: string, form: string): ValueKind<string> {
  return {
    placeholder,
    form,
    parse(t) {
      const s = t.trim();
      if (!re.test(s)) throw new ValueError("does not match");
      return s;
    },
    format: (v) => v,
  };
}

/**
 * A comma-separated list of `item` (Go's StringSliceFlag): a repeated flag appends,
 * empty entries are dropped.
 */
export function listOf<T>(item: ValueKind<T>): ValueKind<T[]> {
  return {
    placeholder: `${item.placeholder}[,...]`,
    form: `a comma-separated list, each entry ${item.form}`,
    list: true,
    parse(t) {
      return t.split(",").map((p) => p.trim()).filter((p) => p !== "").map((p) => item.parse(p));
    },
    format: (v) => v.map((x) => item.format(x)).join(","),
  };
}
