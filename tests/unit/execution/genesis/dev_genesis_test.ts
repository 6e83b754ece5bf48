/**
 * The `--dev` genesis: deterministic, funded, and its predeploys answer real EVM calls
 * (the calls viem's op-stack actions make: GasPriceOracle.l1BaseFee(), isEcotone(), isFjord(), getL1Fee()).
 */
import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { createEVM } from "@ethereumjs/evm";
import { Caches, MerkleStateManager } from "@ethereumjs/statemanager";
import { Address } from "@ethereumjs/util";
import { assert, assertEquals, assertThrows } from "../../../assert.ts";
import { bigIntToBytes, bytesToBigInt, bytesToHex, hexToBytes } from "../../../../lib/common/bytes.ts";
import { keccak256 } from "../../../../lib/common/hash.ts";
import {
  ARTIFACTS,
  buildDevGenesis,
  buildGenesis,
  checkMnemonic,
  deriveDevAccounts,
  EIP1967_ADMIN_SLOT,
  EIP1967_IMPLEMENTATION_SLOT,
  type GenesisJson,
  implementationAddress,
  parseGenesis,
  PREDEPLOY_TABLE,
  preinstalls,
  slotOf,
  unpackWord,
} from "../../../../lib/execution/genesis/mod.ts";
import {
  CREATE2_DEPLOYER_ADDRESS,
  CREATE2_DEPLOYER_CODE,
  GAS_PRICE_ORACLE_ADDRESS,
  L1_BLOCK_ADDRESS,
  PROXY_ADMIN_ADDRESS,
  SEQUENCER_FEE_VAULT_ADDRESS,
} from "../../../../lib/protocol/predeploys.ts";
import { BaseError } from "../../../../lib/common/errors.ts";
import { flzCompressLen } from "../../../../lib/protocol/fastlz.ts";
import { L1_BLOCK_SLOTS, l1BlockStorage, readL1CostParams } from "../../../../lib/protocol/l1_block_info.ts";

const TIMESTAMP = 1_700_000_000n;

async function buildState(json: GenesisJson) {
  const sm = new MerkleStateManager({ caches: new Caches() });
  const result = await buildGenesis(parseGenesis(json), sm);
  return { sm, result, json };
}

/** The default dev genesis is built once and only read by the tests below. */
let shared: ReturnType<typeof buildState> | undefined;
function devState(json?: GenesisJson) {
  if (json !== undefined) return buildState(json);
  shared ??= buildState(buildDevGenesis({ timestamp: TIMESTAMP }));
  return shared;
}

const word = (sm: MerkleStateManager, address: Uint8Array, slot: bigint | Uint8Array) =>
  sm.getStorage(new Address(address), typeof slot === "bigint" ? bigIntToBytes(slot, 32) : slot)
    .then((v) => bigIntToBytes(bytesToBigInt(v), 32));

const selector = (signature: string) => keccak256(new TextEncoder().encode(signature)).subarray(0, 4);

async function call(sm: MerkleStateManager, to: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const common = createCustomCommon({ chainId: 901 }, Mainnet, { hardfork: Hardfork.Prague });
  // eth_call semantics: run on a copy so the caller's nonce bump does not touch the genesis state.
  const evm = await createEVM({ common, stateManager: sm.shallowCopy() });
  const res = await evm.runCall({
    to: new Address(to),
    caller: new Address(new Uint8Array(20)),
    data,
    gasLimit: 10_000_000n,
    skipBalance: true,
  });
  if (res.execResult.exceptionError !== undefined) {
    throw new Error(
      `call reverted: ${res.execResult.exceptionError.error} ${bytesToHex(res.execResult.returnValue)}`,
    );
  }
  return res.execResult.returnValue;
}

