/**
 * The network upgrade automation transactions against the values the specs state
 * (ecotone/fjord/isthmus/jovian derivation.md): source hashes, senders, targets, gas limits, calldata,
 * deployed addresses, count and order. Jovian's intents follow op-node (see lib/protocol/upgrade_txs.ts).
 */
import { bytesToHex, hexToBytes } from "../../../lib/common/bytes.ts";
import { isErrorCode } from "../../../lib/common/errors.ts";
import { keccak256 } from "../../../lib/common/hash.ts";
import { decodeDepositTx, upgradeDepositSourceHash } from "../../../lib/protocol/deposit_tx.ts";
import { OP_FORKS } from "../../../lib/protocol/hardforks.ts";
import * as bytecode from "../../../lib/protocol/upgrade_bytecode.ts";
import {
  createAddress,
  ECOTONE_GAS_PRICE_ORACLE_ADDRESS,
  ECOTONE_L1_BLOCK_ADDRESS,
  FJORD_GAS_PRICE_ORACLE_ADDRESS,
  ISTHMUS_GAS_PRICE_ORACLE_ADDRESS,
  ISTHMUS_L1_BLOCK_ADDRESS,
  ISTHMUS_OPERATOR_FEE_VAULT_ADDRESS,
  JOVIAN_GAS_PRICE_ORACLE_ADDRESS,
  JOVIAN_L1_BLOCK_ADDRESS,
  UPGRADE_FORKS,
  UPGRADE_TO_SELECTOR,
  UPGRADE_TXS,
  upgradeDepositTxs,
  upgradeToCalldata,
  upgradeTransactions,
} from "../../../lib/protocol/upgrade_txs.ts";
import {
  constantName,
  normalizeBytecode,
  OUTPUT_FILE,
  render,
} from "../../../scripts/gen_upgrade_bytecode.ts";
import { assert, assertEquals, assertNotEquals, assertThrows } from "../../assert.ts";

/** What the spec states for one transaction (hex lower-case; data only where the spec spells it out). */
interface Expected {
  intent: string;
  sourceHash: string;
  from: string;
  to: string | null;
  gas: bigint;
  /** Calldata or initcode as the spec gives it in full. */
  data?: string;
  /** For deployments: the generated constant holding the spec's static bytecode file. */
  bytecode?: string;
  /** For deployments: the address the spec states. */
  deployed?: string;
  codeHash?: string;
}

const ZERO = "0x0000000000000000000000000000000000000000";
const DEPOSITOR = "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001";
const L1_BLOCK = "0x4200000000000000000000000000000000000015";
const GPO = "0x420000000000000000000000000000000000000f";
const OPERATOR_FEE_VAULT = "0x420000000000000000000000000000000000001b";

