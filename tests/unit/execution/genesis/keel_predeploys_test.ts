/**
 * keel's own Jovian-level L1Block and GasPriceOracle (lib/execution/genesis/contracts/*.sol): the
 * committed build equals a fresh solc run, the storage layout and ABI extend contracts-bedrock 0.17.3's,
 * and the contracts in the dev genesis answer real EVM calls: getOperatorFee, isIsthmus, the L1 fee
 * (compared with the 0.17.3 GasPriceOracle on the same state), and L1-info deposits of every format.
 * The Jovian additions are tested in keel_predeploys_jovian_test.ts.
 */
import { Hardfork } from "@ethereumjs/common";
import { Address } from "@ethereumjs/util";
import { assert, assertEquals, assertThrows } from "../../../assert.ts";
import {
  bigIntToBytes,
  bytesToBigInt,
  bytesToHex,
  concatBytes,
  hexToBytes,
} from "../../../../lib/common/bytes.ts";
import { BaseError } from "../../../../lib/common/errors.ts";
import { keccak256 } from "../../../../lib/common/hash.ts";
import {
  type Artifact,
  ARTIFACTS,
  BEDROCK_PREDEPLOYS,
  buildL2Alloc,
  implementationAddress,
  KEEL_PREDEPLOYS,
  type L2AllocOptions,
  slotOf,
} from "../../../../lib/execution/genesis/mod.ts";
import {
  GAS_PRICE_ORACLE_ADDRESS,
  L1_ATTRIBUTES_DEPOSITOR_ADDRESS,
  L1_BLOCK_ADDRESS,
  OPERATOR_FEE_VAULT_ADDRESS,
} from "../../../../lib/protocol/predeploys.ts";
import {
  encodeL1InfoCalldata,
  L1_BLOCK_SLOTS,
  type L1BlockInfo,
  l1BlockStorage,
} from "../../../../lib/protocol/l1_block_info.ts";
import {
  compilePredeploys,
  OUTPUT_FILE,
  readSources,
  SOLC_SETTINGS,
} from "../../../../scripts/gen_predeploys.ts";
import {
  bytesArg,
  call,
  devState,
  MAX_UINT256,
  revertReason,
  run,
  selector,
  TIMESTAMP,
  u256,
  word,
} from "./predeploy_calls.ts";

const enc = new TextEncoder();

Deno.test({
  name: "keel predeploys: keel_predeploys.json equals a fresh solc run of contracts/*.sol",
  async fn() {
    const fresh = compilePredeploys(await readSources());
    assertEquals(fresh, await Deno.readTextFile(OUTPUT_FILE), "run scripts/gen_predeploys.ts");
    assert(KEEL_PREDEPLOYS.compiler.startsWith("0.8.30+"), KEEL_PREDEPLOYS.compiler);
    // Paris target (no PUSH0) so pre-Canyon chains can run the code; the fee test below runs it on London.
    assertEquals(SOLC_SETTINGS.evmVersion, "paris");
    for (const name of ["L1Block", "GasPriceOracle"] as const) {
      const code = hexToBytes(KEEL_PREDEPLOYS[name].deployedBytecode.object);
      assertEquals(
        bytesToHex(code.subarray(0, 5)),
        "0x6080604052",
        `${name} starts with the free-memory init`,
      );
    }
  },
});

/** `name(type,...)` -> output types, for every function of an ABI; events and errors by signature. */
function abiSignatures(artifact: Artifact): Map<string, string> {
  const out = new Map<string, string>();
  for (
    const e of artifact.abi as {
      type: string;
      name?: string;
      inputs?: { type: string; indexed?: boolean }[];
      outputs?: { type: string }[];
      stateMutability?: string;
    }[]
  ) {
    if (e.name === undefined) continue;
    const inputs = (e.inputs ?? []).map((i) => i.type + (i.indexed ? " indexed" : "")).join(",");
    out.set(
      `${e.type} ${e.name}(${inputs})`,
      `${(e.outputs ?? []).map((o) => o.type).join(",")} ${e.stateMutability ?? ""}`,
    );
  }
  return out;
}

