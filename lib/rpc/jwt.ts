/**
 * Engine API authentication (ethereum/execution-apis src/engine/authentication.md):
 * every request carries `Authorization: Bearer <JWT>`, HS256 only, signed with a 32-byte
 * shared secret, and its `iat` claim must be within ±60 seconds of the server's clock.
 * Anything else (no token, another algorithm including `none`, a bad signature, a missing or
 * stale `iat`) is refused with HTTP 401 by the listener.
 *
 * The secret lives in a file as 64 hex characters, with or without `0x`
 * (op-node `--l2.jwt-secret`, geth `--authrpc.jwtsecret`).
 */
import { jwtVerify, SignJWT } from "jose";
import { dirname, join } from "node:path";
import { BaseError, bytesToHex, hexToBytes } from "../common/mod.ts";

/** Allowed distance between the token's `iat` and now (authentication.md: "±60 seconds"). */
export const JWT_IAT_WINDOW_SECONDS = 60;

/** Result of checking an Authorization header. */
export type JwtCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * Check an `Authorization` header value against the secret at time `nowSeconds`
 * (unix seconds, from the injected clock). Never throws.
 */
export async function verifyJwtAuthorization(
  header: string | null | undefined,
  secret: Uint8Array,
  nowSeconds: number,
): Promise<JwtCheck> {
  if (!header) return { ok: false, reason: "missing token" };
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) return { ok: false, reason: "missing token" };
  let iat: unknown;
  try {
    const { payload } = await jwtVerify(match[1], secret, {
      algorithms: ["HS256"],
      requiredClaims: ["iat"],
      currentDate: new Date(nowSeconds * 1000),
    });
    iat = payload.iat;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    return { ok: false, reason: typeof code === "string" ? `invalid token: ${code}` : "invalid token" };
  }
  if (typeof iat !== "number" || !Number.isFinite(iat)) return { ok: false, reason: "missing issued-at" };
  if (iat < nowSeconds - JWT_IAT_WINDOW_SECONDS) return { ok: false, reason: "stale token" };
  if (iat > nowSeconds + JWT_IAT_WINDOW_SECONDS) return { ok: false, reason: "future token" };
  return { ok: true };
}

/** A token for an Engine API client: HS256, `iat` = `nowSeconds`. */
export async function createJwtToken(secret: Uint8Array, nowSeconds: number): Promise<string> {
  assertSecretLength(secret);
  return await new SignJWT({})
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuedAt(Math.floor(nowSeconds))
    .sign(secret);
}

/** The `Authorization` header value for a request sent at `nowSeconds`. */
export async function jwtAuthorizationHeader(secret: Uint8Array, nowSeconds: number): Promise<string> {
  return `Bearer ${await createJwtToken(secret, nowSeconds)}`;
}

function assertSecretLength(secret: Uint8Array): void {
  if (secret.length !== 32) {
    throw new BaseError("RPC_BAD_JWT_SECRET", `Cannot use JWT secret: want 32 bytes, got ${secret.length}`);
  }
}

/** Parse a secret file's text: 64 hex characters, optional 0x, surrounding whitespace ignored. */
export function parseJwtSecret(text: string, source = "JWT secret"): Uint8Array {
  const trimmed = text.trim();
  const hex = trimmed.startsWith("0x") || trimmed.startsWith("0X") ? trimmed.slice(2) : trimmed;
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
    throw new BaseError(
      "RPC_BAD_JWT_SECRET",
      `Cannot read ${source}: want 32 bytes as 64 hex characters, got ${hex.length} characters`,
    );
  }
  return hexToBytes(hex);
}

/** What loadOrCreateJwtSecret found or made. */
export interface JwtSecretFile {
  readonly secret: Uint8Array;
  /** The file the secret is in; undefined only when neither a path nor a data dir was given. */
  readonly path: string | undefined;
  /** True when a new secret was generated (and written to `path`, if any). */
  readonly created: boolean;
}

/** File name of the generated secret inside the data directory. */
export const DEFAULT_JWT_SECRET_FILE = "jwtsecret";

/**
 * Load the Engine API secret, or generate one.
 * - `path` given and the file holds a secret: use it (a malformed file is an error, never
 *   silently replaced).
 * - `path` given and the file is missing or empty: generate 32 random bytes and write them as
 *   `0x`-hex with mode 0600 to `path` (op-node and the spec: "a new key is generated if left
 *   empty"; the interop option: "generated if the file is empty").
 * - `path` empty or undefined: use `<dataDir>/jwtsecret` the same way (geth keeps its generated
 *   secret in the data directory), so a restart reuses the same secret.
 * - neither a path nor a data dir: an in-memory secret (`path` undefined), for tests and
 *   ephemeral dev nodes; the caller must log that no file holds it.
 */
export async function loadOrCreateJwtSecret(
  path: string | undefined,
  options: { dataDir?: string } = {},
): Promise<JwtSecretFile> {
  const given = path?.trim() ?? "";
  const file = given !== ""
    ? given
    : options.dataDir
    ? join(options.dataDir, DEFAULT_JWT_SECRET_FILE)
    : undefined;
  if (file === undefined) {
    return { secret: crypto.getRandomValues(new Uint8Array(32)), path: undefined, created: true };
  }
  let text: string | undefined;
  try {
    text = await Deno.readTextFile(file);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) {
      throw new BaseError(
        "RPC_BAD_JWT_SECRET",
        `Cannot read JWT secret file ${file}: ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    }
  }
  if (text !== undefined && text.trim() !== "") {
    return { secret: parseJwtSecret(text, `JWT secret file ${file}`), path: file, created: false };
  }
  const secret = crypto.getRandomValues(new Uint8Array(32));
  try {
    // The directory is made only when missing: a process allowed to write just this file may not
    // touch its directory (keel node's permissions grant the file itself).
    try {
      await Deno.writeTextFile(file, bytesToHex(secret), { mode: 0o600 });
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
      await Deno.mkdir(dirname(file), { recursive: true, mode: 0o700 });
      await Deno.writeTextFile(file, bytesToHex(secret), { mode: 0o600 });
    }
    // mode applies only when the file is created: an existing empty file keeps its mode otherwise.
    await Deno.chmod(file, 0o600);
  } catch (err) {
    throw new BaseError(
      "RPC_BAD_JWT_SECRET",
      `Cannot write JWT secret file ${file}: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
  return { secret, path: file, created: true };
}