const EXPECTED: Record<string, Expected[]> = {
  ecotone: [
    {
      intent: "Ecotone: L1 Block Deployment",
      sourceHash: "0x877a6077205782ea15a6dc8699fa5ebcec5e0f4389f09cb8eda09488231346f8",
      from: "0x4210000000000000000000000000000000000000",
      to: null,
      gas: 375_000n,
      bytecode: bytecode.ECOTONE_L1_BLOCK_DEPLOYMENT_BYTECODE,
      deployed: "0x07dbe8500fc591d1852b76fee44d5a05e13097ff",
      codeHash: "0xc88a313aa75dc4fbf0b6850d9f9ae41e04243b7008cf3eadb29256d4a71c1dfd",
    },
    {
      intent: "Ecotone: Gas Price Oracle Deployment",
      sourceHash: "0xa312b4510adf943510f05fcc8f15f86995a5066bd83ce11384688ae20e6ecf42",
      from: "0x4210000000000000000000000000000000000001",
      to: null,
      gas: 1_000_000n,
      bytecode: bytecode.ECOTONE_GAS_PRICE_ORACLE_DEPLOYMENT_BYTECODE,
      deployed: "0xb528d11cc114e026f138fe568744c6d45ce6da7a",
      codeHash: "0x8b71360ea773b4cfaf1ae6d2bd15464a4e1e2e360f786e475f63aeaed8da0ae5",
    },
    {
      intent: "Ecotone: L1 Block Proxy Update",
      sourceHash: "0x18acb38c5ff1c238a7460ebc1b421fa49ec4874bdf1e0a530d234104e5e67dbc",
      from: ZERO,
      to: L1_BLOCK,
      gas: 50_000n,
      data: "0x3659cfe600000000000000000000000007dbe8500fc591d1852b76fee44d5a05e13097ff",
    },
    {
      intent: "Ecotone: Gas Price Oracle Proxy Update",
      sourceHash: "0xee4f9385eceef498af0be7ec5862229f426dec41c8d42397c7257a5117d9230a",
      from: ZERO,
      to: GPO,
      gas: 50_000n,
      data: "0x3659cfe6000000000000000000000000b528d11cc114e026f138fe568744c6d45ce6da7a",
    },
    {
      intent: "Ecotone: Gas Price Oracle Set Ecotone",
      sourceHash: "0x0c1cb38e99dbc9cbfab3bb80863380b0905290b37eb3d6ab18dc01c1f3e75f93",
      from: DEPOSITOR,
      to: GPO,
      gas: 80_000n,
      data: "0x22b90ab3",
    },
    {
      intent: "Ecotone: beacon block roots contract deployment",
      sourceHash: "0x69b763c48478b9dc2f65ada09b3d92133ec592ea715ec65ad6e7f3dc519dc00c",
      from: "0x0b799c86a49deeb90402691f1041aa3af2d3c875",
      to: null,
      gas: 0x3d090n,
      data:
        "0x60618060095f395ff33373fffffffffffffffffffffffffffffffffffffffe14604d57602036146024575f5ffd5b5f35801560495762001fff810690815414603c575f5ffd5b62001fff01545f5260205ff35b5f5ffd5b62001fff42064281555f359062001fff015500",
      deployed: "0x000f3df6d732807ef1319fb7b8bb8522d0beac02",
    },
  ],
  fjord: [
    {
      intent: "Fjord: Gas Price Oracle Deployment",
      sourceHash: "0x86122c533fdcb89b16d8713174625e44578a89751d96c098ec19ab40a51a8ea3",
      from: "0x4210000000000000000000000000000000000002",
      to: null,
      gas: 1_450_000n,
      bytecode: bytecode.FJORD_GAS_PRICE_ORACLE_DEPLOYMENT_BYTECODE,
      deployed: "0xa919894851548179a0750865e7974da599c0fac7",
      codeHash: "0xa88fa50a2745b15e6794247614b5298483070661adacb8d32d716434ed24c6b2",
    },
    {
      intent: "Fjord: Gas Price Oracle Proxy Update",
      sourceHash: "0x1e6bb0c28bfab3dc9b36ffb0f721f00d6937f33577606325692db0965a7d58c6",
      from: ZERO,
      to: GPO,
      gas: 50_000n,
      data: "0x3659cfe6000000000000000000000000a919894851548179a0750865e7974da599c0fac7",
    },
    {
      intent: "Fjord: Gas Price Oracle Set Fjord",
      sourceHash: "0xbac7bb0d5961cad209a345408b0280a0d4686b1b20665e1b0f9cdafd73b19b6b",
      from: DEPOSITOR,
      to: GPO,
      gas: 90_000n,
      data: "0x8e98b106",
    },
  ],
  isthmus: [
    {
      intent: "Isthmus: L1 Block Deployment",
      sourceHash: "0x3b2d0821ca2411ad5cd3595804d1213d15737188ae4cbd58aa19c821a6c211bf",
      from: "0x4210000000000000000000000000000000000003",
      to: null,
      gas: 425_000n,
      bytecode: bytecode.ISTHMUS_L1_BLOCK_DEPLOYMENT_BYTECODE,
      deployed: "0xff256497d61dcd71a9e9ff43967c13fde1f72d12",
      codeHash: "0x8e3fe7a416d3e5f3b7be74ddd4e7e58e516fa3f80b67c6d930e3cd7297da4a4b",
    },
    {
      intent: "Isthmus: Gas Price Oracle Deployment",
      sourceHash: "0xfc70b48424763fa3fab9844253b4f8d508f91eb1f7cb11a247c9baec0afb8035",
      from: "0x4210000000000000000000000000000000000004",
      to: null,
      gas: 1_625_000n,
      bytecode: bytecode.ISTHMUS_GAS_PRICE_ORACLE_DEPLOYMENT_BYTECODE,
      deployed: "0x93e57a196454cb919193fa9946f14943cf733845",
      codeHash: "0x4d195a9d7caf9fb6d4beaf80de252c626c853afd5868c4f4f8d19c9d301c2679",
    },
    {
      intent: "Isthmus: Operator Fee Vault Deployment",
      sourceHash: "0x107a570d3db75e6110817eb024f09f3172657e920634111ce9875d08a16daa96",
      from: "0x4210000000000000000000000000000000000005",
      to: null,
      gas: 500_000n,
      bytecode: bytecode.ISTHMUS_OPERATOR_FEE_DEPLOYMENT_BYTECODE,
      deployed: "0x4fa2be8cd41504037f1838bce3bcc93bc68ff537",
      codeHash: "0x57dc55c9c09ca456fa728f253fe7b895d3e6aae0706104935fe87c7721001971",
    },
    {
      intent: "Isthmus: L1 Block Proxy Update",
      sourceHash: "0xebe8b5cb10ca47e0d8bda8f5355f2d66711a54ddeb0ef1d30e29418c9bf17a0e",
      from: ZERO,
      to: L1_BLOCK,
      gas: 50_000n,
      data: "0x3659cfe6000000000000000000000000ff256497d61dcd71a9e9ff43967c13fde1f72d12",
    },
    {
      intent: "Isthmus: Gas Price Oracle Proxy Update",
      sourceHash: "0xecf2d9161d26c54eda6b7bfdd9142719b1e1199a6e5641468d1bf705bc531ab0",
      from: ZERO,
      to: GPO,
      gas: 50_000n,
      data: "0x3659cfe600000000000000000000000093e57a196454cb919193fa9946f14943cf733845",
    },
    {
      intent: "Isthmus: Operator Fee Vault Proxy Update",
      sourceHash: "0xad74e1adb877ccbe176b8fa1cc559388a16e090ddbe8b512f5b37d07d887a927",
      from: ZERO,
      to: OPERATOR_FEE_VAULT,
      gas: 50_000n,
      data: "0x3659cfe60000000000000000000000004fa2be8cd41504037f1838bce3bcc93bc68ff537",
    },
    {
      intent: "Isthmus: Gas Price Oracle Set Isthmus",
      sourceHash: "0x3ddf4b1302548dd92939826e970f260ba36167f4c25f18390a5e8b194b295319",
      from: DEPOSITOR,
      to: GPO,
      gas: 90_000n,
      data: "0x291b0383",
    },
    {
      intent: "Isthmus: EIP-2935 Contract Deployment",
      sourceHash: "0xbfb734dae514c5974ddf803e54c1bc43d5cdb4a48ae27e1d9b875a5a150b553a",
      from: "0x3462413af4609098e1e27a490f554f260213d685",
      to: null,
      gas: 250_000n,
      data:
        "0x60538060095f395ff33373fffffffffffffffffffffffffffffffffffffffe14604657602036036042575f35600143038111604257611fff81430311604257611fff9006545f5260205ff35b5f5ffd5b5f35611fff60014303065500",
      deployed: "0x0000f90827f1c53a10cb7a02335b175320002935",
      codeHash: "0x6e49e66782037c0555897870e29fa5e552daf4719552131a0abce779daec0a5d",
    },
  ],
  // Source hashes of the first four: op-node's intents (kona pins the same values), not the spec text's.
  jovian: [
    {
      intent: "Jovian: L1 Block Deployment",
      sourceHash: "0xbb1a656f65401240fac3db12e7a79ebb954b11e62f7626eb11691539b798d3bf",
      from: "0x4210000000000000000000000000000000000006",
      to: null,
      gas: 447_315n,
      bytecode: bytecode.JOVIAN_L1_BLOCK_DEPLOYMENT_BYTECODE,
      deployed: "0x3ba4007f5c922fbb33c454b41ea7a1f11e83df2c",
      codeHash: "0x5f885ca815d2cf27a203123e50b8ae204fdca910b6995d90b2d7700cbb9240d1",
    },
    {
      intent: "Jovian: L1 Block Proxy Update",
      sourceHash: "0xf3275f829340521028f9ad5bce4ecb1c64a45d448794effa2a77674627338e76",
      from: ZERO,
      to: L1_BLOCK,
      gas: 50_000n,
      data: "0x3659cfe60000000000000000000000003ba4007f5c922fbb33c454b41ea7a1f11e83df2c",
    },
    {
      intent: "Jovian: Gas Price Oracle Deployment",
      sourceHash: "0x239b7021a6c2cf3a918481242bbb5a9499057f24501539467536c691bb133962",
      from: "0x4210000000000000000000000000000000000007",
      to: null,
      gas: 1_750_714n,
      bytecode: bytecode.JOVIAN_GAS_PRICE_ORACLE_DEPLOYMENT_BYTECODE,
      deployed: "0x4f1db3c6abd250ba86e0928471a8f7db3afd88f1",
      codeHash: "0xe9fc7c96c4db0d6078e3d359d7e8c982c350a513cb2c31121adf5e1e8a446614",
    },
    {
      intent: "Jovian: Gas Price Oracle Proxy Update",
      sourceHash: "0xa70c60aa53b8c1c0d52b39b1e901e7d7c09f7819595cb24048a6bb1983b401ff",
      from: ZERO,
      to: GPO,
      gas: 50_000n,
      data: "0x3659cfe60000000000000000000000004f1db3c6abd250ba86e0928471a8f7db3afd88f1",
    },
    {
      intent: "Jovian: Gas Price Oracle Set Jovian",
      sourceHash: "0xe836db6a959371756f8941be3e962d000f7e12a32e49e2c9ca42ba177a92716c",
      from: DEPOSITOR,
      to: GPO,
      gas: 90_000n,
      data: "0xb3d72079",
    },
  ],
};