Deno.test("keel predeploys: storage layout and ABI extend contracts-bedrock 0.17.3's", () => {
  for (const name of ["L1Block", "GasPriceOracle"] as const) {
    const keel = KEEL_PREDEPLOYS[name];
    const bedrock = BEDROCK_PREDEPLOYS[name];
    assertEquals(ARTIFACTS[name], keel, `the genesis uses keel's ${name}`);
    for (const entry of bedrock.storageLayout.storage) {
      assertEquals(slotOf(keel, entry.label), slotOf(bedrock, entry.label), `${name}.${entry.label}`);
    }
    const ours = abiSignatures(keel);
    for (const [sig, outputs] of abiSignatures(bedrock)) {
      // view -> pure is the one allowed change (version() needs no state).
      assertEquals(
        ours.get(sig)?.replace(" pure", " view"),
        outputs.replace(" pure", " view"),
        `${name} ${sig}`,
      );
    }
  }
  // Slot 8 where op-geth reads the operator fee (protocol/l1_block_info.ts L1_BLOCK_SLOTS.operatorFee).
  const l1 = KEEL_PREDEPLOYS.L1Block;
  assertEquals(slotOf(l1, "operatorFeeConstant"), { slot: L1_BLOCK_SLOTS.operatorFee, offset: 0, size: 8 });
  assertEquals(slotOf(l1, "operatorFeeScalar"), { slot: L1_BLOCK_SLOTS.operatorFee, offset: 8, size: 4 });
  // jovian/exec-engine.md "Scalar loading": uint16 in slot 8 at offset 12.
  assertEquals(slotOf(l1, "daFootprintGasScalar"), { slot: L1_BLOCK_SLOTS.operatorFee, offset: 12, size: 2 });
  assertEquals(slotOf(KEEL_PREDEPLOYS.GasPriceOracle, "isIsthmus"), { slot: 0n, offset: 2, size: 1 });
  assertEquals(slotOf(KEEL_PREDEPLOYS.GasPriceOracle, "isJovian"), { slot: 0n, offset: 3, size: 1 });
  const l1Abi = abiSignatures(l1);
  for (
    const sig of [
      "operatorFeeScalar()",
      "operatorFeeConstant()",
      "setL1BlockValuesIsthmus()",
      "daFootprintGasScalar()",
      "setL1BlockValuesJovian()",
    ]
  ) {
    assert(l1Abi.has(`function ${sig}`), sig);
  }
  const gpoAbi = abiSignatures(KEEL_PREDEPLOYS.GasPriceOracle);
  for (const sig of ["isIsthmus()", "setIsthmus()", "getOperatorFee(uint256)", "isJovian()", "setJovian()"]) {
    assert(gpoAbi.has(`function ${sig}`), sig);
  }
});

Deno.test("keel predeploys: GasPriceOracle isIsthmus and getOperatorFee (isthmus/exec-engine.md)", async () => {
  const sm = await devState();
  assertEquals(await call(sm, GAS_PRICE_ORACLE_ADDRESS, selector("isIsthmus()")), 1n);
  assertEquals(await call(sm, GAS_PRICE_ORACLE_ADDRESS, selector("isFjord()")), 1n);
  const fee = (gas: bigint) => concatBytes(selector("getOperatorFee(uint256)"), u256(gas));
  // Default genesis: operator fee parameters zero.
  assertEquals(await call(sm, GAS_PRICE_ORACLE_ADDRESS, fee(21_000n)), 0n);
  assertEquals(await call(sm, L1_BLOCK_ADDRESS, selector("operatorFeeScalar()")), 0n);

  const priced = await devState({
    l1BlockOperatorFee: { operatorFeeScalar: 2_500_000n, operatorFeeConstant: 7n },
  });
  assertEquals(await call(priced, L1_BLOCK_ADDRESS, selector("operatorFeeScalar()")), 2_500_000n);
  assertEquals(await call(priced, L1_BLOCK_ADDRESS, selector("operatorFeeConstant()")), 7n);
  // gasUsed * scalar / 1e6 + constant, rounded down.
  assertEquals(
    await call(priced, GAS_PRICE_ORACLE_ADDRESS, fee(21_000n)),
    21_000n * 2_500_000n / 1_000_000n + 7n,
  );
  assertEquals(await call(priced, GAS_PRICE_ORACLE_ADDRESS, fee(1n)), 2n + 7n);
  assertEquals(await call(priced, GAS_PRICE_ORACLE_ADDRESS, fee(0n)), 7n);
  // Saturating multiplication: an overflowing product counts as 2^256-1 before the division.
  assertEquals(await call(priced, GAS_PRICE_ORACLE_ADDRESS, fee(MAX_UINT256)), MAX_UINT256 / 1_000_000n + 7n);

  // Before Isthmus the flag is off and the fee is zero whatever L1Block holds.
  const fjord = await devState({ upTo: "granite" });
  assertEquals(await call(fjord, GAS_PRICE_ORACLE_ADDRESS, selector("isIsthmus()")), 0n);
  assertEquals(await call(fjord, GAS_PRICE_ORACLE_ADDRESS, fee(21_000n)), 0n);
});

