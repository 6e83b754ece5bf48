/**
 * Predeploy addresses and upgrade deployments, pinned against the OP specs.
 * Source: https://github.com/ethereum-optimism/specs/blob/main/specs/protocol/predeploys.md (Overview table),
 * specs/protocol/preinstalls.md, ecotone/derivation.md, isthmus/derivation.md.
 */
import { RLP } from "@ethereumjs/rlp";
import { bytesToHex } from "../../lib/common/bytes.ts";
import { keccak256 } from "../../lib/common/hash.ts";
import {
  BEACON_ROOTS_DEPLOYMENT,
  CREATE2_DEPLOYER_CODE,
  CREATE2_DEPLOYER_CODE_HASH,
  HISTORY_STORAGE_DEPLOYMENT,
  PREDEPLOYS,
} from "../../lib/protocol/predeploys.ts";
import { assertEquals } from "../assert.ts";

Deno.test("predeploys: addresses match the spec tables", () => {
  // predeploys.md "Overview", preinstalls.md, deposits.md.
  const expected: Record<string, string> = {
    LegacyMessagePasser: "0x4200000000000000000000000000000000000000",
    WETH9: "0x4200000000000000000000000000000000000006",
    L2CrossDomainMessenger: "0x4200000000000000000000000000000000000007",
    GasPriceOracle: "0x420000000000000000000000000000000000000f",
    L2StandardBridge: "0x4200000000000000000000000000000000000010",
    SequencerFeeVault: "0x4200000000000000000000000000000000000011",
    OptimismMintableERC20Factory: "0x4200000000000000000000000000000000000012",
    L2ERC721Bridge: "0x4200000000000000000000000000000000000014",
    L1Block: "0x4200000000000000000000000000000000000015",
    L2ToL1MessagePasser: "0x4200000000000000000000000000000000000016",
    ProxyAdmin: "0x4200000000000000000000000000000000000018",
    BaseFeeVault: "0x4200000000000000000000000000000000000019",
    L1FeeVault: "0x420000000000000000000000000000000000001a",
    OperatorFeeVault: "0x420000000000000000000000000000000000001b",
    GovernanceToken: "0x4200000000000000000000000000000000000042",
    L1AttributesDepositor: "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001",
    Create2Deployer: "0x13b0d85ccb8bf860b6b79af3029fca081ae9bef2",
    BeaconBlockRoots: "0x000f3df6d732807ef1319fb7b8bb8522d0beac02",
    HistoryStorage: "0x0000f90827f1c53a10cb7a02335b175320002935",
  };
  for (const [name, address] of Object.entries(expected)) {
    assertEquals(bytesToHex(PREDEPLOYS[name]), address, name);
  }
  for (const [name, address] of Object.entries(PREDEPLOYS)) assertEquals(address.length, 20, name);
});

Deno.test("predeploys: create2Deployer code hashes to op-geth's create2DeployerCodeHash", () => {
  assertEquals(bytesToHex(keccak256(CREATE2_DEPLOYER_CODE)), bytesToHex(CREATE2_DEPLOYER_CODE_HASH));
});

Deno.test("predeploys: upgrade deployments create their contract at the spec address (nonce 0)", () => {
  // ecotone/derivation.md: cast compute-address --nonce=0 0x0B799C86... = 0x000F3df6...
  // isthmus/derivation.md: cast compute-address --nonce=0 0x3462413A... = 0x0000F908...
  for (const d of [BEACON_ROOTS_DEPLOYMENT, HISTORY_STORAGE_DEPLOYMENT]) {
    const created = keccak256(RLP.encode([d.from, new Uint8Array()])).subarray(12);
    assertEquals(bytesToHex(created), bytesToHex(d.address), d.intent);
  }
});