const utf8 = (s: string) => new TextEncoder().encode(s);

Deno.test("upgrade txs: the forks that have them, and their counts", () => {
  assertEquals([...UPGRADE_FORKS], ["ecotone", "fjord", "isthmus", "jovian"]);
  assertEquals(upgradeTransactions("ecotone").length, 6);
  assertEquals(upgradeTransactions("fjord").length, 3);
  assertEquals(upgradeTransactions("isthmus").length, 8);
  assertEquals(upgradeTransactions("jovian").length, 5);
  for (const fork of ["bedrock", "regolith", "canyon", "delta", "granite", "holocene"] as const) {
    assertEquals(upgradeTransactions(fork), [], fork);
    assertEquals(upgradeDepositTxs(fork), [], fork);
  }
});

Deno.test("upgrade txs: interop is refused, not silently empty", () => {
  assert(OP_FORKS.includes("interop"));
  const err = assertThrows(() => upgradeTransactions("interop"));
  assert(isErrorCode(err, "UPGRADE_TXS_UNSUPPORTED"), String(err));
});

for (const fork of UPGRADE_FORKS) {
  Deno.test(`upgrade txs: ${fork} matches the spec, transaction by transaction, in order`, () => {
    const expected = EXPECTED[fork];
    const encoded = upgradeTransactions(fork);
    const txs = upgradeDepositTxs(fork);
    assertEquals(encoded.length, expected.length);
    assertEquals(txs.length, expected.length);
    expected.forEach((want, i) => {
      const what = `${fork}[${i}] ${want.intent}`;
      const tx = decodeDepositTx(encoded[i]);
      assertEquals(tx, txs[i], what);
      assertEquals(UPGRADE_TXS[fork][i].intent, want.intent, what);
      assertEquals(bytesToHex(tx.sourceHash), want.sourceHash, what);
      assertEquals(bytesToHex(upgradeDepositSourceHash(want.intent)), want.sourceHash, what);
      assertEquals(bytesToHex(tx.from), want.from, what);
      assertEquals(tx.to === null ? null : bytesToHex(tx.to), want.to, what);
      assertEquals(tx.mint, 0n, what);
      assertEquals(tx.value, 0n, what);
      assertEquals(tx.gas, want.gas, what);
      assertEquals(tx.isSystemTx, false, what);
      if (want.data !== undefined) assertEquals(bytesToHex(tx.data), want.data, what);
      if (want.bytecode !== undefined) assertEquals(bytesToHex(tx.data), want.bytecode, what);
      assert(want.data !== undefined || want.bytecode !== undefined, `${what}: data unchecked`);
      const params = UPGRADE_TXS[fork][i];
      if (want.deployed !== undefined) {
        // The spec's `cast compute-address --nonce=0 <from>`.
        assertEquals(bytesToHex(createAddress(tx.from, 0n)), want.deployed, what);
        assertEquals(params.deployedAddress && bytesToHex(params.deployedAddress), want.deployed, what);
      } else {
        assertEquals(params.deployedAddress, undefined, what);
      }
      assertEquals(params.codeHash && bytesToHex(params.codeHash), want.codeHash, what);
    });
  });
}

