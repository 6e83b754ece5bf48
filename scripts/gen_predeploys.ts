/**
 * Compiles keel's own predeploy contracts (lib/execution/genesis/contracts/*.sol: the Jovian-level
 * L1Block and GasPriceOracle) with npm `solc` and writes what the genesis builder embeds into
 * lib/execution/genesis/keel_predeploys.json: per contract the ABI, creation and runtime bytecode,
 * immutable references and storage layout (the subset of a forge artifact that genesis/artifacts.ts
 * `Artifact` reads), plus the compiler version and settings. Nothing is compiled at run time.
 *
 * The output is deterministic (fixed settings, no metadata hash in the bytecode, sorted keys, two-space
 * indent, trailing newline): re-running it on the same sources changes nothing, and a test compiles
 * again and compares with the committed file.
 *
 * Usage: deno run --allow-read=lib/execution/genesis --allow-write=lib/execution/genesis
 *          scripts/gen_predeploys.ts [--check]
 */
import solc from "solc";

export const CONTRACTS_DIR = new URL("../lib/execution/genesis/contracts/", import.meta.url);
export const OUTPUT_FILE = new URL("../lib/execution/genesis/keel_predeploys.json", import.meta.url);
/** The contracts (file name = contract name) that go into the output. */
export const CONTRACT_NAMES = ["GasPriceOracle", "L1Block"] as const;

/**
 * Compiler settings. EVM version Paris: no PUSH0 or MCOPY, so the code runs on every OP fork from
 * Bedrock on (Shanghai's PUSH0 arrives with Canyon); the optimizer as contracts-bedrock builds them;
 * no CBOR metadata, so comments in the sources do not change the bytecode.
 */
export const SOLC_SETTINGS = {
  evmVersion: "paris",
  optimizer: { enabled: true, runs: 999_999 },
  metadata: { bytecodeHash: "none", appendCBOR: false },
  outputSelection: {
    "*": {
      "*": [
        "abi",
        "evm.bytecode.object",
        "evm.deployedBytecode.object",
        "evm.deployedBytecode.immutableReferences",
        "storageLayout",
      ],
    },
  },
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface SolcError {
  severity: string;
  formattedMessage: string;
}

/** Reads every .sol file of `dir` into solc's standard-JSON `sources` (keys are file names). */
export async function readSources(dir: URL = CONTRACTS_DIR): Promise<Record<string, { content: string }>> {
  const names: string[] = [];
  for await (const e of Deno.readDir(dir)) if (e.isFile && e.name.endsWith(".sol")) names.push(e.name);
  names.sort();
  const out: Record<string, { content: string }> = {};
  for (const name of names) out[name] = { content: await Deno.readTextFile(new URL(name, dir)) };
  return out;
}

function sortKeys(v: Json): Json {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === "object") {
    const out: { [key: string]: Json } = {};
    for (const k of Object.keys(v).sort()) out[k] = sortKeys(v[k]);
    return out;
  }
  return v;
}

/** Compiles `sources` and returns the output file's text. Throws on any compiler error. */
export function compilePredeploys(sources: Record<string, { content: string }>): string {
  const input = { language: "Solidity", sources, settings: SOLC_SETTINGS };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = ((output.errors ?? []) as SolcError[]).filter((e) => e.severity === "error");
  if (errors.length > 0) {
    throw new Error(`Cannot compile predeploys:\n${errors.map((e) => e.formattedMessage).join("\n")}`);
  }
  const contracts: Record<string, Json> = {};
  for (const name of CONTRACT_NAMES) {
    const c = output.contracts?.[`${name}.sol`]?.[name];
    if (c === undefined) throw new Error(`Cannot find contract ${name} in ${name}.sol`);
    contracts[name] = {
      abi: c.abi,
      bytecode: { object: "0x" + c.evm.bytecode.object },
      deployedBytecode: {
        object: "0x" + c.evm.deployedBytecode.object,
        immutableReferences: c.evm.deployedBytecode.immutableReferences ?? {},
      },
      storageLayout: {
        storage: (c.storageLayout.storage as { label: string; slot: string; offset: number; type: string }[])
          .map(({ label, slot, offset, type }) => ({ label, slot, offset, type })),
        types: c.storageLayout.types ?? {},
      },
    };
  }
  const doc = sortKeys({ compiler: solc.version(), settings: SOLC_SETTINGS, contracts } as Json);
  return JSON.stringify(doc, null, 2) + "\n";
}

if (import.meta.main) {
  const text = compilePredeploys(await readSources());
  if (Deno.args.includes("--check")) {
    const current = await Deno.readTextFile(OUTPUT_FILE);
    if (current !== text) {
      console.error("keel_predeploys.json is out of date: run scripts/gen_predeploys.ts");
      Deno.exit(1);
    }
    console.log("keel_predeploys.json is up to date");
  } else {
    await Deno.writeTextFile(OUTPUT_FILE, text);
    console.log(`wrote ${OUTPUT_FILE.pathname}`);
  }
}
