/**
 * ejsBlockFor (ejs_block.ts) copies the first header of a fork's Common for the next blocks instead of
 * running @ethereumjs's constructor again: every copy must equal what the constructor builds, on every
 * fork and for headers with optional fields left out, in its fields, its serialization and hash, and
 * what the VM asks of it (the blob gas price, the next base fee).
 */
import { createBlock } from "@ethereumjs/block";
import { assert, assertEquals } from "../../../assert.ts";
import { ejsBlockFor, forkRules, preHeader } from "../../../../lib/execution/evm/mod.ts";
import type { Header } from "../../../../lib/protocol/block.ts";
import type { ChainConfig } from "../../../../lib/protocol/chain_config.ts";
import type { OpFork } from "../../../../lib/protocol/hardforks.ts";
import { attributes, genesisHeader, l1Config, opConfig } from "./helpers.ts";

/** What the constructor makes of `h` (the path ejsBlockFor takes for the first header). */
function constructed(config: ChainConfig, h: Header) {
  return createBlock({
    header: {
      parentHash: h.parentHash,
      coinbase: h.coinbase,
      number: h.number,
      gasLimit: h.gasLimit,
      timestamp: h.timestamp,
      extraData: h.extraData,
      mixHash: h.mixHash,
      difficulty: 0n,
      baseFeePerGas: h.baseFeePerGas,
      withdrawalsRoot: h.withdrawalsRoot,
      blobGasUsed: h.blobGasUsed,
      excessBlobGas: h.excessBlobGas,
      parentBeaconBlockRoot: h.parentBeaconBlockRoot,
      requestsHash: h.requestsHash,
    },
  }, { common: forkRules(config, h.timestamp).common, skipConsensusFormatValidation: true });
}

const FIELDS = [
  "parentHash",
  "uncleHash",
  "coinbase",
  "stateRoot",
  "transactionsTrie",
  "receiptTrie",
  "logsBloom",
  "difficulty",
  "number",
  "gasLimit",
  "gasUsed",
  "timestamp",
  "extraData",
  "mixHash",
  "nonce",
  "baseFeePerGas",
  "withdrawalsRoot",
  "blobGasUsed",
  "excessBlobGas",
  "parentBeaconBlockRoot",
  "requestsHash",
] as const;

const CASES: [string, ChainConfig, OpFork | "l1"][] = [
  ["bedrock", opConfig("bedrock"), "bedrock"],
  ["canyon", opConfig("canyon"), "canyon"],
  ["ecotone", opConfig("ecotone"), "ecotone"],
  ["isthmus", opConfig("isthmus"), "isthmus"],
  ["jovian", opConfig("jovian"), "jovian"],
  ["l1 prague", l1Config(), "l1"],
];

for (const [name, config, fork] of CASES) {
  Deno.test(`ejsBlockFor: copies of the fork's first header equal the constructor's (${name})`, () => {
    let parent = genesisHeader(config, fork);
    const seen = [];
    for (let i = 0; i < 4; i++) {
      const h = preHeader(config, parent, {
        ...attributes(fork, parent.timestamp + 2n),
        gasLimit: 30_000_000n + 1n,
      });
      h.mixHash = new Uint8Array(32).fill(i + 1);
      h.coinbase = new Uint8Array(20).fill(0x40 + i);
      const extraData = h.extraData;
      if (i === 2) h.extraData = new Uint8Array([1, 2, 3]);
      if (h.excessBlobGas !== undefined) h.excessBlobGas = BigInt(i) * 131_072n;
      const rules = forkRules(config, h.timestamp);
      const fast = ejsBlockFor(rules, h);
      const slow = constructed(config, h);
      for (const f of FIELDS) {
        assertEquals(
          (fast.header as unknown as Record<string, unknown>)[f],
          (slow.header as unknown as Record<string, unknown>)[f],
          `${f} of block ${i}`,
        );
      }
      assertEquals(fast.header.serialize(), slow.header.serialize());
      assertEquals(fast.header.hash(), slow.header.hash());
      assertEquals(fast.withdrawals, slow.withdrawals);
      assertEquals(fast.header.common.hardfork(), slow.header.common.hardfork());
      if (h.excessBlobGas !== undefined) {
        assertEquals(fast.header.getBlobGasPrice(), slow.header.getBlobGasPrice());
      }
      assertEquals(fast.header.calcNextBaseFee(), slow.header.calcNextBaseFee());
      assert(Object.isFrozen(fast) && Object.isFrozen(fast.header));
      seen.push(fast.header);
      parent = { ...h, extraData, gasUsed: BigInt(i) * 1_000_000n };
    }
    // Each block its own header object, the hash cache not shared.
    assert(seen[1] !== seen[2]);
    assert(
      (seen[1] as unknown as { cache: unknown }).cache !== (seen[2] as unknown as { cache: unknown }).cache,
    );
  });
}

Deno.test("ejsBlockFor: a header without the optional fields of its fork gets the constructor's defaults", () => {
  const config = opConfig("isthmus");
  const parent = genesisHeader(config, "isthmus");
  const full = preHeader(config, parent, attributes("isthmus", 2n));
  const rules = forkRules(config, full.timestamp);
  ejsBlockFor(rules, full); // the template of the full field set
  const bare: Header = {
    ...full,
    withdrawalsRoot: undefined,
    parentBeaconBlockRoot: undefined,
    requestsHash: undefined,
  };
  const fast = ejsBlockFor(rules, bare);
  const slow = constructed(config, bare);
  assertEquals(fast.header.serialize(), slow.header.serialize());
  assertEquals(fast.header.withdrawalsRoot, slow.header.withdrawalsRoot);
  assertEquals(fast.header.parentBeaconBlockRoot, slow.header.parentBeaconBlockRoot);
});

Deno.test("ejsBlockFor: a blob base fee override answers BLOBBASEFEE", () => {
  const config = opConfig("isthmus");
  const h = preHeader(config, genesisHeader(config, "isthmus"), attributes("isthmus", 2n));
  const block = ejsBlockFor(forkRules(config, h.timestamp), h, 12_345n);
  assertEquals(block.header.getBlobGasPrice(), 12_345n);
});