Deno.test("upgrade txs: deployments create, proxy updates target the predeploy proxies", () => {
  for (const fork of UPGRADE_FORKS) {
    for (const tx of upgradeDepositTxs(fork)) {
      if (tx.to === null) {
        assert(tx.data.length > 0, `${fork}: empty initcode`);
      } else if (tx.data.length === 36) {
        assertEquals(tx.data.subarray(0, 4), UPGRADE_TO_SELECTOR, fork);
        assertEquals(bytesToHex(tx.from), ZERO, fork);
      } else {
        assertEquals(tx.data.length, 4, fork);
        assertEquals(bytesToHex(tx.from), DEPOSITOR, fork);
      }
    }
  }
});

Deno.test("upgrade txs: exported implementation addresses are the spec's", () => {
  const cases: Array<[Uint8Array, string]> = [
    [ECOTONE_L1_BLOCK_ADDRESS, "0x07dbe8500fc591d1852b76fee44d5a05e13097ff"],
    [ECOTONE_GAS_PRICE_ORACLE_ADDRESS, "0xb528d11cc114e026f138fe568744c6d45ce6da7a"],
    [FJORD_GAS_PRICE_ORACLE_ADDRESS, "0xa919894851548179a0750865e7974da599c0fac7"],
    [ISTHMUS_L1_BLOCK_ADDRESS, "0xff256497d61dcd71a9e9ff43967c13fde1f72d12"],
    [ISTHMUS_GAS_PRICE_ORACLE_ADDRESS, "0x93e57a196454cb919193fa9946f14943cf733845"],
    [ISTHMUS_OPERATOR_FEE_VAULT_ADDRESS, "0x4fa2be8cd41504037f1838bce3bcc93bc68ff537"],
    [JOVIAN_L1_BLOCK_ADDRESS, "0x3ba4007f5c922fbb33c454b41ea7a1f11e83df2c"],
    [JOVIAN_GAS_PRICE_ORACLE_ADDRESS, "0x4f1db3c6abd250ba86e0928471a8f7db3afd88f1"],
  ];
  for (const [actual, want] of cases) assertEquals(bytesToHex(actual), want);
});

