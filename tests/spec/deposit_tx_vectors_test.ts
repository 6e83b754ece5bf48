/**
 * Deposit transaction vectors pinned from real chains and the OP specs.
 */
import { bytesToHex, hexToBytes } from "../../lib/common/bytes.ts";
import {
  decodeDepositTx,
  depositTxHash,
  encodeDepositTx,
  l1InfoDepositSourceHash,
  upgradeDepositSourceHash,
} from "../../lib/protocol/deposit_tx.ts";
import { assertEquals } from "../assert.ts";
import { REAL_L1_INFO_DEPOSITS } from "./l1_info_deposits.ts";

/**
 * Upgrade-deposited source hashes, [intent, sourceHash], from the "Network upgrade automation transactions"
 * sections of https://github.com/ethereum-optimism/specs specs/protocol/{ecotone,fjord,isthmus,jovian}/derivation.md
 */
const UPGRADE_SOURCE_HASHES: [string, string][] = [
  ["Ecotone: L1 Block Deployment", "0x877a6077205782ea15a6dc8699fa5ebcec5e0f4389f09cb8eda09488231346f8"],
  [
    "Ecotone: Gas Price Oracle Deployment",
    "0xa312b4510adf943510f05fcc8f15f86995a5066bd83ce11384688ae20e6ecf42",
  ],
  ["Ecotone: L1 Block Proxy Update", "0x18acb38c5ff1c238a7460ebc1b421fa49ec4874bdf1e0a530d234104e5e67dbc"],
  [
    "Ecotone: Gas Price Oracle Proxy Update",
    "0xee4f9385eceef498af0be7ec5862229f426dec41c8d42397c7257a5117d9230a",
  ],
  [
    "Ecotone: Gas Price Oracle Set Ecotone",
    "0x0c1cb38e99dbc9cbfab3bb80863380b0905290b37eb3d6ab18dc01c1f3e75f93",
  ],
  [
    "Ecotone: beacon block roots contract deployment",
    "0x69b763c48478b9dc2f65ada09b3d92133ec592ea715ec65ad6e7f3dc519dc00c",
  ],
  [
    "Fjord: Gas Price Oracle Deployment",
    "0x86122c533fdcb89b16d8713174625e44578a89751d96c098ec19ab40a51a8ea3",
  ],
  [
    "Fjord: Gas Price Oracle Proxy Update",
    "0x1e6bb0c28bfab3dc9b36ffb0f721f00d6937f33577606325692db0965a7d58c6",
  ],
  ["Fjord: Gas Price Oracle Set Fjord", "0xbac7bb0d5961cad209a345408b0280a0d4686b1b20665e1b0f9cdafd73b19b6b"],
  ["Isthmus: L1 Block Deployment", "0x3b2d0821ca2411ad5cd3595804d1213d15737188ae4cbd58aa19c821a6c211bf"],
  [
    "Isthmus: Gas Price Oracle Deployment",
    "0xfc70b48424763fa3fab9844253b4f8d508f91eb1f7cb11a247c9baec0afb8035",
  ],
  [
    "Isthmus: Operator Fee Vault Deployment",
    "0x107a570d3db75e6110817eb024f09f3172657e920634111ce9875d08a16daa96",
  ],
  ["Isthmus: L1 Block Proxy Update", "0xebe8b5cb10ca47e0d8bda8f5355f2d66711a54ddeb0ef1d30e29418c9bf17a0e"],
  [
    "Isthmus: Gas Price Oracle Proxy Update",
    "0xecf2d9161d26c54eda6b7bfdd9142719b1e1199a6e5641468d1bf705bc531ab0",
  ],
  [
    "Isthmus: Operator Fee Vault Proxy Update",
    "0xad74e1adb877ccbe176b8fa1cc559388a16e090ddbe8b512f5b37d07d887a927",
  ],
  [
    "Isthmus: Gas Price Oracle Set Isthmus",
    "0x3ddf4b1302548dd92939826e970f260ba36167f4c25f18390a5e8b194b295319",
  ],
  [
    "Isthmus: EIP-2935 Contract Deployment",
    "0xbfb734dae514c5974ddf803e54c1bc43d5cdb4a48ae27e1d9b875a5a150b553a",
  ],
  ["Jovian: L1Block Deployment", "0x98faf23b9795967bc0b1c543144739d50dba3ea40420e77ad6ca9848dbfb62e8"],
  ["Jovian: L1Block Proxy Update", "0x08447273a4fbce97bc8c515f97ac74efc461f6a4001553712f31ebc11288bad2"],
  ["Jovian: GasPriceOracle Deployment", "0xd939cca6eca7bd0ee0c7e89f7e5b5cf7bf6f7afe7b6966bb45dfb95344b31545"],
  [
    "Jovian: GasPriceOracle Proxy Update",
    "0x46b597e2d8346ed7749b46734074361e0b41a0ab9af7afda5bb4e367e072bcb8",
  ],
  [
    "Jovian: Gas Price Oracle Set Jovian",
    "0xe836db6a959371756f8941be3e962d000f7e12a32e49e2c9ca42ba177a92716c",
  ],
];

Deno.test("deposit vectors: upgrade-deposited source hashes match the fork derivation specs", () => {
  assertEquals(UPGRADE_SOURCE_HASHES.length, 22);
  for (const [intent, hash] of UPGRADE_SOURCE_HASHES) {
    assertEquals(bytesToHex(upgradeDepositSourceHash(intent)), hash, intent);
  }
});

Deno.test("deposit vectors: real L1-info deposits decode, re-encode byte for byte and hash to the chain's tx hash", () => {
  for (const v of REAL_L1_INFO_DEPOSITS) {
    const raw = hexToBytes(v.raw);
    const tx = decodeDepositTx(raw);
    assertEquals(bytesToHex(tx.from), "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001", v.name);
    assertEquals(bytesToHex(tx.to!), "0x4200000000000000000000000000000000000015", v.name);
    assertEquals(tx.mint, 0n);
    assertEquals(tx.value, 0n);
    assertEquals(tx.gas, 1_000_000n);
    assertEquals(tx.isSystemTx, false);
    assertEquals(tx.data.length, 164);
    assertEquals(bytesToHex(encodeDepositTx(tx)), v.raw, v.name);
    assertEquals(bytesToHex(depositTxHash(tx)), v.hash, v.name);
    // deposits.md "Source hash computation", L1 attributes deposited: the hash commits to the L1 origin and seq number.
    assertEquals(
      bytesToHex(l1InfoDepositSourceHash(hexToBytes(v.l1BlockHash), v.seqNumber)),
      bytesToHex(tx.sourceHash),
      v.name,
    );
  }
});