Deno.test("keel predeploys: setIsthmus only from the depositor, once, after Fjord", async () => {
  const sm = await devState({ upTo: "granite" });
  const set = selector("setIsthmus()");
  const stranger = await run(sm, GAS_PRICE_ORACLE_ADDRESS, set, {
    caller: bigIntToBytes(0xbeefn, 20),
    commit: true,
  });
  assert(!stranger.ok);
  assertEquals(
    revertReason(stranger.data),
    "GasPriceOracle: only the depositor account can set isIsthmus flag",
  );
  const depositor = { caller: L1_ATTRIBUTES_DEPOSITOR_ADDRESS, commit: true };
  assert((await run(sm, GAS_PRICE_ORACLE_ADDRESS, set, depositor)).ok);
  assertEquals(await call(sm, GAS_PRICE_ORACLE_ADDRESS, selector("isIsthmus()")), 1n);
  // isEcotone, isFjord, isIsthmus packed in slot 0 of the proxy.
  assertEquals(await word(sm, GAS_PRICE_ORACLE_ADDRESS, 0n), 0x010101n);
  const again = await run(sm, GAS_PRICE_ORACLE_ADDRESS, set, depositor);
  assertEquals(revertReason(again.data), "GasPriceOracle: Isthmus already active");

  const ecotone = await devState({ upTo: "ecotone" });
  const early = await run(ecotone, GAS_PRICE_ORACLE_ADDRESS, set, depositor);
  assertEquals(revertReason(early.data), "GasPriceOracle: Isthmus can only be activated after Fjord");
  // Ecotone only: overhead() and scalar() are gone, getL1FeeUpperBound needs Fjord.
  const overhead = await run(ecotone, GAS_PRICE_ORACLE_ADDRESS, selector("overhead()"));
  assertEquals(revertReason(overhead.data), "GasPriceOracle: overhead() is deprecated");
  const upper = await run(
    ecotone,
    GAS_PRICE_ORACLE_ADDRESS,
    concatBytes(selector("getL1FeeUpperBound(uint256)"), u256(100n)),
  );
  assertEquals(revertReason(upper.data), "GasPriceOracle: getL1FeeUpperBound only supports Fjord");
});

/** Pseudo-random bytes with runs of zeros and repeats, so FastLZ finds matches of every length. */
function sample(seed: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let h = keccak256(enc.encode(`sample ${seed}`));
  for (let i = 0; i < length;) {
    if (i % 32 === 0) h = keccak256(h);
    const mode = h[i % 32] % 4;
    if (mode === 0 && i > 40) {
      const back = 1 + (h[(i + 1) % 32] % 40);
      const run = 3 + (h[(i + 2) % 32] % 300);
      for (let j = 0; j < run && i < length; j++, i++) out[i] = out[i - back];
    } else if (mode === 1) {
      for (let j = 0; j < 10 && i < length; j++) out[i++] = 0;
    } else {
      out[i] = h[i % 32] ^ (i & 0xff);
      i++;
    }
  }
  return out;
}