Deno.test("upgrade txs: createAddress = keccak256(rlp([deployer, nonce]))[12:]", () => {
  // ecotone/derivation.md: the EIP-4788 deployer at nonce 1 (a user already sent the EIP's transaction).
  assertEquals(
    bytesToHex(createAddress(hexToBytes("0x0B799C86a49DEeb90402691F1041aa3AF2d3C875"), 1n)),
    "0xe3ae1ae551eeeda337c0bff6c4c7cba98dce353b",
  );
  // A well-known mainnet pair: 0x6ac7…dbf0 at nonces 0 and 1.
  const deployer = hexToBytes("0x6ac7ea33f8831ea9dcc53393aaa88b25a785dbf0");
  assertEquals(bytesToHex(createAddress(deployer, 0n)), "0xcd234a471b72ba2f1ccf0a70fcaba648a5eecd8d");
  assertEquals(bytesToHex(createAddress(deployer, 1n)), "0x343c43a37d37dff08ae8c4a11544c718abb4fcf8");
  const err = assertThrows(() => createAddress(new Uint8Array(19), 0n));
  assert(isErrorCode(err, "INVALID_ADDRESS"), String(err));
});

Deno.test("upgrade txs: upgradeTo calldata and the GasPriceOracle selectors", () => {
  assertEquals(bytesToHex(UPGRADE_TO_SELECTOR), "0x3659cfe6");
  assertEquals(bytesToHex(keccak256(utf8("upgradeTo(address)")).subarray(0, 4)), "0x3659cfe6");
  assertEquals(
    bytesToHex(upgradeToCalldata(hexToBytes("0x07dbe8500fc591d1852B76feE44d5a05e13097Ff"))),
    "0x3659cfe600000000000000000000000007dbe8500fc591d1852b76fee44d5a05e13097ff",
  );
  const err = assertThrows(() => upgradeToCalldata(new Uint8Array(32)));
  assert(isErrorCode(err, "INVALID_ADDRESS"), String(err));
  // `cast sig` of each enable call, as the specs give them (isthmus/derivation.md prints setFjord's
  // selector under "Verify data" by mistake; its `data` field, 0x291b0383, is setIsthmus()).
  const sigs: Array<[string, string]> = [
    ["setEcotone()", "0x22b90ab3"],
    ["setFjord()", "0x8e98b106"],
    ["setIsthmus()", "0x291b0383"],
    ["setJovian()", "0xb3d72079"],
  ];
  for (const [sig, want] of sigs) assertEquals(bytesToHex(keccak256(utf8(sig)).subarray(0, 4)), want, sig);
});

