/**
 * anvil's state files on `keel execution --dev`, with the real anvil (npm @foundry-rs/anvil) on the other
 * side: keel writes its state on exit (`--dump-state`), anvil starts from that file and writes its own,
 * keel starts from anvil's (`--state`: loaded, and written back on exit); a bad file stops the start.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { anvilForTest, rpcResult, startAnvil, startKeelExecution } from "./helpers/mod.ts";

const A = "0x00000000000000000000000000000000000a0001";
const B = "0x00000000000000000000000000000000000b0002";
const word = (n: number) => "0x" + n.toString(16).padStart(64, "0");

/** Gives `address` a balance, a nonce, code and slot 5, all from `n`. */
async function set(url: string, address: string, n: number): Promise<void> {
  await rpcResult(url, "anvil_setBalance", [address, `0x${(1000 + n).toString(16)}`]);
  await rpcResult(url, "anvil_setNonce", [address, `0x${(10 + n).toString(16)}`]);
  await rpcResult(url, "anvil_setCode", [address, "0x600160005260206000f3"]);
  await rpcResult(url, "anvil_setStorageAt", [address, "0x5", word(n)]);
}

async function check(url: string, address: string, n: number): Promise<void> {
  assertEquals(BigInt(await rpcResult(url, "eth_getBalance", [address, "latest"])), BigInt(1000 + n));
  assertEquals(Number(await rpcResult(url, "eth_getTransactionCount", [address, "latest"])), 10 + n);
  assertEquals(await rpcResult(url, "eth_getCode", [address, "latest"]), "0x600160005260206000f3");
  assertEquals(await rpcResult(url, "eth_getStorageAt", [address, "0x5", "latest"]), word(n));
}

Deno.test({
  name: "keel execution --dev: --dump-state, --load-state and --state read and write anvil's state files",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const tool = await anvilForTest("dev_state_files_test");
    if (!tool.ok) return;
    const dir = await Deno.makeTempDir({ prefix: "keel-state-files-" });
    try {
      const keelFile = `${dir}/keel.json`;
      const anvilFile = `${dir}/anvil.json`;
      let node = await startKeelExecution({ ws: false, args: [`--dump-state=${keelFile}`] });
      await set(node.httpUrl, A, 1);
      await node.stop();
      const dumped = JSON.parse(await Deno.readTextFile(keelFile));
      assertEquals(dumped.accounts[A].storage[word(5)], word(1));

      const anvil = await startAnvil(tool.binary, ["--load-state", keelFile, "--dump-state", anvilFile]);
      try {
        await check(anvil.url, A, 1);
        await set(anvil.url, B, 2);
      } finally {
        await anvil.stop();
      }

      node = await startKeelExecution({ ws: false, args: [`--state=${anvilFile}`] });
      try {
        await check(node.httpUrl, A, 1);
        await check(node.httpUrl, B, 2);
        await set(node.httpUrl, B, 3);
      } finally {
        await node.stop();
      }
      // Written back by keel on exit: keel's dump (no blocks) with the last change.
      const back = JSON.parse(await Deno.readTextFile(anvilFile));
      assertEquals(back.blocks, []);
      assertEquals(back.accounts[B].storage[word(5)], word(3));
      assertEquals((await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort(), [
        "anvil.json",
        "keel.json",
      ]);

      await Deno.writeTextFile(`${dir}/bad.json`, JSON.stringify({ accounts: { [A]: { balance: "lots" } } }));
      const bad = await startKeelExecution({ ws: false, args: [`--load-state=${dir}/bad.json`] }).then(
        async (n) => {
          await n.stop();
          return undefined;
        },
        (e: Error) => e,
      );
      assert(bad !== undefined, "a bad state file must stop the start");
      assertStringIncludes(bad.message, `Cannot load state from ${dir}/bad.json`);
      assertStringIncludes(bad.message, '"lots" is not an unsigned integer');
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
