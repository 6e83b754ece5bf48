/**
 * buildL2Alloc, runtimeCode and packStorage: the L2 genesis rules of OP-CONTRACTS.md section 4,
 * checked slot by slot and through real EVM calls; immutable patching checked against running the
 * constructor.
 */
import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { createEVM } from "@ethereumjs/evm";
import { Caches, MerkleStateManager } from "@ethereumjs/statemanager";
import { Address } from "@ethereumjs/util";
import { assert, assertEquals } from "../../../assert.ts";
import {
  bigIntToBytes,
  bytesToBigInt,
  bytesToHex,
  concatBytes,
  hexToBytes,
} from "../../../../lib/common/bytes.ts";
import { keccak256 } from "../../../../lib/common/hash.ts";
import {
  ARTIFACTS,
  buildGenesis,
  buildL2Alloc,
  devChainConfig,
  type GenesisAccountJson,
  implementationAddress,
  type L2AllocOptions,
  parseGenesis,
  PREDEPLOY_COUNT,
  preinstalls,
} from "../../../../lib/execution/genesis/mod.ts";
import {
  BEACON_ROOTS_ADDRESS,
  BEACON_ROOTS_DEPLOYMENT,
  L2_CROSS_DOMAIN_MESSENGER_ADDRESS,
  L2_ERC721_BRIDGE_ADDRESS,
  L2_STANDARD_BRIDGE_ADDRESS,
  OPTIMISM_MINTABLE_ERC20_FACTORY_ADDRESS,
  OPTIMISM_MINTABLE_ERC721_FACTORY_ADDRESS,
  PROXY_ADMIN_ADDRESS,
} from "../../../../lib/protocol/predeploys.ts";

const a = (n: number) => bigIntToBytes(BigInt(n), 20);
const OPTIONS: L2AllocOptions = {
  l1ChainId: 900n,
  l2ChainId: 901n,
  proxyAdminOwner: a(0x0a),
  sequencerFeeVault: { recipient: a(0x11), minWithdrawalAmount: 5n, withdrawalNetwork: 0 },
  baseFeeVault: { recipient: a(0x19), minWithdrawalAmount: 6n, withdrawalNetwork: 1 },
  l1FeeVault: { recipient: a(0x1a), minWithdrawalAmount: 7n, withdrawalNetwork: 0 },
  l1CrossDomainMessenger: a(0xc1),
  l1StandardBridge: a(0xc2),
  l1ERC721Bridge: a(0xc3),
  gasPriceOracle: { ecotone: true, fjord: true },
  preinstalls: true,
  historyStorage: true,
  precompileBalances: true,
};

const slotHex = (n: bigint) => bytesToHex(bigIntToBytes(n, 32));
const wordHex = (b: Uint8Array | bigint) =>
  bytesToHex(bigIntToBytes(typeof b === "bigint" ? b : bytesToBigInt(b), 32));
const storageOf = (alloc: Record<string, GenesisAccountJson>, address: Uint8Array) =>
  alloc[bytesToHex(address)]?.storage ?? {};

const common = () => createCustomCommon({ chainId: 901 }, Mainnet, { hardfork: Hardfork.Prague });

