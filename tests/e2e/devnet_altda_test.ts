/**
 * `keel devnet --altda` as a real process: the OP L1 contracts with the DataAvailabilityChallenge, a DA
 * server, the batcher posting keccak256 commitments and both L2 nodes resolving them; the verifier's safe
 * head follows the sequencer, and its finalized head waits for the DA windows. Restarted without
 * `--altda`, the devnet stays an Alt-DA chain (its rollup.json).
 */
import { decodeFunctionResult, encodeFunctionData, parseAbi } from "viem";
import { assert, assertEquals } from "../assert.ts";
import { freePort, type KeelProcess, type RpcAnswer, rpcCall, spawnKeel, until } from "./helpers/mod.ts";

const DAC = parseAbi(["function challengeWindow() view returns (uint256)"]);

/** The arguments of a devnet in `dir` on free ports, 1-second blocks. */
function devnetArgs(dir: string) {
  const [l1Port, l2Port, verifierPort, p2pPort, daPort] = [
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ];
  const args = [
    `--datadir=${dir}/devnet`,
    `--l1.port=${l1Port}`,
    `--l2.port=${l2Port}`,
    `--verifier.port=${verifierPort}`,
    `--p2p.port=${p2pPort}`,
    `--da.port=${daPort}`,
    "--l1.block-time=1",
    "--l2.block-time=1",
  ];
  return { args, l1Port, verifierPort, daPort };
}

Deno.test({
  name: "keel devnet --altda: batches go through the DA server and the verifier derives the chain",
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "keel-devnet-altda-" });
    const { args, l1Port, verifierPort, daPort } = devnetArgs(dir);
    let devnet: KeelProcess | undefined = spawnKeel("devnet", [...args, "--altda"]);
    const out = () => devnet?.output() ?? "";
    const call = async (port: number, method: string, params: unknown[] = []) =>
      ((await rpcCall(`http://127.0.0.1:${port}`, method, params)) as RpcAnswer).result;
    const safe = async () => (await call(verifierPort, "rollupnode_syncStatus"))?.safe_l2?.number ?? 0;
    try {
      await until(
        async () => (await safe()) >= 3 ? true : undefined,
        "the verifier's safe head",
        out,
        120_000,
      );
      // The chain's rollup config names the challenge contract, deployed on L1 with 16-block windows.
      const rollup = await call(verifierPort, "rollupnode_rollupConfig");
      assertEquals(rollup.alt_da.da_commitment_type, "KeccakCommitment");
      assertEquals([rollup.alt_da.da_challenge_window, rollup.alt_da.da_resolve_window], [16, 16]);
      const window = await call(l1Port, "eth_call", [{
        to: rollup.alt_da.da_challenge_contract_address,
        data: encodeFunctionData({ abi: DAC, functionName: "challengeWindow" }),
      }, "latest"]);
      assertEquals(decodeFunctionResult({ abi: DAC, functionName: "challengeWindow", data: window }), 16n);
      // The batcher's transactions carry commitments; the inputs are files of the DA server.
      const inbox = String(rollup.batch_inbox_address).toLowerCase();
      const inputs: string[] = [];
      for (let n = 1, head = Number(await call(l1Port, "eth_blockNumber")); n <= head; n++) {
        const b = await call(l1Port, "eth_getBlockByNumber", [`0x${n.toString(16)}`, true]);
        for (const t of b.transactions) if (t.to?.toLowerCase() === inbox) inputs.push(t.input);
      }
      assert(inputs.length >= 1 && inputs.every((i) => i.startsWith("0x0100")), inputs.join(" "));
      const files = [...Deno.readDirSync(`${dir}/devnet/da`)].map((e) => e.name);
      assert(inputs.every((i) => files.includes(i.slice(4))), `${files.join(" ")} vs ${inputs.join(" ")}`);
      assertEquals(await devnet.stop(), 0, out());

      // Restarted without --altda: still the Alt-DA chain of its data dir; derivation goes on.
      devnet = spawnKeel("devnet", args);
      await until(async () => (await safe()) >= 3 ? true : undefined, "the safe head again", out, 120_000);
      assert(devnet.output().includes(`da=http://127.0.0.1:${daPort}`), out());
      assertEquals(await devnet.stop(), 0, out());
      devnet = undefined;
    } finally {
      if (devnet !== undefined) await devnet.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "keel devnet --altda on a devnet made without Alt-DA stops with the reason",
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "keel-devnet-altda-" });
    const { args, verifierPort } = devnetArgs(dir);
    try {
      const plain = spawnKeel("devnet", args);
      await until(
        async () => (await rpcCall(`http://127.0.0.1:${verifierPort}`, "eth_chainId") as RpcAnswer).result,
        "the plain devnet",
        plain.output,
        120_000,
      );
      assertEquals(await plain.stop(), 0, plain.output());
      const refused = spawnKeel("devnet", [...args, "--altda"]);
      assert((await refused.exited) !== 0, refused.output());
      assert(refused.output().includes("it was made without Alt-DA"), refused.output());
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
