/**
 * L1-info calldata and L1Block storage pinned against real chains, the specs and the compiled contract.
 */
import { bytesToHex, hexToBytes } from "../../lib/common/bytes.ts";
import { keccak256 } from "../../lib/common/hash.ts";
import { decodeDepositTx } from "../../lib/protocol/deposit_tx.ts";
import {
  decodeL1InfoCalldata,
  encodeL1InfoCalldata,
  L1_BLOCK_SLOTS,
  L1_INFO_SELECTORS,
  l1BlockStorage,
} from "../../lib/protocol/l1_block_info.ts";
import { assertEquals } from "../assert.ts";
import { REAL_L1_INFO_DEPOSITS } from "./l1_info_deposits.ts";

Deno.test("l1 info vectors: selectors are keccak256 of the L1Block function signatures", () => {
  // deposits.md (Bedrock ABI), ecotone/isthmus/jovian l1-attributes.md tables.
  const signatures = {
    bedrock: "setL1BlockValues(uint64,uint64,uint256,bytes32,uint64,bytes32,uint256,uint256)",
    ecotone: "setL1BlockValuesEcotone()",
    isthmus: "setL1BlockValuesIsthmus()",
    jovian: "setL1BlockValuesJovian()",
  };
  for (const [format, sig] of Object.entries(signatures)) {
    const selector = keccak256(new TextEncoder().encode(sig)).subarray(0, 4);
    assertEquals(
      bytesToHex(selector),
      bytesToHex(L1_INFO_SELECTORS[format as keyof typeof signatures]),
      format,
    );
  }
  assertEquals(bytesToHex(L1_INFO_SELECTORS.isthmus), "0x098999be");
  assertEquals(bytesToHex(L1_INFO_SELECTORS.jovian), "0x3db6be2b");
});

Deno.test("l1 info vectors: OP Mainnet block 124665056's Ecotone calldata decodes and re-encodes", () => {
  // https://optimistic.etherscan.io/tx/0x312e290cf36df704a2217b015d6455396830b0ce678b860ebfcc30f41403d7b1
  const data = decodeDepositTx(hexToBytes(REAL_L1_INFO_DEPOSITS[0].raw)).data;
  const { format, info } = decodeL1InfoCalldata(data);
  assertEquals(format, "ecotone");
  assertEquals(info.baseFeeScalar, 5227n);
  assertEquals(info.blobBaseFeeScalar, 1_014_213n);
  assertEquals(info.sequenceNumber, 4n);
  assertEquals(info.timestamp, 0x66d052e7n);
  assertEquals(info.number, 20_633_763n);
  assertEquals(info.baseFee, 0x3ef12787n);
  assertEquals(info.blobBaseFee, 1n);
  assertEquals(
    bytesToHex(info.blockHash),
    "0x2fdf87b89884a61e74b322bbcf60386f543bfae7827725efaaf0ab1de2294a59",
  );
  // The OP Mainnet batcher, as a versioned hash (version 0: left-padded address).
  assertEquals(bytesToHex(info.batcherHash.subarray(12)), "0x6887246668a3b87f54deb3b94ba47a6f63f32985");
  assertEquals(bytesToHex(encodeL1InfoCalldata("ecotone", info)), bytesToHex(data));
});

Deno.test("l1 info vectors: Base Ecotone calldata decodes and re-encodes", () => {
  // https://basescan.org/tx/0xc468b38a20375922828c8126912740105125143b9856936085474b2590bbca91
  const data = decodeDepositTx(hexToBytes(REAL_L1_INFO_DEPOSITS[1].raw)).data;
  const { info } = decodeL1InfoCalldata(data);
  assertEquals([info.baseFeeScalar, info.blobBaseFeeScalar, info.sequenceNumber], [0x8ddn, 0x101c12n, 4n]);
  assertEquals(bytesToHex(encodeL1InfoCalldata("ecotone", info)), bytesToHex(data));
});

Deno.test("l1 info vectors: storage slots match contracts-bedrock L1Block's storageLayout", async () => {
  // npm @eth-optimism/contracts-bedrock@0.17.3, forge-artifacts/L1Block.sol/L1Block.json (Ecotone L1Block).
  const url = import.meta.resolve("@eth-optimism/contracts-bedrock/forge-artifacts/L1Block.sol/L1Block.json");
  const artifact = JSON.parse(await Deno.readTextFile(new URL(url)));
  const layout = Object.fromEntries(
    (artifact.storageLayout.storage as { label: string; slot: string; offset: number }[]).map((s) => [
      s.label,
      [BigInt(s.slot), s.offset],
    ]),
  );
  assertEquals(layout.number, [L1_BLOCK_SLOTS.numberTimestamp, 0]);
  assertEquals(layout.timestamp, [L1_BLOCK_SLOTS.numberTimestamp, 8]);
  assertEquals(layout.basefee, [L1_BLOCK_SLOTS.basefee, 0]);
  assertEquals(layout.hash, [L1_BLOCK_SLOTS.hash, 0]);
  assertEquals(layout.sequenceNumber, [L1_BLOCK_SLOTS.scalars, 0]);
  assertEquals(layout.blobBaseFeeScalar, [L1_BLOCK_SLOTS.scalars, 8]);
  assertEquals(layout.baseFeeScalar, [L1_BLOCK_SLOTS.scalars, 12]);
  assertEquals(layout.batcherHash, [L1_BLOCK_SLOTS.batcherHash, 0]);
  assertEquals(layout.l1FeeOverhead, [L1_BLOCK_SLOTS.l1FeeOverhead, 0]);
  assertEquals(layout.l1FeeScalar, [L1_BLOCK_SLOTS.l1FeeScalar, 0]);
  assertEquals(layout.blobBaseFee, [L1_BLOCK_SLOTS.blobBaseFee, 0]);
});

Deno.test("l1 info vectors: storage words match what setL1BlockValuesEcotone's sstore writes", () => {
  // L1Block.sol setL1BlockValuesEcotone: sstore(sequenceNumber.slot, shr(128, calldataload(4))) and
  // sstore(number.slot, shr(128, calldataload(20))): the low 16 bytes of each slot are calldata[4:20] / [20:36].
  const data = decodeDepositTx(hexToBytes(REAL_L1_INFO_DEPOSITS[0].raw)).data;
  const storage = l1BlockStorage(decodeL1InfoCalldata(data).info);
  const low16 = (v: bigint) => v.toString(16).padStart(32, "0");
  assertEquals(low16(storage.get(L1_BLOCK_SLOTS.scalars)!), bytesToHex(data.subarray(4, 20)).slice(2));
  assertEquals(
    low16(storage.get(L1_BLOCK_SLOTS.numberTimestamp)!),
    bytesToHex(data.subarray(20, 36)).slice(2),
  );
});
