import { assert, assertEquals, assertRejects, assertThrows } from "../../assert.ts";
import { SignJWT, UnsecuredJWT } from "jose";
import { BaseError } from "../../../lib/common/mod.ts";
import {
  createJwtToken,
  jwtAuthorizationHeader,
  loadOrCreateJwtSecret,
  parseJwtSecret,
  verifyJwtAuthorization,
} from "../../../lib/rpc/jwt.ts";

const SECRET = new Uint8Array(32).map((_, i) => i + 1);
const NOW = 1_700_000_000;

async function hs(alg: string, iat: number | undefined, key: Uint8Array): Promise<string> {
  const jwt = new SignJWT({}).setProtectedHeader({ alg });
  if (iat !== undefined) jwt.setIssuedAt(iat);
  return await jwt.sign(key);
}

Deno.test("a fresh HS256 token passes; iat within ±60 s passes", async () => {
  assertEquals(await verifyJwtAuthorization(await jwtAuthorizationHeader(SECRET, NOW), SECRET, NOW), {
    ok: true,
  });
  for (const iat of [NOW - 60, NOW + 60, NOW - 59, NOW + 30]) {
    assertEquals(await verifyJwtAuthorization(`Bearer ${await createJwtToken(SECRET, iat)}`, SECRET, NOW), {
      ok: true,
    });
  }
});

Deno.test("expired iat, future iat, missing iat are refused", async () => {
  const old = await verifyJwtAuthorization(`Bearer ${await createJwtToken(SECRET, NOW - 61)}`, SECRET, NOW);
  assertEquals(old, { ok: false, reason: "stale token" });
  const future = await verifyJwtAuthorization(
    `Bearer ${await createJwtToken(SECRET, NOW + 61)}`,
    SECRET,
    NOW,
  );
  assertEquals(future, { ok: false, reason: "future token" });
  const noIat = await verifyJwtAuthorization(`Bearer ${await hs("HS256", undefined, SECRET)}`, SECRET, NOW);
  assertEquals(noIat.ok, false);
});

Deno.test("alg none, HS512, wrong secret, garbage and missing tokens are refused", async () => {
  const none = new UnsecuredJWT({}).setIssuedAt(NOW).encode();
  assertEquals((await verifyJwtAuthorization(`Bearer ${none}`, SECRET, NOW)).ok, false);
  const hs512 = await hs("HS512", NOW, SECRET);
  assertEquals((await verifyJwtAuthorization(`Bearer ${hs512}`, SECRET, NOW)).ok, false);
  const otherKey = new Uint8Array(32).fill(9);
  assertEquals(
    (await verifyJwtAuthorization(`Bearer ${await createJwtToken(otherKey, NOW)}`, SECRET, NOW)).ok,
    false,
  );
  assertEquals((await verifyJwtAuthorization("Bearer not.a.token", SECRET, NOW)).ok, false);
  assertEquals(await verifyJwtAuthorization(undefined, SECRET, NOW), { ok: false, reason: "missing token" });
  assertEquals(await verifyJwtAuthorization("Basic abc", SECRET, NOW), {
    ok: false,
    reason: "missing token",
  });
  // A token whose signature was made for another payload.
  const good = await createJwtToken(SECRET, NOW);
  const [h, , sig] = good.split(".");
  const forged = `${h}.${btoa(JSON.stringify({ iat: NOW, admin: true })).replace(/=+$/, "")}.${sig}`;
  assertEquals((await verifyJwtAuthorization(`Bearer ${forged}`, SECRET, NOW)).ok, false);
});

Deno.test("parseJwtSecret: 64 hex with or without 0x and whitespace; anything else is an error", async () => {
  const hex = Array.from(SECRET, (b) => b.toString(16).padStart(2, "0")).join("");
  assertEquals(parseJwtSecret(hex), SECRET);
  assertEquals(parseJwtSecret(`0x${hex}\n`), SECRET);
  assertThrows(
    () => parseJwtSecret("0x1234"),
    BaseError,
    "want 32 bytes as 64 hex characters, got 4 characters",
  );
  assertThrows(() => parseJwtSecret("zz".repeat(32)), BaseError, "64 hex characters");
  await assertRejects(() => createJwtToken(new Uint8Array(16), NOW), BaseError, "want 32 bytes, got 16");
});

Deno.test("loadOrCreateJwtSecret: generates with mode 0600, reuses, refuses a bad file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-jwt-" });
  try {
    const path = `${dir}/sub/jwt.hex`;
    const first = await loadOrCreateJwtSecret(path);
    assert(first.created);
    assertEquals(first.path, path);
    assertEquals(first.secret.length, 32);
    assertEquals((await Deno.stat(path)).mode! & 0o777, 0o600);
    const text = await Deno.readTextFile(path);
    assertEquals(parseJwtSecret(text), first.secret);
    assert(text.startsWith("0x"));

    const again = await loadOrCreateJwtSecret(path);
    assertEquals(again.created, false);
    assertEquals(again.secret, first.secret);

    // Empty path: <dataDir>/jwtsecret, created once and then reused.
    const d1 = await loadOrCreateJwtSecret("", { dataDir: dir });
    assertEquals(d1.path, `${dir}/jwtsecret`);
    assert(d1.created);
    const d2 = await loadOrCreateJwtSecret(undefined, { dataDir: dir });
    assertEquals(d2.secret, d1.secret);
    assertEquals(d2.created, false);

    // An empty file gets a secret (and mode 0600).
    const empty = `${dir}/empty`;
    await Deno.writeTextFile(empty, "", { mode: 0o644 });
    const e = await loadOrCreateJwtSecret(empty);
    assert(e.created);
    assertEquals((await Deno.stat(empty)).mode! & 0o777, 0o600);

    // A malformed file is an error, never replaced.
    const bad = `${dir}/bad`;
    await Deno.writeTextFile(bad, "0x1234");
    await assertRejects(() => loadOrCreateJwtSecret(bad), BaseError, "Cannot read JWT secret file");
    assertEquals(await Deno.readTextFile(bad), "0x1234");

    // Neither path nor data dir: in memory only.
    const mem = await loadOrCreateJwtSecret(undefined);
    assertEquals(mem.path, undefined);
    assertEquals(mem.secret.length, 32);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
