/**
 * The preinstalls read from contracts-bedrock 0.17.3's Preinstalls.sol (specs/protocol/preinstalls.md):
 * the twelve of the spec at their addresses, Permit2 patched for the chain id at its two immutables only,
 * and the EIP-4788 code and sender of the Ecotone upgrade.
 */
import { assert, assertEquals } from "../../../assert.ts";
import { bigIntToBytes, bytesToBigInt, bytesToHex, concatBytes } from "../../../../lib/common/bytes.ts";
import { keccak256 } from "../../../../lib/common/hash.ts";
import { beaconBlockRootsSender, preinstalls } from "../../../../lib/execution/genesis/mod.ts";
import { BEACON_ROOTS_ADDRESS, BEACON_ROOTS_DEPLOYMENT } from "../../../../lib/protocol/predeploys.ts";

Deno.test("preinstalls: the twelve of preinstalls.md at their addresses, each with code", () => {
  const list = preinstalls(901n);
  const byName = new Map(list.map((p) => [p.name, p]));
  assertEquals(list.length, 12);
  // Addresses from specs/protocol/preinstalls.md.
  const expected: Record<string, string> = {
    MultiCall3: "0xca11bde05977b3631167028862be2a173976ca11",
    Create2Deployer: "0x13b0d85ccb8bf860b6b79af3029fca081ae9bef2",
    SafeSingletonFactory: "0x914d7fec6aac8cd542e72bca78b30650d45643d7",
    DeterministicDeploymentProxy: "0x4e59b44847b379578588920ca78fbf26c0b4956c",
    Permit2: "0x000000000022d473030f116ddee9f6b43ac78ba3",
    // ERC-4337 v0.6.0, the version contracts-bedrock 0.17.3 preinstalls.
    EntryPoint: "0x5ff137d4b0fdcd49dca30c7cf57e578a026d2789",
    SenderCreator: "0x7fc98430eaedbb6070b35b39d798725049088348",
    BeaconBlockRoots: bytesToHex(BEACON_ROOTS_ADDRESS).toLowerCase(),
  };
  for (const [name, address] of Object.entries(expected)) {
    assertEquals(bytesToHex(byName.get(name)!.address).toLowerCase(), address, name);
  }
  assertEquals(new Set(list.map((p) => bytesToHex(p.address))).size, 12, "distinct addresses");
  for (const p of list) assert(p.code.length > 0, `${p.name} has code`);
  // Preinstalls.sol's EIP-4788 code is the Ecotone upgrade deployment's runtime (after the 9-byte initcode).
  assertEquals(
    bytesToHex(byName.get("BeaconBlockRoots")!.code),
    bytesToHex(BEACON_ROOTS_DEPLOYMENT.data.subarray(9)),
  );
  // The EIP-4788 deployer account (the Ecotone upgrade's `from`), burnt with nonce 1 in the genesis.
  assertEquals(bytesToHex(beaconBlockRootsSender()), "0x0b799c86a49deeb90402691f1041aa3af2d3c875");
});

Deno.test("preinstalls: Permit2 differs between chain ids only in its chain id and domain separator", () => {
  const a = preinstalls(901n).find((p) => p.name === "Permit2")!;
  const b = preinstalls(10n).find((p) => p.name === "Permit2")!;
  assertEquals(a.code.length, b.code.length);
  const differing: number[] = [];
  for (let i = 0; i < a.code.length; i++) if (a.code[i] !== b.code[i]) differing.push(i);
  assert(differing.length > 0);
  assert(
    differing.every((i) => (i >= 6945 && i < 6977) || (i >= 6983 && i < 7015)),
    "only the two immutables",
  );
  assertEquals(bytesToBigInt(a.code.subarray(6945, 6977)), 901n);
  const enc = new TextEncoder();
  const domain = keccak256(concatBytes(
    keccak256(enc.encode("EIP712Domain(string name,uint256 chainId,address verifyingContract)")),
    keccak256(enc.encode("Permit2")),
    bigIntToBytes(901n, 32),
    bigIntToBytes(bytesToBigInt(a.address), 32),
  ));
  assertEquals(bytesToHex(a.code.subarray(6983, 7015)), bytesToHex(domain));
  // The other preinstalls do not depend on the chain id.
  const others = (id: bigint) =>
    preinstalls(id).filter((p) => p.name !== "Permit2").map((p) => bytesToHex(p.code));
  assertEquals(others(901n), others(10n));
});
