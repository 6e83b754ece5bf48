/**
 * Genesis block hashes and state roots of public Ethereum chains, computed from the allocs
 * shipped in `@ethereumjs/genesis` with the header parameters of geth's core/genesis.go
 * (DefaultGenesisBlock, DefaultSepoliaGenesisBlock, DefaultHoleskyGenesisBlock, DefaultHoodiGenesisBlock)
 * and the fork activations of params/config.go. The expected hashes are the chains' well-known ones.
 */
import { getGenesis } from "@ethereumjs/genesis";
import { Caches, MerkleStateManager } from "@ethereumjs/statemanager";
import { assertEquals } from "../assert.ts";
import { bytesToHex } from "../../lib/common/bytes.ts";
import { buildGenesis, type GenesisJson, parseGenesis } from "../../lib/execution/genesis/mod.ts";

type AccountState = string | [string, string?, [string, string][]?, string?];

/** @ethereumjs/genesis alloc format -> op-geth genesis.json alloc. */
function toAlloc(state: Record<string, AccountState>): GenesisJson["alloc"] {
  const alloc: GenesisJson["alloc"] = {};
  for (const [address, value] of Object.entries(state)) {
    if (typeof value === "string") {
      alloc[address] = { balance: value };
      continue;
    }
    const [balance, code, storage, nonce] = value;
    alloc[address] = {
      balance,
      ...(code !== undefined ? { code } : {}),
      ...(nonce !== undefined ? { nonce } : {}),
      ...(storage !== undefined ? { storage: Object.fromEntries(storage) } : {}),
    };
  }
  return alloc;
}

const PRE_MERGE_BLOCKS = {
  homesteadBlock: 0,
  eip150Block: 0,
  eip155Block: 0,
  eip158Block: 0,
  byzantiumBlock: 0,
  constantinopleBlock: 0,
  petersburgBlock: 0,
  istanbulBlock: 0,
  berlinBlock: 0,
  londonBlock: 0,
};

const CHAINS: {
  name: string;
  chainId: number;
  json: Omit<GenesisJson, "alloc">;
  stateRoot: string;
  hash: string;
}[] = [
  {
    name: "mainnet",
    chainId: 1,
    json: {
      config: {
        chainId: 1,
        homesteadBlock: 1150000,
        daoForkBlock: 1920000,
        eip150Block: 2463000,
        eip155Block: 2675000,
        eip158Block: 2675000,
        byzantiumBlock: 4370000,
        constantinopleBlock: 7280000,
        petersburgBlock: 7280000,
        istanbulBlock: 9069000,
        muirGlacierBlock: 9200000,
        berlinBlock: 12244000,
        londonBlock: 12965000,
        arrowGlacierBlock: 13773000,
        grayGlacierBlock: 15050000,
        terminalTotalDifficulty: "58750000000000000000000",
        shanghaiTime: 1681338455,
        cancunTime: 1710338135,
        pragueTime: 1746612311,
      },
      nonce: "0x42",
      extraData: "0x11bbe8db4e347b4e8c937c1c8370e4b5ed33adb3db69cbdb7a38e1e50b1b82fa",
      gasLimit: "5000",
      difficulty: "17179869184",
    },
    stateRoot: "0xd7f8974fb5ac78d9ac099b9ad5018bedc2ce0a72dad1827a1709da30580f0544",
    hash: "0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3",
  },
  {
    name: "sepolia",
    chainId: 11155111,
    json: {
      config: {
        chainId: 11155111,
        ...PRE_MERGE_BLOCKS,
        mergeNetsplitBlock: 1735371,
        terminalTotalDifficulty: "17000000000000000",
        shanghaiTime: 1677557088,
        cancunTime: 1706655072,
        pragueTime: 1741159776,
      },
      nonce: "0x0",
      timestamp: "1633267481",
      extraData: "0x5365706f6c69612c20417468656e732c204174746963612c2047726565636521",
      gasLimit: "0x1c9c380",
      difficulty: "0x20000",
    },
    stateRoot: "0x5eb6e371a698b8d68f665192350ffcecbbbf322916f4b51bd79bb6887da3f494",
    hash: "0x25a5cc106eea7138acab33231d7160d69cb777ee0c2c553fcddf5138993e6dd9",
  },
  {
    name: "holesky",
    chainId: 17000,
    json: {
      config: {
        chainId: 17000,
        ...PRE_MERGE_BLOCKS,
        mergeNetsplitBlock: 0,
        terminalTotalDifficulty: 0,
        shanghaiTime: 1696000704,
        cancunTime: 1707305664,
        pragueTime: 1740434112,
      },
      nonce: "0x1234",
      timestamp: "1695902100",
      gasLimit: "0x17d7840",
      difficulty: "0x1",
    },
    stateRoot: "0x69d8c9d72f6fa4ad42d4702b433707212f90db395eb54dc20bc85de253788783",
    hash: "0xb5f7f912443c940f21fd611f12828d75b534364ed9e95ca4e307729a4661bde4",
  },
  {
    // Hoodi starts with Shanghai and Cancun active: exercises withdrawalsRoot, the blob fields and
    // parentBeaconBlockRoot in the genesis header.
    name: "hoodi",
    chainId: 560048,
    json: {
      config: {
        chainId: 560048,
        ...PRE_MERGE_BLOCKS,
        mergeNetsplitBlock: 0,
        terminalTotalDifficulty: 0,
        shanghaiTime: 0,
        cancunTime: 0,
        pragueTime: 1742999832,
      },
      nonce: "0x1234",
      timestamp: "1742212800",
      gasLimit: "0x2255100",
      difficulty: "0x1",
    },
    stateRoot: "0xda87d7f5f91c51508791bbcbd4aa5baf04917830b86985eeb9ad3d5bfb657576",
    hash: "0xbbe312868b376a3001692a646dd2d7d1e4406380dfd86b98aa8a34d1557c971b",
  },
];

for (const chain of CHAINS) {
  Deno.test(`genesis: ${chain.name} state root and block hash match the public chain`, async () => {
    const state = getGenesis(chain.chainId);
    if (state === undefined) throw new Error(`@ethereumjs/genesis has no ${chain.name}`);
    const genesis = parseGenesis({ ...chain.json, alloc: toAlloc(state as Record<string, AccountState>) });
    const result = await buildGenesis(genesis, new MerkleStateManager({ caches: new Caches() }));
    assertEquals(bytesToHex(result.stateRoot), chain.stateRoot);
    assertEquals(bytesToHex(result.hash), chain.hash);
  });
}