Deno.test("L2 alloc: proxies over the namespace, implementations and initialized storage per OP-CONTRACTS.md", () => {
  const alloc = buildL2Alloc(OPTIONS);
  const proxyCode = ARTIFACTS.Proxy.deployedBytecode.object.toLowerCase();
  const proxies = Object.entries(alloc).filter(([k, v]) =>
    k.startsWith("0x4200000000000000000000000000000000000") && v.code === proxyCode
  );
  assertEquals(proxies.length, PREDEPLOY_COUNT - 2, "every namespace address but WETH and GovernanceToken");
  assertEquals(alloc["0x4200000000000000000000000000000000000042"], undefined);

  const l2cdm = storageOf(alloc, L2_CROSS_DOMAIN_MESSENGER_ADDRESS);
  assertEquals(l2cdm[slotHex(0n)], wordHex(1n << 160n), "_initialized at offset 20");
  assertEquals(l2cdm[slotHex(0xccn)], wordHex(0xdeadn), "xDomainMsgSender");
  assertEquals(l2cdm[slotHex(0xcfn)], wordHex(0xc1n), "otherMessenger");
  const l2cdmImpl = storageOf(alloc, implementationAddress(L2_CROSS_DOMAIN_MESSENGER_ADDRESS));
  assertEquals(l2cdmImpl[slotHex(0n)], wordHex(1n << 160n));
  assertEquals(l2cdmImpl[slotHex(0xccn)], wordHex(0xdeadn));
  assertEquals(l2cdmImpl[slotHex(0xcfn)], undefined);

  const l2sb = storageOf(alloc, L2_STANDARD_BRIDGE_ADDRESS);
  assertEquals(l2sb[slotHex(0n)], wordHex(1n));
  assertEquals(l2sb[slotHex(3n)], wordHex(L2_CROSS_DOMAIN_MESSENGER_ADDRESS));
  assertEquals(l2sb[slotHex(4n)], wordHex(0xc2n));
  assertEquals(
    storageOf(alloc, implementationAddress(L2_STANDARD_BRIDGE_ADDRESS))[slotHex(3n)],
    l2sb[slotHex(3n)],
  );

  const factory = storageOf(alloc, OPTIMISM_MINTABLE_ERC20_FACTORY_ADDRESS);
  assertEquals(factory[slotHex(0n)], wordHex(1n));
  assertEquals(factory[slotHex(1n)], wordHex(L2_STANDARD_BRIDGE_ADDRESS));

  const nft = storageOf(alloc, L2_ERC721_BRIDGE_ADDRESS);
  assertEquals(nft[slotHex(1n)], wordHex(L2_CROSS_DOMAIN_MESSENGER_ADDRESS));
  assertEquals(nft[slotHex(2n)], wordHex(0xc3n));

  assertEquals(storageOf(alloc, PROXY_ADMIN_ADDRESS)[slotHex(0n)], wordHex(0x0an));
  assertEquals(storageOf(alloc, implementationAddress(PROXY_ADMIN_ADDRESS))[slotHex(0n)], wordHex(0x0an));

  // Precompile dust, preinstalls with nonce 1, the beacon-roots sender burnt.
  assertEquals(alloc["0x0000000000000000000000000000000000000001"].balance, "0x1");
  assertEquals(alloc["0x00000000000000000000000000000000000000ff"].balance, "0x1");
  assertEquals(alloc[bytesToHex(BEACON_ROOTS_ADDRESS).toLowerCase()].nonce, "0x1");
  assertEquals(alloc["0x0b799c86a49deeb90402691f1041aa3af2d3c875"].nonce, "0x1");
  assertEquals(alloc["0x0000f90827f1c53a10cb7a02335b175320002935"].nonce, "0x1");
  // Preinstalls.sol's EIP-4788 code equals the Ecotone upgrade deployment's runtime.
  assertEquals(
    alloc[bytesToHex(BEACON_ROOTS_ADDRESS).toLowerCase()].code,
    bytesToHex(BEACON_ROOTS_DEPLOYMENT.data.subarray(9)),
  );
  assertEquals(preinstalls(901n).length, 12);
});

Deno.test("L2 alloc: implementation code overrides replace the artifact runtime only", () => {
  const code = hexToBytes("0x6001600055");
  const alloc = buildL2Alloc({ ...OPTIONS, implementationCode: { L1Block: code } });
  const l1Block = hexToBytes("0x4200000000000000000000000000000000000015");
  assertEquals(alloc[bytesToHex(implementationAddress(l1Block))].code, bytesToHex(code));
  assertEquals(alloc[bytesToHex(l1Block)].code, ARTIFACTS.Proxy.deployedBytecode.object.toLowerCase());
});

