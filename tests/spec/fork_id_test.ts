/**
 * EIP-2124 fork ids against go-ethereum's own vectors (core/forkid/forkid_test.go TestCreation, the
 * mainnet, Sepolia and Holesky cases, as op-geth carries them), with the chain configs of geth's
 * params/config.go written as genesis.json `config` objects and parsed by keel's parser.
 */
import { hexToBytes } from "../../lib/common/bytes.ts";
import { crc32 } from "../../lib/common/crc.ts";
import { parseChainConfig } from "../../lib/protocol/chain_config.ts";
import { forkId } from "../../lib/protocol/fork_id.ts";
import { assertEquals } from "../assert.ts";

type Case = [head: number, time: number, hash: number, next: number];

const MAINNET = {
  config: {
    chainId: 1,
    homesteadBlock: 1_150_000,
    daoForkBlock: 1_920_000,
    daoForkSupport: true,
    eip150Block: 2_463_000,
    eip155Block: 2_675_000,
    eip158Block: 2_675_000,
    byzantiumBlock: 4_370_000,
    constantinopleBlock: 7_280_000,
    petersburgBlock: 7_280_000,
    istanbulBlock: 9_069_000,
    muirGlacierBlock: 9_200_000,
    berlinBlock: 12_244_000,
    londonBlock: 12_965_000,
    arrowGlacierBlock: 13_773_000,
    grayGlacierBlock: 15_050_000,
    terminalTotalDifficulty: "58750000000000000000000",
    shanghaiTime: 1681338455,
    cancunTime: 1710338135,
    depositContractAddress: "0x00000000219ab540356cbb839cbe05303d7705fa",
  },
  genesis: "0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3",
  time: 0n,
  cases: [
    [0, 0, 0xfc64ec04, 1150000],
    [1149999, 0, 0xfc64ec04, 1150000],
    [1150000, 0, 0x97c2c34c, 1920000],
    [1919999, 0, 0x97c2c34c, 1920000],
    [1920000, 0, 0x91d1f948, 2463000],
    [2462999, 0, 0x91d1f948, 2463000],
    [2463000, 0, 0x7a64da13, 2675000],
    [2674999, 0, 0x7a64da13, 2675000],
    [2675000, 0, 0x3edd5b10, 4370000],
    [4369999, 0, 0x3edd5b10, 4370000],
    [4370000, 0, 0xa00bc324, 7280000],
    [7279999, 0, 0xa00bc324, 7280000],
    [7280000, 0, 0x668db0af, 9069000],
    [9068999, 0, 0x668db0af, 9069000],
    [9069000, 0, 0x879d6e30, 9200000],
    [9199999, 0, 0x879d6e30, 9200000],
    [9200000, 0, 0xe029e991, 12244000],
    [12243999, 0, 0xe029e991, 12244000],
    [12244000, 0, 0x0eb440f6, 12965000],
    [12964999, 0, 0x0eb440f6, 12965000],
    [12965000, 0, 0xb715077d, 13773000],
    [13772999, 0, 0xb715077d, 13773000],
    [13773000, 0, 0x20c327fc, 15050000],
    [15049999, 0, 0x20c327fc, 15050000],
    [15050000, 0, 0xf0afd0e3, 1681338455],
    [20000000, 1681338454, 0xf0afd0e3, 1681338455],
    [20000000, 1681338455, 0xdce96c2d, 1710338135],
    [30000000, 1710338134, 0xdce96c2d, 1710338135],
    [40000000, 1710338135, 0x9f3d2254, 0],
    [50000000, 2000000000, 0x9f3d2254, 0],
  ] as Case[],
};

const SEPOLIA = {
  config: {
    chainId: 11155111,
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
    terminalTotalDifficulty: "17000000000000000",
    mergeNetsplitBlock: 1735371,
    shanghaiTime: 1677557088,
    cancunTime: 1706655072,
  },
  genesis: "0x25a5cc106eea7138acab33231d7160d69cb777ee0c2c553fcddf5138993e6dd9",
  time: 1633267481n,
  cases: [
    [0, 0, 0xfe3366e7, 1735371],
    [1735370, 0, 0xfe3366e7, 1735371],
    [1735371, 0, 0xb96cbd13, 1677557088],
    [1735372, 1677557087, 0xb96cbd13, 1677557088],
    [1735372, 1677557088, 0xf7f9bc08, 1706655072],
    [1735372, 1706655071, 0xf7f9bc08, 1706655072],
    [1735372, 1706655072, 0x88cf81d9, 0],
    [1735372, 2706655072, 0x88cf81d9, 0],
  ] as Case[],
};

const HOLESKY = {
  config: {
    chainId: 17000,
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
    terminalTotalDifficulty: 0,
    shanghaiTime: 1696000704,
    cancunTime: 1707305664,
  },
  genesis: "0xb5f7f912443c940f21fd611f12828d75b534364ed9e95ca4e307729a4661bde4",
  time: 1695902100n,
  cases: [
    [0, 0, 0xc61a6098, 1696000704],
    [123, 0, 0xc61a6098, 1696000704],
    [123, 1696000704, 0xfd4f016b, 1707305664],
    [123, 1707305663, 0xfd4f016b, 1707305664],
    [123, 1707305664, 0x9b192ad0, 0],
    [123, 2707305664, 0x9b192ad0, 0],
  ] as Case[],
};

for (const [name, net] of Object.entries({ mainnet: MAINNET, sepolia: SEPOLIA, holesky: HOLESKY })) {
  Deno.test(`fork id: geth's ${name} vectors`, () => {
    const config = parseChainConfig(net.config);
    for (const [head, time, hash, next] of net.cases) {
      const id = forkId(config, hexToBytes(net.genesis), net.time, BigInt(head), BigInt(time));
      assertEquals(
        { hash: new DataView(id.hash.buffer).getUint32(0), next: id.next },
        { hash, next: BigInt(next) },
        `${name} head ${head} time ${time}`,
      );
    }
  });
}

Deno.test("crc32: the IEEE check value, and continuing a checksum equals checksumming the whole", () => {
  const data = new TextEncoder().encode("123456789");
  assertEquals(crc32(data), 0xcbf43926);
  assertEquals(crc32(data.subarray(4), crc32(data.subarray(0, 4))), 0xcbf43926);
});
