/** writeGenesisFile: the saved dev genesis is exactly JSON.stringify(genesis, null, 2), written in pieces. */
import { buildDevGenesis, type GenesisJson } from "../../../lib/execution/mod.ts";
import { writeGenesisFile } from "../../../lib/node/execution_role.ts";
import { assertEquals } from "../../assert.ts";

async function roundTrip(genesis: GenesisJson): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/genesis.json`;
    await Deno.writeTextFile(path, "x".repeat(200_000)); // a longer old file is truncated
    await writeGenesisFile(path, genesis);
    assertEquals(await Deno.readTextFile(path), JSON.stringify(genesis, null, 2) + "\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("writeGenesisFile: the dev genesis, byte for byte as JSON.stringify(genesis, null, 2)", async () => {
  await roundTrip(buildDevGenesis({ chainId: 901n, timestamp: 1_700_000_000n }) as GenesisJson);
});

Deno.test("writeGenesisFile: an empty alloc; a config key named alloc", async () => {
  await roundTrip({ config: { chainId: 1 }, gasLimit: "0x1", difficulty: "0x0", alloc: {} });
  await roundTrip({
    config: { alloc: "a" },
    gasLimit: "0x1",
    difficulty: "0x0",
    alloc: { "0x01": { balance: "0x1", storage: { "0x00": "0x01" } }, "0x02": { balance: "0x0" } },
  });
});
