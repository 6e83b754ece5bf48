/**
 * The version string of keel: `keel/v<deno.json version>-<12 hex commit>[-dirty]` (spec 9, issue 2
 * part 1). The commit comes from `build_info.json` (written by the compile script) or, when run
 * from a checkout, from `.git` next to the sources, read as files: no subprocess.
 */
import denoJson from "../../deno.json" with { type: "json" };
import buildInfo from "./build_info.json" with { type: "json" };

const HEX_40 = /^[0-9a-f]{40}$/;

function readText(url: URL): string | undefined {
  try {
    return Deno.readTextFileSync(url);
  } catch {
    return undefined;
  }
}

/** Resolves a ref (e.g. `refs/heads/main`) through the loose ref file, then `packed-refs`. */
function resolveRef(gitDir: URL, ref: string): string | undefined {
  const loose = readText(new URL(ref, gitDir))?.trim();
  if (loose !== undefined && HEX_40.test(loose)) return loose;
  const packed = readText(new URL("packed-refs", gitDir));
  for (const line of packed?.split("\n") ?? []) {
    const [sha, name] = line.trim().split(" ");
    if (name === ref && HEX_40.test(sha)) return sha;
  }
  return undefined;
}

/**
 * The commit of the checkout whose `.git` is at `gitDir` (a directory URL ending in `/`), or
 * undefined when there is none or it cannot be read. A `.git` file (worktree) is followed.
 */
export function gitCommit(gitDir: URL): string | undefined {
  let dir = gitDir;
  const asFile = readText(new URL(dir.href.replace(/\/$/, "")));
  if (asFile !== undefined && asFile.startsWith("gitdir:")) {
    dir = new URL(asFile.slice("gitdir:".length).trim().replace(/\/?$/, "/"), dir);
  }
  const head = readText(new URL("HEAD", dir))?.trim();
  if (head === undefined) return undefined;
  if (HEX_40.test(head)) return head;
  if (!head.startsWith("ref:")) return undefined;
  const ref = head.slice(4).trim();
  const sha = resolveRef(dir, ref);
  if (sha !== undefined) return sha;
  // A worktree keeps its refs in the common dir.
  const common = readText(new URL("commondir", dir))?.trim();
  return common === undefined ? undefined : resolveRef(new URL(common.replace(/\/?$/, "/"), dir), ref);
}

/** Formats the version string from its parts. */
export function formatVersion(version: string, commit: string | undefined): string {
  const c = commit === undefined || commit === "" ? "" : `-${commit.slice(0, 12)}`;
  return `keel/v${version}${c}`;
}

/** `keel/v0.1.0-<12 hex commit>`: what `keel --version` prints and `rollupnode_version` returns. */
export function keelVersion(): string {
  const built = (buildInfo as { commit?: string }).commit;
  const commit = built !== undefined && built !== ""
    ? built
    : gitCommit(new URL("../../.git/", import.meta.url));
  return formatVersion(denoJson.version, commit);
}
