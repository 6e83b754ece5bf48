/**
 * eth_config on an OP chain (execution/rpc/eth/config.ts): the fork entries are the L1 forks the OP
 * forks run on (Ecotone = Cancun, Isthmus = Prague), each with the precompiles and system contracts of
 * its activation time, no blob schedule, and the EIP-2124 fork id counting the OP forks.
 */
import { crc32 } from "../../../../../lib/common/crc.ts";
import { ethConfigAt } from "../../../../../lib/execution/rpc/eth/config.ts";
import { parseChainConfig } from "../../../../../lib/protocol/chain_config.ts";
import { assertEquals } from "../../../../assert.ts";

const GENESIS = { hash: new Uint8Array(32).fill(7), timestamp: 100n };
const CONFIG = parseChainConfig({
  chainId: 901,
  homesteadBlock: 0,
  eip150Block: 0,
  eip155Block: 0,
  eip158Block: 0,
  byzantiumBlock: 0,
  constantinopleBlock: 0,
  petersburgBlock: 0,
  istanbulBlock: 0,
  muirGlacierBlock: 0,
  berlinBlock: 0,
  londonBlock: 0,
  bedrockBlock: 0,
  regolithTime: 0,
  canyonTime: 0,
  deltaTime: 0,
  ecotoneTime: 0,
  fjordTime: 0,
  graniteTime: 0,
  holoceneTime: 0,
  isthmusTime: 1000,
  jovianTime: 2000,
  optimism: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
});

function hashAfter(...forks: bigint[]): string {
  let h = crc32(GENESIS.hash);
  for (const f of forks) {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, f);
    h = crc32(b, h);
  }
  return `0x${h.toString(16).padStart(8, "0")}`;
}

Deno.test("eth_config on an OP chain before Isthmus: current Ecotone (Cancun), next and last Isthmus (Prague)", () => {
  const answer = ethConfigAt(CONFIG, GENESIS, 500n);
  const cancunPrecompiles = [
    "ECREC",
    "SHA256",
    "RIPEMD160",
    "ID",
    "MODEXP",
    "BN254_ADD",
    "BN254_MUL",
    "BN254_PAIRING",
    "BLAKE2F",
    "KZG_POINT_EVALUATION",
    "P256VERIFY",
  ];
  assertEquals(answer.current, {
    activationTime: 0, // active at genesis
    blobSchedule: null,
    chainId: "0x385",
    forkId: hashAfter(), // the genesis rules only: Isthmus (1000) and Jovian (2000) are later
    precompiles: Object.fromEntries(
      cancunPrecompiles.map((name, i) => [
        name,
        `0x${(name === "P256VERIFY" ? 0x100 : i + 1).toString(16).padStart(40, "0")}`,
      ]),
    ),
    systemContracts: { BEACON_ROOTS_ADDRESS: "0x000f3df6d732807ef1319fb7b8bb8522d0beac02" },
  });
  assertEquals(answer.next?.activationTime, 1000);
  assertEquals(answer.next?.forkId, hashAfter(1000n));
  assertEquals(Object.keys(answer.next!.precompiles).length, 18); // + BLS12-381 (0x0b..0x11)
  assertEquals(answer.next?.precompiles.BLS12_MAP_FP2_TO_G2, `0x${"11".padStart(40, "0")}`);
  // Isthmus runs EIP-2935 but no execution-layer requests: no queues, no deposit contract.
  assertEquals(answer.next?.systemContracts, {
    BEACON_ROOTS_ADDRESS: "0x000f3df6d732807ef1319fb7b8bb8522d0beac02",
    HISTORY_STORAGE_ADDRESS: "0x0000f90827f1c53a10cb7a02335b175320002935",
  });
  assertEquals(answer.last, answer.next);
});

Deno.test("eth_config on an OP chain after the last L1-equivalent fork: next and last null", () => {
  const answer = ethConfigAt(CONFIG, GENESIS, 1500n);
  assertEquals(answer.current?.activationTime, 1000);
  assertEquals(answer.next, null);
  assertEquals(answer.last, null);
});

Deno.test("eth_config on a chain before Shanghai: current null (geth: Paris has no timestamp)", () => {
  const blocks = [
    "homestead",
    "eip150",
    "eip155",
    "eip158",
    "byzantium",
    "constantinople",
    "petersburg",
    "istanbul",
    "berlin",
    "london",
  ];
  const config = parseChainConfig({
    chainId: 5,
    ...Object.fromEntries(blocks.map((f) => [`${f}Block`, 0])),
    shanghaiTime: 5000,
  });
  const answer = ethConfigAt(config, { hash: new Uint8Array(32), timestamp: 0n }, 10n);
  assertEquals(answer.current, null);
  assertEquals(answer.next?.activationTime, 5000);
  assertEquals(answer.next?.blobSchedule, null);
  assertEquals(answer.next?.systemContracts, {});
  assertEquals(answer.last, answer.next);
});
