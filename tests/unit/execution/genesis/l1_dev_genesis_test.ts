import { assert, assertEquals } from "../../../assert.ts";
import { bytesToHex } from "../../../../lib/common/bytes.ts";
import { EMPTY_REQUESTS_HASH } from "../../../../lib/protocol/block.ts";
import { DevMiner, ExecutionEngine } from "../../../../lib/execution/engine/mod.ts";
import {
  buildL1DevGenesis,
  deriveDevAccounts,
  L1_SYSTEM_CONTRACTS,
  parseGenesis,
} from "../../../../lib/execution/genesis/mod.ts";

Deno.test("L1 dev genesis: Prague at 0, no OP config, dev accounts funded, system contracts placed", () => {
  const json = buildL1DevGenesis({ chainId: 1337n, timestamp: 5n });
  const g = parseGenesis(json);
  assertEquals(g.config.chainId, 1337n);
  assertEquals(g.config.op, undefined);
  assertEquals(g.config.l1, { shanghaiTime: 0n, cancunTime: 0n, pragueTime: 0n });
  assertEquals(g.timestamp, 5n);
  const first = deriveDevAccounts(1)[0].address;
  assertEquals(g.alloc.get(bytesToHex(first).toLowerCase())?.balance, 10_000n * 10n ** 18n);
  for (const c of L1_SYSTEM_CONTRACTS) {
    assert((g.alloc.get(bytesToHex(c.address).toLowerCase())?.code.length ?? 0) > 0, `EIP-${c.eip}`);
  }
});

Deno.test("L1 dev genesis: an engine opened on it builds Prague blocks (requests system calls succeed)", async () => {
  const engine = await ExecutionEngine.open({ genesis: buildL1DevGenesis() });
  try {
    const miner = new DevMiner({}, { engine, now: () => 0 });
    const head = engine.head();
    const built = await engine.buildBlock(head.hash, await miner.attributes(head.header));
    assertEquals(built.block.header.number, 1n);
    assertEquals(built.block.header.requestsHash, EMPTY_REQUESTS_HASH);
  } finally {
    await engine.close();
  }
});