Deno.test("upgrade txs: Jovian uses op-node's intents, whose source hashes differ from the spec text's", () => {
  const specText: Array<[string, string]> = [
    ["Jovian: L1Block Deployment", "0x98faf23b9795967bc0b1c543144739d50dba3ea40420e77ad6ca9848dbfb62e8"],
    ["Jovian: L1Block Proxy Update", "0x08447273a4fbce97bc8c515f97ac74efc461f6a4001553712f31ebc11288bad2"],
    [
      "Jovian: GasPriceOracle Deployment",
      "0xd939cca6eca7bd0ee0c7e89f7e5b5cf7bf6f7afe7b6966bb45dfb95344b31545",
    ],
    [
      "Jovian: GasPriceOracle Proxy Update",
      "0x46b597e2d8346ed7749b46734074361e0b41a0ab9af7afda5bb4e367e072bcb8",
    ],
  ];
  const built = upgradeDepositTxs("jovian");
  specText.forEach(([intent, hash], i) => {
    // The spec's hashes are right for the spec's strings...
    assertEquals(bytesToHex(upgradeDepositSourceHash(intent)), hash, intent);
    // ...but the chains carry op-node's.
    assertNotEquals(bytesToHex(built[i].sourceHash), hash, intent);
  });
});

Deno.test("upgrade txs: every call returns fresh objects", () => {
  const a = upgradeDepositTxs("fjord");
  a[0].data[0] ^= 0xff;
  a[1].from[0] = 0x42;
  const b = upgradeDepositTxs("fjord");
  assertEquals(bytesToHex(b[0].data.subarray(0, 1)), "0x60");
  assertEquals(bytesToHex(b[1].from), ZERO);
  assertEquals(bytesToHex(UPGRADE_TXS.fjord[0].data.subarray(0, 1)), "0x60");
});