Deno.test("keel predeploys: getL1Fee, getL1GasUsed, getL1FeeUpperBound equal the 0.17.3 GasPriceOracle's", async () => {
  const bedrockAt = bigIntToBytes(0xb0b0n, 20);
  const bedrockCode = hexToBytes(BEDROCK_PREDEPLOYS.GasPriceOracle.deployedBytecode.object);
  const modes = [
    // Regolith runs London rules (no PUSH0): the code must run there too.
    { upTo: "regolith", flags: 0n, hardfork: Hardfork.London },
    { upTo: "ecotone", flags: 0x01n, hardfork: Hardfork.Cancun },
    { upTo: "isthmus", flags: 0x0101n, hardfork: Hardfork.Prague },
  ] as const;
  for (const { upTo, flags: expectedFlags, hardfork } of modes) {
    const sm = await devState({ upTo });
    // The 0.17.3 oracle next to ours, with the same flags in slot 0, reading the same L1Block.
    await sm.putCode(new Address(bedrockAt), bedrockCode);
    const flags = await word(sm, GAS_PRICE_ORACLE_ADDRESS, 0n) & 0xffffn;
    assertEquals(flags, expectedFlags, `${upTo} GasPriceOracle flags`);
    await sm.putStorage(new Address(bedrockAt), u256(0n), u256(flags));
    await sm.checkpoint();
    await sm.commit();
    await sm.flush();
    assertEquals(
      await call(sm, bedrockAt, selector("l1BaseFee()")),
      1_000_000_000n,
      "0.17.3 oracle in place",
    );
    const inputs: Uint8Array[] = [
      new Uint8Array(),
      new Uint8Array(5).fill(7),
      new Uint8Array(200).fill(0x11),
    ];
    for (let i = 0; i < 8; i++) inputs.push(sample(i, [20, 90, 150, 400, 1000, 3000, 9000, 12_000][i]));
    for (const tx of inputs) {
      for (const sig of ["getL1Fee(bytes)", "getL1GasUsed(bytes)"]) {
        const data = bytesArg(sig, tx);
        assertEquals(
          await call(sm, GAS_PRICE_ORACLE_ADDRESS, data, hardfork),
          await call(sm, bedrockAt, data, hardfork),
          `${upTo} ${sig} of ${tx.length} bytes`,
        );
      }
    }
    if (upTo !== "isthmus") continue;
    for (const size of [0n, 1n, 150n, 5_000n, 1_000_000n]) {
      const data = concatBytes(selector("getL1FeeUpperBound(uint256)"), u256(size));
      assertEquals(
        await call(sm, GAS_PRICE_ORACLE_ADDRESS, data),
        await call(sm, bedrockAt, data),
        `bound ${size}`,
      );
    }
    // The shared getters too.
    for (
      const sig of [
        "l1BaseFee()",
        "blobBaseFee()",
        "baseFeeScalar()",
        "blobBaseFeeScalar()",
        "decimals()",
        "DECIMALS()",
      ]
    ) {
      assertEquals(
        await call(sm, GAS_PRICE_ORACLE_ADDRESS, selector(sig)),
        await call(sm, bedrockAt, selector(sig)),
        sig,
      );
    }
  }
});

const INFO: L1BlockInfo = {
  number: 0x1234_5678n,
  timestamp: TIMESTAMP + 12n,
  baseFee: 7_000_000_123n,
  blockHash: keccak256(enc.encode("l1 block")),
  sequenceNumber: 3n,
  batcherHash: u256(0xba7c4e7n),
  l1FeeOverhead: 0n,
  l1FeeScalar: 0n,
  blobBaseFee: 99n,
  baseFeeScalar: 0x0102_0304n,
  blobBaseFeeScalar: 0x0a0b_0c0dn,
  operatorFeeScalar: 0xf1f2_f3f4n,
  operatorFeeConstant: 0x0102_0304_0506_0708n,
  daFootprintGasScalar: 0n,
};