Deno.test("L2 alloc: bridges, messenger and factories answer through their proxies", async () => {
  const sm = new MerkleStateManager({ caches: new Caches() });
  const config = devChainConfig(901n, "holocene");
  await buildGenesis(
    parseGenesis({ config, gasLimit: "30000000", difficulty: "0", alloc: buildL2Alloc(OPTIONS) }),
    sm,
  );
  const evm = await createEVM({ common: common(), stateManager: sm });
  const call = async (to: Uint8Array, signature: string) => {
    const res = await evm.runCall({
      to: new Address(to),
      caller: new Address(a(0xbeef)),
      data: keccak256(new TextEncoder().encode(signature)).subarray(0, 4),
      gasLimit: 1_000_000n,
      skipBalance: true,
    });
    if (res.execResult.exceptionError !== undefined) throw new Error(`${signature} reverted`);
    return bytesToBigInt(res.execResult.returnValue);
  };
  const enc = new TextEncoder();
  assertEquals(await call(L2_CROSS_DOMAIN_MESSENGER_ADDRESS, "OTHER_MESSENGER()"), 0xc1n);
  // xDomainMsgSender holds DEFAULT_L2_SENDER outside a relay, so the getter reverts ("not set").
  assertEquals(
    await call(L2_CROSS_DOMAIN_MESSENGER_ADDRESS, "xDomainMessageSender()").catch(() => "reverted"),
    "reverted",
  );
  assertEquals(await call(L2_STANDARD_BRIDGE_ADDRESS, "OTHER_BRIDGE()"), 0xc2n);
  assertEquals(
    await call(L2_STANDARD_BRIDGE_ADDRESS, "MESSENGER()"),
    bytesToBigInt(L2_CROSS_DOMAIN_MESSENGER_ADDRESS),
  );
  assertEquals(
    await call(OPTIMISM_MINTABLE_ERC20_FACTORY_ADDRESS, "BRIDGE()"),
    bytesToBigInt(L2_STANDARD_BRIDGE_ADDRESS),
  );
  assertEquals(await call(L2_ERC721_BRIDGE_ADDRESS, "OTHER_BRIDGE()"), 0xc3n);
  assertEquals(await call(OPTIMISM_MINTABLE_ERC721_FACTORY_ADDRESS, "REMOTE_CHAIN_ID()"), 900n);
  const baseFeeVault = hexToBytes("0x4200000000000000000000000000000000000019");
  assertEquals(await call(baseFeeVault, "RECIPIENT()"), 0x19n);
  assertEquals(await call(baseFeeVault, "WITHDRAWAL_NETWORK()"), 1n);
  assertEquals(await call(baseFeeVault, "MIN_WITHDRAWAL_AMOUNT()"), 6n);

  // EAS: name, version and the EIP-712 domain of chain 901 at the proxy address.
  const easAddress = hexToBytes("0x4200000000000000000000000000000000000021");
  const easDomain = keccak256(concatBytes(
    keccak256(
      enc.encode("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
    ),
    keccak256(enc.encode("EAS")),
    keccak256(enc.encode("1.3.0")),
    bigIntToBytes(901n, 32),
    bigIntToBytes(bytesToBigInt(easAddress), 32),
  ));
  assertEquals(await call(easAddress, "getDomainSeparator()"), bytesToBigInt(easDomain));
  assertEquals(await call(easAddress, "getSchemaRegistry()"), 0x4200000000000000000000000000000000000020n);

  // Permit2: the patched EIP-712 domain separator for chain 901 at its own address.
  const permit2 = preinstalls(901n).find((p) => p.name === "Permit2")!;
  const expected = keccak256(concatBytes(
    keccak256(enc.encode("EIP712Domain(string name,uint256 chainId,address verifyingContract)")),
    keccak256(enc.encode("Permit2")),
    bigIntToBytes(901n, 32),
    bigIntToBytes(bytesToBigInt(permit2.address), 32),
  ));
  assertEquals(await call(permit2.address, "DOMAIN_SEPARATOR()"), bytesToBigInt(expected));
  assert(expected.length === 32);
});