Deno.test("upgrade txs: the generated bytecode module holds every spec file as 0x-hex", () => {
  const names = Object.keys(bytecode).sort();
  assertEquals(names, [
    "ECOTONE_GAS_PRICE_ORACLE_DEPLOYMENT_BYTECODE",
    "ECOTONE_L1_BLOCK_DEPLOYMENT_BYTECODE",
    "FJORD_GAS_PRICE_ORACLE_DEPLOYMENT_BYTECODE",
    "INTEROP_CROSS_L2_INBOX_DEPLOYMENT_BYTECODE",
    "INTEROP_L2_TO_L2_CROSS_DOMAIN_MESSENGER_DEPLOYMENT_BYTECODE",
    "ISTHMUS_GAS_PRICE_ORACLE_DEPLOYMENT_BYTECODE",
    "ISTHMUS_L1_BLOCK_DEPLOYMENT_BYTECODE",
    "ISTHMUS_OPERATOR_FEE_DEPLOYMENT_BYTECODE",
    "JOVIAN_GAS_PRICE_ORACLE_DEPLOYMENT_BYTECODE",
    "JOVIAN_L1_BLOCK_DEPLOYMENT_BYTECODE",
  ]);
  for (const [name, hex] of Object.entries(bytecode)) {
    assert(/^0x([0-9a-f]{2})+$/.test(hex), name);
    // Solidity creation code: `PUSH1 0x80 PUSH1 0x40 MSTORE` (0x60e0 when immutables are set).
    assert(hex.startsWith("0x608060405") || hex.startsWith("0x60e060405"), name);
  }
});

Deno.test("upgrade txs: the committed bytecode module is exactly what the generator renders", async () => {
  const committed = await Deno.readTextFile(OUTPUT_FILE);
  const commit = committed.match(/specs, commit ([0-9a-f]{40}),/)?.[1];
  assert(commit !== undefined, "no specs commit in the header");
  // Back from constant to file name: ECOTONE_L1_BLOCK_DEPLOYMENT_BYTECODE -> ecotone-l1-block-deployment.txt
  const files = Object.entries(bytecode).map(([name, hex]) => ({
    name: `${name.replace(/_BYTECODE$/, "").toLowerCase().replaceAll("_", "-")}.txt`,
    content: `${hex.toUpperCase().replace("0X", "0x")}\n`,
  }));
  assertEquals(render(commit, files), committed);
  assertEquals(
    constantName("isthmus-operator-fee-deployment.txt"),
    "ISTHMUS_OPERATOR_FEE_DEPLOYMENT_BYTECODE",
  );
  assertThrows(() => constantName("../evil.txt"));
  assertThrows(() => normalizeBytecode("x.txt", "0x123"));
  assertThrows(() => normalizeBytecode("x.txt", "6080"));
  assertThrows(() => normalizeBytecode("x.txt", "0x"));
  assertEquals(normalizeBytecode("x.txt", " 0xAbCd\n"), "0xabcd");
});