Deno.test("keel predeploys: an Isthmus L1-info deposit writes every L1Block slot op-geth reads", async () => {
  const sm = await devState();
  const depositor = { caller: L1_ATTRIBUTES_DEPOSITOR_ADDRESS, commit: true };
  const before5 = await word(sm, L1_BLOCK_ADDRESS, 5n);
  const before6 = await word(sm, L1_BLOCK_ADDRESS, 6n);
  const data = encodeL1InfoCalldata("isthmus", INFO);
  assertEquals(data.length, 176);

  const stranger = await run(sm, L1_BLOCK_ADDRESS, data, { caller: bigIntToBytes(1n, 20), commit: true });
  assert(!stranger.ok);
  assertEquals(bytesToHex(stranger.data), bytesToHex(selector("NotDepositor()")));

  assert((await run(sm, L1_BLOCK_ADDRESS, data, depositor)).ok);
  const expected = l1BlockStorage(INFO);
  for (const slot of [0n, 1n, 2n, 3n, 4n, 7n, 8n]) {
    assertEquals(await word(sm, L1_BLOCK_ADDRESS, slot), expected.get(slot) ?? 0n, `slot ${slot}`);
  }
  // Slots 5 and 6 (Bedrock fee parameters) are not part of the Isthmus format: left as they were.
  assertEquals(await word(sm, L1_BLOCK_ADDRESS, 5n), before5);
  assertEquals(await word(sm, L1_BLOCK_ADDRESS, 6n), before6);
  // The implementation's own storage is untouched: the proxy delegates.
  assertEquals(await word(sm, implementationAddress(L1_BLOCK_ADDRESS), 8n), 0n);
  // The getters and the GasPriceOracle see the new values.
  assertEquals(await call(sm, L1_BLOCK_ADDRESS, selector("operatorFeeScalar()")), INFO.operatorFeeScalar);
  assertEquals(await call(sm, L1_BLOCK_ADDRESS, selector("operatorFeeConstant()")), INFO.operatorFeeConstant);
  assertEquals(await call(sm, L1_BLOCK_ADDRESS, selector("sequenceNumber()")), 3n);
  assertEquals(await call(sm, GAS_PRICE_ORACLE_ADDRESS, selector("baseFeeScalar()")), INFO.baseFeeScalar);
  assertEquals(
    await call(
      sm,
      GAS_PRICE_ORACLE_ADDRESS,
      concatBytes(selector("getOperatorFee(uint256)"), u256(1_000_000n)),
    ),
    INFO.operatorFeeScalar + INFO.operatorFeeConstant,
  );

  // An Ecotone deposit afterwards leaves the operator fee as it was; a Bedrock one writes slots 5 and 6.
  const next = { ...INFO, sequenceNumber: 4n, operatorFeeScalar: 0n, operatorFeeConstant: 0n };
  assert((await run(sm, L1_BLOCK_ADDRESS, encodeL1InfoCalldata("ecotone", next), depositor)).ok);
  assertEquals(await word(sm, L1_BLOCK_ADDRESS, 8n), expected.get(8n));
  assertEquals(await word(sm, L1_BLOCK_ADDRESS, 3n), l1BlockStorage(next).get(3n));
  const bedrock = { ...next, sequenceNumber: 5n, l1FeeOverhead: 188n, l1FeeScalar: 684_000n };
  assert((await run(sm, L1_BLOCK_ADDRESS, encodeL1InfoCalldata("bedrock", bedrock), depositor)).ok);
  assertEquals(await word(sm, L1_BLOCK_ADDRESS, 5n), 188n);
  assertEquals(await word(sm, L1_BLOCK_ADDRESS, 6n), 684_000n);
  assertEquals(await call(sm, L1_BLOCK_ADDRESS, selector("sequenceNumber()")), 5n);
});

