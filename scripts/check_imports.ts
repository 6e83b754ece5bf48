/**
 * Keeps the layer direction of DESIGN.md honest:
 *   common <- {protocol, db, rpc} <- {execution/*, rollup/*, batcher} <- config <- node, devnet <- main.ts/mod.ts
 * and `execution` and `rollup` never import each other. Siblings inside a layer folder
 * (e.g. execution/chain -> execution/evm) go through the sibling's mod.ts.
 *
 * Usage: deno run --allow-read scripts/check_imports.ts [root]
 */
const RANK: Record<string, number> = {
  common: 0,
  protocol: 1,
  db: 1,
  rpc: 1,
  execution: 2,
  rollup: 2,
  batcher: 2,
  config: 3,
  node: 4,
  devnet: 4,
};

const IMPORT_RE = /(?:import|export)[^"']*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* walk(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

function normalize(path: string): string {
  const parts: string[] = [];
  for (const seg of path.split("/")) {
    if (seg === "..") parts.pop();
    else if (seg !== "." && seg !== "") parts.push(seg);
  }
  return parts.join("/");
}

/** Returns the violations for one import edge, both paths relative to the root, under lib/. */
export function checkEdge(from: string, to: string): string | null {
  const f = from.split("/");
  const t = to.split("/");
  if (f[0] !== "lib" || t[0] !== "lib") return null;
  const fLayer = f[1];
  const tLayer = t[1];
  if (!(fLayer in RANK) || !(tLayer in RANK)) return null;
  if (fLayer === tLayer) {
    // Inside execution/ or rollup/: a sibling sub-folder only through its mod.ts.
    if ((fLayer === "execution" || fLayer === "rollup") && f.length > 3 && t.length > 3 && f[2] !== t[2]) {
      if (t.length !== 4 || t[3] !== "mod.ts") {
        return `${from} imports ${to}: use lib/${tLayer}/${t[2]}/mod.ts`;
      }
    }
    return null;
  }
  if ((fLayer === "execution" && tLayer === "rollup") || (fLayer === "rollup" && tLayer === "execution")) {
    return `${from} imports ${to}: execution and rollup meet only through protocol/`;
  }
  if (RANK[tLayer] >= RANK[fLayer]) return `${from} imports ${to}: ${fLayer} may not import ${tLayer}`;
  return null;
}

if (import.meta.main) {
  const root = Deno.args[0] ?? ".";
  const problems: string[] = [];
  for await (const file of walk(`${root}/lib`)) {
    const rel = file.slice(root.length + 1);
    const text = await Deno.readTextFile(file);
    for (const m of text.matchAll(IMPORT_RE)) {
      const spec = m[1] ?? m[2];
      if (!spec.startsWith(".")) continue;
      const dir = rel.split("/").slice(0, -1).join("/");
      const problem = checkEdge(rel, normalize(`${dir}/${spec}`));
      if (problem) problems.push(problem);
    }
  }
  if (problems.length > 0) {
    console.error(problems.join("\n"));
    Deno.exit(1);
  }
  console.log("imports ok");
}
