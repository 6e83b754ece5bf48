/**
 * `keel execution --dev --dev.code-size-limit N` and `--dev.disable-code-size-limit` (anvil's
 * `--code-size-limit` and `--disable-code-size-limit`): the EIP-170 limit on deployed code becomes N
 * (or none) and the EIP-3860 limit on initcode twice it (or none), on a real process; the same
 * deployments on anvil with the same option end the same way (when anvil can be installed).
 */
import { assertEquals } from "../assert.ts";
import { anvilForTest, startAnvil } from "./helpers/anvil.ts";
import { rpcCall, rpcResult, startKeelExecution } from "./helpers/mod.ts";

/** Initcode that deploys `size` zero bytes (PUSH3 size, PUSH1 0, RETURN), padded with zeros to `length`. */
function initcode(size: number, length = 7): string {
  const code = new Uint8Array(Math.max(length, 7));
  code.set([0x62, (size >> 16) & 0xff, (size >> 8) & 0xff, size & 0xff, 0x60, 0x00, 0xf3]);
  return `0x${code.toHex()}`;
}

/** How a deployment ended: "refused" by the node, or the receipt's status with the code length kept. */
async function deploy(url: string, size: number, length?: number): Promise<string> {
  const [from] = await rpcResult(url, "eth_accounts", []) as string[];
  const sent = await rpcCall(url, "eth_sendTransaction", [{
    from,
    data: initcode(size, length),
    gas: "0x989680",
  }]) as { result?: string; error?: { message: string } };
  if (sent.error !== undefined) return `refused: ${sent.error.message.includes("initcode size")}`;
  for (let i = 0; i < 400; i++) {
    const receipt = await rpcResult(url, "eth_getTransactionReceipt", [sent.result]) as
      | { status: string; contractAddress: string | null }
      | null;
    if (receipt !== null) {
      // geth and anvil name the address also when the creation failed.
      if (receipt.contractAddress === null) return `status ${receipt.status}, no contractAddress`;
      const code = await rpcResult(url, "eth_getCode", [receipt.contractAddress, "latest"]) as string;
      return `status ${receipt.status}, code ${(code.length - 2) / 2}`;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("the deployment was not mined within 10 s");
}

/** Per option set: the deployments tried and how each must end. */
const CASES: { args: string[]; anvil: string[]; deploys: [number, number | undefined, string][] }[] = [
  {
    args: [],
    anvil: [],
    deploys: [
      [24_576, undefined, "status 0x1, code 24576"],
      [24_577, undefined, "status 0x0, code 0"],
      [10, 49_152, "status 0x1, code 10"],
      [10, 49_153, "refused: true"],
    ],
  },
  {
    args: ["--dev.code-size-limit=30000"],
    anvil: ["--code-size-limit", "30000"],
    deploys: [
      [30_000, undefined, "status 0x1, code 30000"],
      [30_001, undefined, "status 0x0, code 0"],
      [10, 60_000, "status 0x1, code 10"],
      [10, 60_001, "refused: true"],
    ],
  },
  {
    args: ["--dev.disable-code-size-limit"],
    anvil: ["--disable-code-size-limit"],
    deploys: [
      [40_000, undefined, "status 0x1, code 40000"],
      [10, 100_000, "status 0x1, code 10"],
    ],
  },
];

Deno.test({
  name:
    "keel execution --dev: --dev.code-size-limit and --dev.disable-code-size-limit move the code and initcode limits as anvil's options do",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const tool = await anvilForTest("dev_code_size_test");
    for (const c of CASES) {
      const node = await startKeelExecution({ ws: false, inMemory: true, args: c.args });
      const got: string[] = [];
      try {
        for (const [size, length] of c.deploys) got.push(await deploy(node.httpUrl, size, length));
      } finally {
        await node.stop();
      }
      assertEquals(got, c.deploys.map((d) => d[2]), c.args.join(" ") || "default limits");
      if (!tool.ok) continue;
      const anvil = await startAnvil(tool.binary, c.anvil);
      const theirs: string[] = [];
      try {
        for (const [size, length] of c.deploys) theirs.push(await deploy(anvil.url, size, length));
      } finally {
        await anvil.stop();
      }
      assertEquals(got, theirs, `keel ${c.args.join(" ")} against anvil ${c.anvil.join(" ")}`);
    }
  },
});
