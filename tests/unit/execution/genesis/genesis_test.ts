/** parseGenesis, genesisHeader and buildGenesis: op-geth genesis.json rules (core/genesis.go). */
import { RLP } from "@ethereumjs/rlp";
import { Caches, MerkleStateManager } from "@ethereumjs/statemanager";
import { Address } from "@ethereumjs/util";
import { assert, assertEquals, assertThrows } from "../../../assert.ts";
import { BaseError } from "../../../../lib/common/errors.ts";
import { bigIntToBytes, bytesToHex, concatBytes, hexToBytes } from "../../../../lib/common/bytes.ts";
import { keccak256 } from "../../../../lib/common/hash.ts";
import { EMPTY_REQUESTS_HASH, EMPTY_TRIE_ROOT, hashHeader } from "../../../../lib/protocol/block.ts";
import {
  buildGenesis,
  genesisHeader,
  type GenesisJson,
  parseGenesis,
  parseJsonExact,
  writeAlloc,
  writeAllocFast,
} from "../../../../lib/execution/genesis/mod.ts";
import { createStateManager } from "../../../../lib/execution/state/mod.ts";
import { MemoryStore } from "../../../../lib/db/mod.ts";

const L1_CONFIG = {
  chainId: 1337,
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

const OP_CONFIG = {
  ...L1_CONFIG,
  chainId: 901,
  bedrockBlock: 0,
  regolithTime: 0,
  canyonTime: 0,
  deltaTime: 0,
  ecotoneTime: 0,
  fjordTime: 0,
  graniteTime: 0,
  holoceneTime: 0,
  isthmusTime: 0,
  optimism: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
};

const base = (config: Record<string, unknown>, extra: Partial<GenesisJson> = {}): GenesisJson => ({
  config,
  gasLimit: "30000000",
  difficulty: "0",
  alloc: {},
  ...extra,
});

Deno.test("genesis: parses balances, nonces, code and storage in every form geth accepts", () => {
  const text = JSON.stringify({
    ...base(L1_CONFIG),
    timestamp: "0x10",
    nonce: 66,
    extraData: "0xabcd",
    alloc: {
      "0x0000000000000000000000000000000000000001": { balance: "0x10" },
      "0000000000000000000000000000000000000002": { balance: "1000000000000000000000", nonce: "0x5" },
      "0x0000000000000000000000000000000000000003": {
        balance: 7,
        code: "0x6001",
        storage: { "0x01": "0x02", "0x03": "0x00", ["0x" + "ff".repeat(32)]: "abcd" },
      },
      // JSON numbers beyond 2^53 stay exact when parsed from text.
      "0x0000000000000000000000000000000000000004": { balance: "__BIG__" },
    },
  }).replace('"__BIG__"', "123456789012345678901234567890");
  const g = parseGenesis(text);
  assertEquals(g.timestamp, 16n);
  assertEquals(g.nonce, 66n);
  assertEquals(g.extraData, hexToBytes("0xabcd"));
  assertEquals(g.alloc.size, 4);
  assertEquals(g.alloc.get("0x0000000000000000000000000000000000000001")?.balance, 16n);
  const two = g.alloc.get("0x0000000000000000000000000000000000000002")!;
  assertEquals(two.balance, 10n ** 21n);
  assertEquals(two.nonce, 5n);
  const three = g.alloc.get("0x0000000000000000000000000000000000000003")!;
  assertEquals(three.code, hexToBytes("0x6001"));
  // Zero-valued slots are dropped; short keys and values are left-padded to 32 bytes.
  assertEquals(three.storage.length, 2);
  assertEquals(bytesToHex(three.storage[0][0]), bytesToHex(bigIntToBytes(1n, 32)));
  assertEquals(bytesToHex(three.storage[0][1]), bytesToHex(bigIntToBytes(2n, 32)));
  assertEquals(bytesToHex(three.storage[1][1]), bytesToHex(bigIntToBytes(0xabcdn, 32)));
  assertEquals(
    g.alloc.get("0x0000000000000000000000000000000000000004")?.balance,
    123456789012345678901234567890n,
  );
  assertEquals(parseJsonExact('{"a": 18446744073709551617, "b": 1.5}'), { a: 18446744073709551617n, b: 1.5 });
});

Deno.test("genesis: the same address in two cases keeps the last entry", () => {
  const g = parseGenesis(base(L1_CONFIG, {
    alloc: {
      "0x00000000000000000000000000000000000000aa": { balance: "1" },
      "0x00000000000000000000000000000000000000AA": { balance: "2" },
    },
  }));
  assertEquals(g.alloc.size, 1);
  assertEquals(g.alloc.get("0x00000000000000000000000000000000000000aa")?.balance, 2n);
});

Deno.test("genesis: bad input gives errors that name the field", () => {
  const bad = (json: unknown, text: string) => {
    const err = assertThrows(() => parseGenesis(json), BaseError, text) as BaseError;
    assert(err.code === "INVALID_GENESIS" || err.code === "INVALID_CHAIN_CONFIG", err.code);
  };
  bad("{", "Cannot parse genesis JSON");
  bad({ gasLimit: "1", difficulty: "0", alloc: {} }, "config is required");
  bad({ config: L1_CONFIG, difficulty: "0", alloc: {} }, "gasLimit is required");
  bad({ config: L1_CONFIG, gasLimit: "1", alloc: {} }, "difficulty is required");
  bad({ config: L1_CONFIG, gasLimit: "1", difficulty: "0" }, "alloc is required");
  bad({ config: {}, gasLimit: "1", difficulty: "0", alloc: {} }, "chainId is required");
  bad(base(L1_CONFIG, { alloc: { "0x12": { balance: "1" } } }), "alloc key 0x12 is not an address");
  const a = "0x0000000000000000000000000000000000000001";
  bad(base(L1_CONFIG, { alloc: { [a]: {} as { balance: string } } }), `alloc.${a}.balance is required`);
  bad(base(L1_CONFIG, { alloc: { [a]: { balance: "x" } } }), `alloc.${a}.balance`);
  bad(
    base(L1_CONFIG, { alloc: { [a]: { balance: "1", code: "6001" } } }),
    `alloc.${a}.code must be 0x-prefixed`,
  );
  bad(
    base(L1_CONFIG, { alloc: { [a]: { balance: "1", storage: { "0x1": "0x" + "00".repeat(33) } } } }),
    "storage",
  );
  bad(base(L1_CONFIG, { mixHash: "0x00" }), "mixHash must be 32 bytes");
  bad(base(L1_CONFIG, { coinbase: "0x00" }), "coinbase must be 20 bytes");
  bad(base(L1_CONFIG, { nonce: "0x10000000000000000" }), "nonce does not fit in 64 bits");
});

Deno.test("genesis header: London sets the 1 gwei base fee unless given; pre-London has none", () => {
  const root = EMPTY_TRIE_ROOT;
  assertEquals(genesisHeader(parseGenesis(base(L1_CONFIG)), root).baseFeePerGas, 1_000_000_000n);
  assertEquals(
    genesisHeader(parseGenesis(base(L1_CONFIG, { baseFeePerGas: "0x7" })), root).baseFeePerGas,
    7n,
  );
  const preLondon = { ...L1_CONFIG, londonBlock: 10 };
  const h = genesisHeader(parseGenesis(base(preLondon)), root);
  assertEquals(h.baseFeePerGas, undefined);
  assertEquals(h.withdrawalsRoot, undefined);
  assertEquals(genesisHeader(parseGenesis(base(L1_CONFIG, { gasLimit: "0" })), root).gasLimit, 4_712_388n);
});

Deno.test("genesis header: Shanghai, Cancun and Prague fields follow the genesis timestamp", () => {
  const cfg = { ...L1_CONFIG, shanghaiTime: 100, cancunTime: 200, pragueTime: 300 };
  const at = (t: number, extra: Partial<GenesisJson> = {}) =>
    genesisHeader(parseGenesis(base(cfg, { timestamp: String(t), ...extra })), EMPTY_TRIE_ROOT);
  assertEquals(at(99).withdrawalsRoot, undefined);
  assertEquals(at(100).withdrawalsRoot, EMPTY_TRIE_ROOT);
  assertEquals(at(100).parentBeaconBlockRoot, undefined);
  const cancun = at(200, { excessBlobGas: "0x20000", blobGasUsed: "0x0" });
  assertEquals(cancun.excessBlobGas, 0x20000n);
  assertEquals(cancun.blobGasUsed, 0n);
  assertEquals(cancun.parentBeaconBlockRoot, new Uint8Array(32));
  assertEquals(cancun.requestsHash, undefined);
  assertEquals(at(300).requestsHash, EMPTY_REQUESTS_HASH);
});

/** Root of a secure trie holding one storage slot: a single leaf node. */
function singleSlotRoot(key: Uint8Array, value: bigint): Uint8Array {
  const path = keccak256(key);
  const leaf = RLP.encode([concatBytes(new Uint8Array([0x20]), path), RLP.encode(bigIntToBytes(value))]);
  return keccak256(leaf);
}

Deno.test("genesis: Isthmus withdrawalsRoot is the L2ToL1MessagePasser storage root", async () => {
  const passer = "0x4200000000000000000000000000000000000016";
  const key = bigIntToBytes(0x1234n, 32);
  const json = base(OP_CONFIG, {
    alloc: { [passer]: { balance: "0", code: "0x00", storage: { [bytesToHex(key)]: "0x01" } } },
  });
  const sm = new MerkleStateManager({ caches: new Caches() });
  const { header, block, stateRoot, hash } = await buildGenesis(parseGenesis(json), sm);
  assertEquals(bytesToHex(header.withdrawalsRoot!), bytesToHex(singleSlotRoot(key, 1n)));
  assertEquals(header.requestsHash, EMPTY_REQUESTS_HASH);
  assertEquals(header.parentBeaconBlockRoot, new Uint8Array(32));
  assertEquals(header.blobGasUsed, 0n);
  assertEquals(block.withdrawals, []);
  assertEquals(bytesToHex(hash), bytesToHex(hashHeader(header)));
  assertEquals(bytesToHex(await sm.getStateRoot()), bytesToHex(stateRoot));

  // Without the passer's storage the root is the empty trie root; before Isthmus it is the
  // Shanghai empty-withdrawals root whatever the passer holds.
  const empty = await buildGenesis(parseGenesis(base(OP_CONFIG)), new MerkleStateManager());
  assertEquals(empty.header.withdrawalsRoot, EMPTY_TRIE_ROOT);
  assertEquals(empty.stateRoot, EMPTY_TRIE_ROOT);
  const holocene = { ...OP_CONFIG, isthmusTime: 10 };
  const pre = await buildGenesis(parseGenesis({ ...json, config: holocene }), new MerkleStateManager());
  assertEquals(pre.header.withdrawalsRoot, EMPTY_TRIE_ROOT);
  assertEquals(pre.header.requestsHash, undefined);
});

Deno.test("genesis: alloc is written whole: balance, nonce, code, storage, empty accounts kept", async () => {
  const a = "0x00000000000000000000000000000000000000a1";
  const empty = "0x00000000000000000000000000000000000000a2";
  const sm = new MerkleStateManager({ caches: new Caches() });
  await buildGenesis(
    parseGenesis(base(L1_CONFIG, {
      alloc: {
        [a]: { balance: "0x64", nonce: "3", code: "0x600160005260206000f3", storage: { "0x05": "0x0a" } },
        [empty]: { balance: "0" },
      },
    })),
    sm,
  );
  const account = await sm.getAccount(new Address(hexToBytes(a)));
  assertEquals(account?.balance, 100n);
  assertEquals(account?.nonce, 3n);
  assertEquals(await sm.getCode(new Address(hexToBytes(a))), hexToBytes("0x600160005260206000f3"));
  assertEquals(await sm.getStorage(new Address(hexToBytes(a)), bigIntToBytes(5n, 32)), new Uint8Array([10]));
  assert((await sm.getAccount(new Address(hexToBytes(empty)))) !== undefined, "empty account is in the trie");
});

Deno.test("genesis: the one-pass writer gives the same state as per-account writes, readable after reopening", async () => {
  const code = "0x6080604052348015600f57600080fd5b50";
  const alloc: GenesisJson["alloc"] = {};
  for (let i = 1; i <= 300; i++) {
    const address = bytesToHex(bigIntToBytes(BigInt(i) * 0x1000001n, 20));
    alloc[address] = i % 3 === 0
      ? {
        balance: String(i),
        nonce: "1",
        code: i % 2 === 0 ? code : `${code}${i.toString(16).padStart(4, "0")}`,
        storage: { "0x01": "0x" + i.toString(16), [bytesToHex(bigIntToBytes(BigInt(i), 32))]: "0xffff" },
      }
      : { balance: i % 7 === 0 ? "0" : String(i * 1_000_000_000) };
  }
  const genesis = parseGenesis(base(OP_CONFIG, { alloc }));

  const slow = new MerkleStateManager({ caches: new Caches() });
  await writeAlloc(genesis.alloc, slow);
  const store = new MemoryStore();
  const fast = await createStateManager(store);
  assert(await writeAllocFast(genesis.alloc, fast), "fast path taken");
  assertEquals(bytesToHex(await fast.getStateRoot()), bytesToHex(await slow.getStateRoot()));

  // The nodes and code are in the store: a fresh manager at that root reads everything back.
  const reopened = await createStateManager(store, await fast.getStateRoot());
  for (const account of genesis.alloc.values()) {
    const address = new Address(account.address);
    const got = await reopened.getAccount(address);
    assertEquals(got?.balance, account.balance);
    assertEquals(got?.nonce, account.nonce);
    assertEquals(bytesToHex(await reopened.getCode(address)), bytesToHex(account.code));
    for (const [key, value] of account.storage) {
      assertEquals(
        bytesToHex(await reopened.getStorage(address, key)),
        bytesToHex(value.subarray(value.findIndex((b) => b !== 0))),
      );
    }
  }
  // A state that is not empty is left to the general path.
  assertEquals(await writeAllocFast(genesis.alloc, fast), false);
  const full = await buildGenesis(genesis, new MerkleStateManager());
  assertEquals(bytesToHex(full.stateRoot), bytesToHex(await slow.getStateRoot()));
});