Deno.test("keel predeploys: L1Block version, depositor and custom gas token getters", async () => {
  const sm = await devState();
  const str = async (to: Uint8Array, sig: string) => {
    const r = await run(sm, to, selector(sig));
    const len = Number(bytesToBigInt(r.data.subarray(32, 64)));
    return new TextDecoder().decode(r.data.subarray(64, 64 + len));
  };
  assertEquals(await str(L1_BLOCK_ADDRESS, "version()"), "1.7.0+keel");
  assertEquals(await str(GAS_PRICE_ORACLE_ADDRESS, "version()"), "1.6.0+keel");
  assertEquals(await str(L1_BLOCK_ADDRESS, "gasPayingTokenName()"), "Ether");
  assertEquals(await str(L1_BLOCK_ADDRESS, "gasPayingTokenSymbol()"), "ETH");
  assertEquals(await call(sm, L1_BLOCK_ADDRESS, selector("isCustomGasToken()")), 0n);
  const token = (await run(sm, L1_BLOCK_ADDRESS, selector("gasPayingToken()"))).data;
  assertEquals(bytesToHex(token.subarray(12, 32)), "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee");
  assertEquals(bytesToBigInt(token.subarray(32, 64)), 18n);
  assertEquals(
    bytesToHex(u256(await call(sm, L1_BLOCK_ADDRESS, selector("DEPOSITOR_ACCOUNT()"))).subarray(12)),
    bytesToHex(L1_ATTRIBUTES_DEPOSITOR_ADDRESS),
  );
  // A custom token set by the depositor: name and symbol come back trimmed.
  const name = new Uint8Array(32);
  name.set(enc.encode("Keel Gas"));
  const symbol = new Uint8Array(32);
  symbol.set(enc.encode("KGS"));
  const set = concatBytes(
    selector("setGasPayingToken(address,uint8,bytes32,bytes32)"),
    u256(0x70c3n),
    u256(6n),
    name,
    symbol,
  );
  assert(!(await run(sm, L1_BLOCK_ADDRESS, set, { commit: true })).ok, "only the depositor");
  assert(
    (await run(sm, L1_BLOCK_ADDRESS, set, { caller: L1_ATTRIBUTES_DEPOSITOR_ADDRESS, commit: true })).ok,
  );
  assertEquals(await call(sm, L1_BLOCK_ADDRESS, selector("isCustomGasToken()")), 1n);
  assertEquals(await str(L1_BLOCK_ADDRESS, "gasPayingTokenName()"), "Keel Gas");
  assertEquals(await str(L1_BLOCK_ADDRESS, "gasPayingTokenSymbol()"), "KGS");
  const custom = (await run(sm, L1_BLOCK_ADDRESS, selector("gasPayingToken()"))).data;
  assertEquals(bytesToBigInt(custom.subarray(0, 32)), 0x70c3n);
  assertEquals(bytesToBigInt(custom.subarray(32, 64)), 6n);
});

Deno.test("keel predeploys: OperatorFeeVault is a FeeVault at 0x4200…001B with its own immutables", async () => {
  const sm = await devState({ feeVault: { minWithdrawalAmount: 3n * 10n ** 18n, withdrawalNetwork: 1 } });
  assertEquals(
    await call(sm, OPERATOR_FEE_VAULT_ADDRESS, selector("MIN_WITHDRAWAL_AMOUNT()")),
    3n * 10n ** 18n,
  );
  assertEquals(await call(sm, OPERATOR_FEE_VAULT_ADDRESS, selector("WITHDRAWAL_NETWORK()")), 1n);
  const recipient = await call(sm, OPERATOR_FEE_VAULT_ADDRESS, selector("RECIPIENT()"));
  assertEquals(bytesToHex(bigIntToBytes(recipient, 20)), "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266");

  // buildL2Alloc: its own settings when given, else the BaseFeeVault's.
  const a = (n: number) => bigIntToBytes(BigInt(n), 20);
  const vault = (n: number) => ({
    recipient: a(n),
    minWithdrawalAmount: BigInt(n),
    withdrawalNetwork: 0 as const,
  });
  const options: L2AllocOptions = {
    l1ChainId: 900n,
    l2ChainId: 901n,
    proxyAdminOwner: a(1),
    sequencerFeeVault: vault(2),
    baseFeeVault: vault(3),
    l1FeeVault: vault(4),
    l1CrossDomainMessenger: a(5),
    l1StandardBridge: a(6),
    l1ERC721Bridge: a(7),
    gasPriceOracle: { ecotone: true, fjord: true, isthmus: true },
    preinstalls: false,
    historyStorage: false,
    precompileBalances: false,
  };
  const impl = bytesToHex(implementationAddress(OPERATOR_FEE_VAULT_ADDRESS));
  const base = bytesToHex(implementationAddress(hexToBytes("0x4200000000000000000000000000000000000019")));
  const same = buildL2Alloc(options);
  assertEquals(same[impl].code, same[base].code);
  const own = buildL2Alloc({ ...options, operatorFeeVault: vault(9) });
  assert(own[impl].code !== own[base].code, "own immutables");
  assertEquals(
    own[bytesToHex(GAS_PRICE_ORACLE_ADDRESS)].storage?.[bytesToHex(u256(0n))],
    bytesToHex(u256(0x010101n)),
  );
  assertThrows(
    () => buildL2Alloc({ ...options, gasPriceOracle: { ecotone: true, fjord: false, isthmus: true } }),
    BaseError,
    "Fjord before Isthmus",
  );
});
