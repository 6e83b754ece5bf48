/**
 * Installs a pinned npm package that ships a native binary in an optional per-platform package
 * (@foundry-rs/cast, @foundry-rs/anvil) into a cache folder, once, and finds the real binary.
 * A clean machine has only Node and npm, so the tests install what they need themselves.
 */

const ROOT = new URL("../../../", import.meta.url).pathname;

/** Where installs go: under the repo's node_modules/.cache (git-ignored), one folder per package@version. */
export const NPM_TOOL_CACHE = `${ROOT}node_modules/.cache/keel-e2e`;

/** The outcome of `installNpmTool`: the binary, or why it cannot be had. */
export type NpmToolResult =
  | { ok: true; binary: string; dir: string }
  | { ok: false; registryUnreachable: boolean; message: string };

function platformSuffix(): string {
  const os = Deno.build.os === "windows" ? "win32" : Deno.build.os;
  const arch = Deno.build.arch === "x86_64" ? "amd64" : "arm64";
  return `${os}-${arch}`;
}

/** The real binary of `@scope/tool` inside an install folder, or undefined. */
export function findToolBinary(dir: string, scope: string, tool: string): string | undefined {
  const exe = Deno.build.os === "windows" ? `${tool}.exe` : tool;
  const candidates = [`${dir}/node_modules/${scope}/${tool}-${platformSuffix()}/bin/${exe}`];
  try {
    for (const entry of Deno.readDirSync(`${dir}/node_modules/${scope}`)) {
      if (entry.isDirectory && entry.name.startsWith(`${tool}-`)) {
        candidates.push(`${dir}/node_modules/${scope}/${entry.name}/bin/${exe}`);
      }
    }
  } catch {
    // not installed yet
  }
  for (const path of candidates) {
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // try the next
    }
  }
  return undefined;
}

const NETWORK_ERRORS =
  /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|network|socket hang up/i;

const installs = new Map<string, Promise<NpmToolResult>>();

/**
 * `npm install --prefix <cache>/<pkg>@<version> <pkg>@<version>` unless the binary is already
 * there (idempotent; concurrent callers share one install). `pkg` is e.g. "@foundry-rs/cast".
 */
export function installNpmTool(pkg: string, version: string): Promise<NpmToolResult> {
  const key = `${pkg}@${version}`;
  let p = installs.get(key);
  if (p === undefined) {
    p = install(pkg, version);
    installs.set(key, p);
  }
  return p;
}

async function install(pkg: string, version: string): Promise<NpmToolResult> {
  const [scope, tool] = pkg.split("/");
  const dir = `${NPM_TOOL_CACHE}/${pkg.replace("/", "+")}@${version}`;
  const found = findToolBinary(dir, scope, tool);
  if (found !== undefined) return { ok: true, binary: found, dir };
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(`${dir}/package.json`, JSON.stringify({ name: "keel-e2e-tool", private: true }));
  const npm = Deno.build.os === "windows" ? "npm.cmd" : "npm";
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command(npm, {
      args: ["install", "--prefix", dir, "--no-audit", "--no-fund", "--no-save", `${pkg}@${version}`],
      stdout: "piped",
      stderr: "piped",
    }).output();
  } catch (err) {
    return { ok: false, registryUnreachable: false, message: `Cannot run npm: ${(err as Error).message}` };
  }
  const log = new TextDecoder().decode(out.stderr) + new TextDecoder().decode(out.stdout);
  if (!out.success) {
    return {
      ok: false,
      registryUnreachable: NETWORK_ERRORS.test(log),
      message: `npm install ${pkg}@${version} failed (exit ${out.code}): ${log.trim().slice(-800)}`,
    };
  }
  const binary = findToolBinary(dir, scope, tool);
  if (binary === undefined) {
    return {
      ok: false,
      registryUnreachable: false,
      message: `npm installed ${pkg}@${version} but no ${tool}-${platformSuffix()} binary is in ${dir}`,
    };
  }
  return { ok: true, binary, dir };
}
