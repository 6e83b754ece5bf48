import { sha256 } from "@noble/hashes/sha2.js";
import { assert, assertEquals, assertThrows } from "../../../assert.ts";
import { bigIntToBytes, bytesToHex, concatBytes, hexToBytes } from "../../../../lib/common/bytes.ts";
import { BaseError } from "../../../../lib/common/errors.ts";
import {
  blobSidecar,
  BlockBuilder,
  configureCrypto,
  ensureKzg,
  forkRules,
  kzgToVersionedHash,
  loadKzg,
  verifyBlobSidecar,
} from "../../../../lib/execution/evm/mod.ts";
import {
  attributes,
  ETHER,
  fund,
  genesisHeader,
  installL1SystemContracts,
  l1Config,
  newState,
  SENDER,
  transfer,
} from "./helpers.ts";

function blob(seed: number): Uint8Array {
  const b = new Uint8Array(131_072);
  for (let i = 0; i < b.length; i += 32) b.fill(seed, i + 1, i + 32);
  return b;
}

Deno.test("kzg: versioned hash is 0x01 ++ sha256(commitment)[1:]", () => {
  const c = new Uint8Array(48).fill(0xc0);
  const h = kzgToVersionedHash(c);
  assertEquals(h[0], 1);
  assertEquals(h.subarray(1), sha256(c).subarray(1));
});

Deno.test("kzg: loaded once, installed into the Commons of a plain chain by ensureKzg", async () => {
  const kzg = await loadKzg();
  assertEquals(await loadKzg(), kzg);
  configureCrypto(undefined);
  assertEquals(forkRules(l1Config(), 0n).common.customCrypto.kzg, undefined);
  assertEquals(await ensureKzg(l1Config(), 0n), kzg);
  assertEquals(forkRules(l1Config(), 0n).common.customCrypto.kzg, kzg);
});

Deno.test("kzg: a sidecar must match the versioned hashes in count, size, commitment and proof", async () => {
  const kzg = await loadKzg();
  const sidecar = blobSidecar(kzg, [blob(2)]);
  const hashes = [kzgToVersionedHash(sidecar.commitments[0])];
  verifyBlobSidecar(kzg, hashes, sidecar);
  assertThrows(() => verifyBlobSidecar(kzg, [], sidecar), BaseError, "at least one blob");
  assertThrows(() => verifyBlobSidecar(kzg, [...hashes, ...hashes], sidecar), BaseError, "for 2 blob hashes");
  assertThrows(
    () => verifyBlobSidecar(kzg, hashes, { ...sidecar, blobs: [new Uint8Array(10)] }),
    BaseError,
    "blob 0 has 10 bytes",
  );
  assertThrows(
    () => verifyBlobSidecar(kzg, [kzgToVersionedHash(new Uint8Array(48))], sidecar),
    BaseError,
    "computed hash",
  );
  assertThrows(
    () => verifyBlobSidecar(kzg, hashes, { ...sidecar, blobs: [blob(3)] }),
    BaseError,
    "invalid blob proof",
  );
});

Deno.test("kzg: the point-evaluation precompile (0x0a) verifies proofs in an L1 Cancun+ block", async () => {
  const kzg = await loadKzg();
  const b0 = blob(4);
  const commitment = kzg.blobToKzgCommitment(bytesToHex(b0));
  const z = bigIntToBytes(5n, 32);
  // micro-eth-signer's KZG also computes single-point proofs ([proof, y]).
  const [proof, y] = (kzg as unknown as { computeProof(blob: string, z: string): [string, string] })
    .computeProof(bytesToHex(b0), bytesToHex(z));
  const input = (yBytes: Uint8Array) =>
    concatBytes(
      kzgToVersionedHash(hexToBytes(commitment as `0x${string}`)),
      z,
      yBytes,
      hexToBytes(commitment as `0x${string}`),
      hexToBytes(proof as `0x${string}`),
    );
  const config = l1Config();
  const sm = newState();
  await installL1SystemContracts(sm);
  await fund(sm, SENDER, ETHER);
  configureCrypto(undefined);
  const b = await BlockBuilder.open(config, genesisHeader(config, "l1"), attributes("l1"), {
    stateManager: sm,
  });
  const precompile = new Uint8Array(20);
  precompile[19] = 0x0a;
  const good = await b.addTransaction(
    transfer(config, 2n, 0n, {
      to: precompile,
      value: 0n,
      gasLimit: 200_000n,
      data: input(hexToBytes(y as `0x${string}`)),
    }),
  );
  assertEquals(good.receipt.status, 1, good.error);
  const wrongY = bigIntToBytes(BigInt(y) ^ 1n, 32);
  const bad = await b.addTransaction(
    transfer(config, 2n, 1n, { to: precompile, value: 0n, gasLimit: 200_000n, data: input(wrongY) }),
  );
  assertEquals(bad.receipt.status, 0);
  assert(bad.error !== undefined);
  await b.abort();
});