Deno.test("dev genesis: account 0 of the test mnemonic is 0xf39F…2266, accounts are distinct", () => {
  const accounts = deriveDevAccounts(10);
  assertEquals(bytesToHex(accounts[0].address), "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266");
  assertEquals(
    bytesToHex(accounts[0].privateKey),
    "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  );
  assertEquals(bytesToHex(accounts[9].address), "0xa0ee7a142d267c1f36714e4a8f75612f20a79720");
  assertEquals(new Set(accounts.map((a) => bytesToHex(a.address))).size, 10);
});

Deno.test("dev accounts: another mnemonic gives its own accounts (BIP-44 vector of 'abandon ... about')", () => {
  const phrase =
    "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
  checkMnemonic(phrase);
  const [first] = deriveDevAccounts(1, phrase);
  assertEquals(bytesToHex(first.address), "0x9858effd232b4033e47d90003d41ec34ecaeda94");
});

Deno.test("dev accounts: a mnemonic that is not BIP-39 is refused, naming what is wrong", () => {
  // Checked and normalized: one space between words, as the seed is derived from.
  assertEquals(
    checkMnemonic("  test test test test test test test test test test test\tjunk "),
    "test test test test test test test test test test test junk",
  );
  // 24 words: 256 bits of entropy and an 8-bit checksum.
  checkMnemonic(`${"zoo ".repeat(23)}vote`);
  const bad = (phrase: string, text: string) => {
    const e = assertThrows(() => checkMnemonic(phrase), BaseError, text) as BaseError;
    assertEquals(e.code, "INVALID_MNEMONIC");
  };
  bad("test test test", "3 words");
  bad("test test test test test test test test test test test kunk", "word 12 is not in the BIP-39 English");
  bad("test test test test test test test test test test test test", "checksum does not match");
  bad(`${"zoo ".repeat(23)}zoo`, "checksum does not match");
});

Deno.test("dev genesis: deterministic state root and hash, 10 accounts with 10,000 ETH", async () => {
  const a = await devState();
  const b = await buildState(buildDevGenesis({ timestamp: TIMESTAMP }));
  assertEquals(bytesToHex(a.result.stateRoot), bytesToHex(b.result.stateRoot));
  assertEquals(bytesToHex(a.result.hash), bytesToHex(b.result.hash));
  const other = await devState(buildDevGenesis({ timestamp: TIMESTAMP, chainId: 902n }));
  assert(bytesToHex(other.result.stateRoot) !== bytesToHex(a.result.stateRoot), "chain id reaches Permit2");

  for (const acct of deriveDevAccounts(10)) {
    const account = await a.sm.getAccount(new Address(acct.address));
    assertEquals(account?.balance, 10_000n * 10n ** 18n);
  }
  assertEquals(a.json.config.chainId, 901);
});

Deno.test("dev genesis: header carries the Isthmus fields and the Holocene extraData", async () => {
  const { result, sm } = await devState();
  const h = result.header;
  assertEquals(h.baseFeePerGas, 1_000_000_000n);
  assertEquals(h.blobGasUsed, 0n);
  assertEquals(h.excessBlobGas, 0n);
  assertEquals(h.parentBeaconBlockRoot, new Uint8Array(32));
  assert(h.requestsHash !== undefined);
  // Isthmus: withdrawalsRoot = storage root of L2ToL1MessagePasser (its proxy slots make it non-empty).
  const passer = await sm.getAccount(new Address(hexToBytes("0x4200000000000000000000000000000000000016")));
  assertEquals(bytesToHex(h.withdrawalsRoot!), bytesToHex(passer!.storageRoot));
  // 0x00 ++ u32 denominator 250 ++ u32 elasticity 6
  assertEquals(bytesToHex(h.extraData), "0x00000000fa00000006");
  assertEquals(bytesToHex(h.coinbase), bytesToHex(SEQUENCER_FEE_VAULT_ADDRESS));
  assertEquals(result.block.withdrawals, []);
});

Deno.test("dev genesis: L1Block storage reads back through op-geth's slots (1, 3, 5, 6, 7)", async () => {
  const { sm } = await devState();
  const l1 = ARTIFACTS.L1Block;
  // op-geth core/types/rollup_cost.go: L1BaseFeeSlot 1, OverheadSlot 5, ScalarSlot 6, L1BlobBaseFeeSlot 7,
  // L1FeeScalarsSlot 3 with baseFeeScalar at bytes [16:20] and blobBaseFeeScalar at [20:24].
  assertEquals(slotOf(l1, "basefee").slot, 1n);
  assertEquals(slotOf(l1, "l1FeeOverhead").slot, 5n);
  assertEquals(slotOf(l1, "l1FeeScalar").slot, 6n);
  assertEquals(slotOf(l1, "blobBaseFee").slot, 7n);
  assertEquals(slotOf(l1, "baseFeeScalar").slot, 3n);
  assertEquals(slotOf(l1, "blobBaseFeeScalar").slot, 3n);

  assertEquals(bytesToBigInt(await word(sm, L1_BLOCK_ADDRESS, 1n)), 1_000_000_000n);
  assertEquals(bytesToBigInt(await word(sm, L1_BLOCK_ADDRESS, 5n)), 0n);
  assertEquals(bytesToBigInt(await word(sm, L1_BLOCK_ADDRESS, 6n)), 1_000_000n);
  assertEquals(bytesToBigInt(await word(sm, L1_BLOCK_ADDRESS, 7n)), 1n);
  const scalars = await word(sm, L1_BLOCK_ADDRESS, 3n);
  assertEquals(bytesToBigInt(scalars.subarray(16, 20)), 1368n);
  assertEquals(bytesToBigInt(scalars.subarray(20, 24)), 810949n);
  assertEquals(bytesToBigInt(scalars.subarray(24, 32)), 0n, "sequenceNumber");
  const slot0 = await word(sm, L1_BLOCK_ADDRESS, 0n);
  assertEquals(unpackWord(slot0, slotOf(l1, "number")), 1n);
  assertEquals(unpackWord(slot0, slotOf(l1, "timestamp")), TIMESTAMP);
  const batcher = await word(sm, L1_BLOCK_ADDRESS, 4n);
  assertEquals(bytesToHex(batcher.subarray(12)), bytesToHex(deriveDevAccounts(3)[2].address));

  // Cross-check against the engine's own slot table (protocol/l1_block_info.ts), fed the same values.
  const hash = await word(sm, L1_BLOCK_ADDRESS, 2n);
  const expected = l1BlockStorage({
    number: 1n,
    timestamp: TIMESTAMP,
    baseFee: 1_000_000_000n,
    blockHash: hash,
    sequenceNumber: 0n,
    batcherHash: batcher,
    l1FeeOverhead: 0n,
    l1FeeScalar: 1_000_000n,
    blobBaseFee: 1n,
    baseFeeScalar: 1368n,
    blobBaseFeeScalar: 810949n,
    operatorFeeScalar: 0n,
    operatorFeeConstant: 0n,
    daFootprintGasScalar: 0n,
  });
  for (let slot = 0n; slot <= 8n; slot++) {
    assertEquals(
      bytesToBigInt(await word(sm, L1_BLOCK_ADDRESS, slot)),
      expected.get(slot) ?? 0n,
      `slot ${slot}`,
    );
  }
  assertEquals(readL1CostParams((slot) => expected.get(slot) ?? 0n, "isthmus").l1BaseFee, 1_000_000_000n);
});

Deno.test("dev genesis: Jovian presets L1Block slot 8 with the default DA footprint scalar", async () => {
  const { sm } = await devState(buildDevGenesis({ timestamp: TIMESTAMP, upTo: "jovian" }));
  const slot8 = await word(sm, L1_BLOCK_ADDRESS, L1_BLOCK_SLOTS.operatorFee);
  // daFootprintGasScalar: uint16 at offset 12 -> bytes [18:20) of the word.
  assertEquals(bytesToBigInt(slot8.subarray(18, 20)), 400n);
  assertEquals(bytesToBigInt(slot8.subarray(20, 32)), 0n, "no operator fee");
});

Deno.test("dev genesis: proxies have admin and implementation slots, every table entry has code", async () => {
  const { sm } = await devState();
  for (const p of PREDEPLOY_TABLE) {
    if (!p.proxied) {
      assert((await sm.getCode(new Address(p.address))).length > 0, `${p.name} has code`);
      continue;
    }
    const admin = await word(sm, p.address, EIP1967_ADMIN_SLOT);
    assertEquals(bytesToHex(admin.subarray(12)), bytesToHex(PROXY_ADMIN_ADDRESS), `${p.name} admin`);
    const impl = await word(sm, p.address, EIP1967_IMPLEMENTATION_SLOT);
    assertEquals(
      bytesToHex(impl.subarray(12)),
      bytesToHex(implementationAddress(p.address)),
      `${p.name} impl`,
    );
    assertEquals(
      await sm.getCode(new Address(p.address)),
      hexToBytes(ARTIFACTS.Proxy.deployedBytecode.object),
      `${p.name} proxy code`,
    );
    assert(
      (await sm.getCode(new Address(implementationAddress(p.address)))).length > 0,
      `${p.name} impl code`,
    );
  }
  // A namespace address without a predeploy is still a proxy with the admin slot and no implementation.
  const unused = hexToBytes("0x42000000000000000000000000000000000007ff");
  assertEquals(
    bytesToHex((await word(sm, unused, EIP1967_ADMIN_SLOT)).subarray(12)),
    bytesToHex(PROXY_ADMIN_ADDRESS),
  );
  assertEquals(bytesToBigInt(await word(sm, unused, EIP1967_IMPLEMENTATION_SLOT)), 0n);
  // GovernanceToken's address is not proxied.
  assertEquals(
    (await sm.getCode(new Address(hexToBytes("0x4200000000000000000000000000000000000042")))).length,
    0,
  );
  assertEquals(
    bytesToHex(implementationAddress(hexToBytes("0x420000000000000000000000000000000000000f"))),
    "0xc0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3000f",
  );
});

Deno.test("dev genesis: GasPriceOracle isEcotone/isFjord and L1 fee getters answer through the proxy", async () => {
  const { sm } = await devState();
  const gpo = ARTIFACTS.GasPriceOracle;
  const slot0 = await word(sm, GAS_PRICE_ORACLE_ADDRESS, slotOf(gpo, "isEcotone").slot);
  assertEquals(unpackWord(slot0, slotOf(gpo, "isEcotone")), 1n);
  assertEquals(unpackWord(slot0, slotOf(gpo, "isFjord")), 1n);

  const u = async (to: Uint8Array, sig: string) => bytesToBigInt(await call(sm, to, selector(sig)));
  assertEquals(await u(GAS_PRICE_ORACLE_ADDRESS, "isEcotone()"), 1n);
  assertEquals(await u(GAS_PRICE_ORACLE_ADDRESS, "isFjord()"), 1n);
  assertEquals(await u(GAS_PRICE_ORACLE_ADDRESS, "l1BaseFee()"), 1_000_000_000n);
  assertEquals(await u(GAS_PRICE_ORACLE_ADDRESS, "baseFeeScalar()"), 1368n);
  assertEquals(await u(GAS_PRICE_ORACLE_ADDRESS, "blobBaseFeeScalar()"), 810949n);
  assertEquals(await u(GAS_PRICE_ORACLE_ADDRESS, "blobBaseFee()"), 1n);
  assertEquals(await u(L1_BLOCK_ADDRESS, "basefee()"), 1_000_000_000n);
  assertEquals(await u(L1_BLOCK_ADDRESS, "number()"), 1n);
  assertEquals(await u(L1_BLOCK_ADDRESS, "timestamp()"), TIMESTAMP);

  // getL1Fee(bytes) under Fjord (fjord/exec-engine.md "Fees"; GasPriceOracle._getL1FeeFjord adds 68 bytes
  // for the signature): estimatedSize (scaled by 1e6) = max(100e6, intercept + coef * fastlzSize);
  // fee = estimatedSize * (16 * 1368 * l1BaseFee + 810949 * blobBaseFee) / 1e12.
  const getL1Fee = async (tx: Uint8Array) => {
    const padded = Math.ceil(tx.length / 32) * 32;
    const data = new Uint8Array(4 + 64 + padded);
    data.set(selector("getL1Fee(bytes)"));
    data.set(bigIntToBytes(32n, 32), 4);
    data.set(bigIntToBytes(BigInt(tx.length), 32), 36);
    data.set(tx, 68);
    return bytesToBigInt(await call(sm, GAS_PRICE_ORACLE_ADDRESS, data));
  };
  const price = 16n * 1368n * 1_000_000_000n + 810949n * 1n;
  // Highly compressible: the 100-byte floor applies.
  assertEquals(await getL1Fee(new Uint8Array(200).fill(0x11)), (100_000_000n * price) / 10n ** 12n);
  // Incompressible: the FastLZ estimate applies.
  let chunk = keccak256(new Uint8Array([1]));
  const parts: Uint8Array[] = [];
  for (let i = 0; i < 10; i++) {
    parts.push(chunk);
    chunk = keccak256(chunk);
  }
  const noisy = new Uint8Array(parts.flatMap((p) => [...p]));
  const fastlzSize = BigInt(flzCompressLen(noisy)) + 68n;
  const estimate = -42_585_600n + 836_500n * fastlzSize;
  assert(estimate > 100_000_000n, "estimate above the floor");
  assertEquals(await getL1Fee(noisy), (estimate * price) / 10n ** 12n);
});

Deno.test("dev genesis: ProxyAdmin owner, fee vault immutables, WETH, preinstalls", async () => {
  const { sm } = await devState();
  const owner = bytesToHex(deriveDevAccounts(1)[0].address);
  assertEquals(bytesToHex((await call(sm, PROXY_ADMIN_ADDRESS, selector("owner()"))).subarray(12)), owner);
  assertEquals(
    bytesToHex((await call(sm, SEQUENCER_FEE_VAULT_ADDRESS, selector("RECIPIENT()"))).subarray(12)),
    owner,
  );
  assertEquals(
    bytesToBigInt(await call(sm, SEQUENCER_FEE_VAULT_ADDRESS, selector("MIN_WITHDRAWAL_AMOUNT()"))),
    10n ** 19n,
  );
  const weth = hexToBytes("0x4200000000000000000000000000000000000006");
  const name = await call(sm, weth, selector("name()"));
  assertEquals(
    new TextDecoder().decode(name.subarray(64, 64 + Number(bytesToBigInt(name.subarray(32, 64))))),
    "Wrapped Ether",
  );

  assertEquals(await sm.getCode(new Address(CREATE2_DEPLOYER_ADDRESS)), CREATE2_DEPLOYER_CODE);
  const multicall = preinstalls(901n).find((p) => p.name === "MultiCall3")!;
  assertEquals(bytesToHex(multicall.address), "0xca11bde05977b3631167028862be2a173976ca11");
  assertEquals(bytesToBigInt(await call(sm, multicall.address, selector("getChainId()"))), 901n);
  for (const p of preinstalls(901n)) {
    const account = await sm.getAccount(new Address(p.address));
    assertEquals(account?.nonce, 1n, `${p.name} nonce`);
    assertEquals(await sm.getCode(new Address(p.address)), p.code, `${p.name} code`);
  }
  const history = hexToBytes("0x0000F90827F1C53a10cb7A02335B175320002935");
  assert((await sm.getCode(new Address(history))).length > 0, "EIP-2935 contract");
});

Deno.test("dev genesis: upTo selects the forks, the GasPriceOracle flags and the extraData", async () => {
  const json = buildDevGenesis({ timestamp: TIMESTAMP, upTo: "delta" });
  assertEquals(json.config.ecotoneTime, undefined);
  assertEquals(json.config.deltaTime, 0);
  assertEquals(json.extraData, "0x");
  const { sm, result } = await devState(json);
  assertEquals(result.header.parentBeaconBlockRoot, undefined);
  assert(result.header.withdrawalsRoot !== undefined, "Canyon = Shanghai");
  assertEquals(bytesToBigInt(await word(sm, GAS_PRICE_ORACLE_ADDRESS, 0n)), 0n);

  const jovian = buildDevGenesis({ timestamp: TIMESTAMP, upTo: "jovian" });
  assertEquals(jovian.config.jovianTime, 0);
  assertEquals(jovian.extraData, "0x01000000fa000000060000000000000000");
  assertThrows(() => buildDevGenesis({ upTo: "nope" as "jovian" }), BaseError, "unknown fork");
  const withL1 = buildDevGenesis({
    upTo: "delta",
    l1Addresses: {
      l1CrossDomainMessenger: hexToBytes("0xa51c1fc2f0d1a1b8494ed1fe312d7c3a78ed91c0"),
      l1StandardBridge: hexToBytes("0xb7f8bc63bbcad18155201308c8f3540b07f84f5e"),
      l1ERC721Bridge: hexToBytes("0x9a676e781a523b5d0c0e43731313a708cb607508"),
    },
    feeVault: { withdrawalNetwork: 1 },
  });
  const messenger = withL1.alloc["0x4200000000000000000000000000000000000007"].storage!;
  assertEquals(
    messenger[bytesToHex(bigIntToBytes(0xcfn, 32))],
    "0x000000000000000000000000a51c1fc2f0d1a1b8494ed1fe312d7c3a78ed91c0",
  );
  const bridge = withL1.alloc["0x4200000000000000000000000000000000000010"].storage!;
  assertEquals(
    bridge[bytesToHex(bigIntToBytes(4n, 32))],
    "0x000000000000000000000000b7f8bc63bbcad18155201308c8f3540b07f84f5e",
  );
  // The withdrawal network is an immutable of the vault's implementation code.
  const vaultImpl = "0xc0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d30011";
  assert(
    withL1.alloc[vaultImpl].code !== json.alloc[vaultImpl].code,
    "vault code carries WITHDRAWAL_NETWORK",
  );
  const big = buildDevGenesis({ chainId: 2n ** 60n, upTo: "delta" });
  assertEquals(big.config.chainId, "1152921504606846976");
  assertEquals(parseGenesis(big).config.chainId, 2n ** 60n);
});
