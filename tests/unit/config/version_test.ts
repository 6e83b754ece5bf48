import { assertEquals, assertMatch } from "../../assert.ts";
import { formatVersion, gitCommit, keelVersion } from "../../../lib/config/mod.ts";
import denoJson from "../../../deno.json" with { type: "json" };
import buildInfo from "../../../lib/config/build_info.json" with { type: "json" };

const SHA = "0123456789abcdef0123456789abcdef01234567";
const SHA2 = "fedcba9876543210fedcba9876543210fedcba98";

function tempGit(): { root: string; git: URL } {
  const root = Deno.makeTempDirSync({ prefix: "keel_version_" });
  Deno.mkdirSync(`${root}/.git/refs/heads`, { recursive: true });
  return { root, git: new URL(`file://${root}/.git/`) };
}

Deno.test("formatVersion", () => {
  assertEquals(formatVersion("0.1.0", SHA), "keel/v0.1.0-0123456789ab");
  assertEquals(formatVersion("0.1.0", ""), "keel/v0.1.0");
  assertEquals(formatVersion("0.1.0", undefined), "keel/v0.1.0");
});

Deno.test("gitCommit: a branch through its loose ref", () => {
  const { root, git } = tempGit();
  try {
    Deno.writeTextFileSync(`${root}/.git/HEAD`, "ref: refs/heads/main\n");
    Deno.writeTextFileSync(`${root}/.git/refs/heads/main`, `${SHA}\n`);
    assertEquals(gitCommit(git), SHA);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("gitCommit: a branch through packed-refs, and a detached HEAD", () => {
  const { root, git } = tempGit();
  try {
    Deno.writeTextFileSync(`${root}/.git/HEAD`, "ref: refs/heads/dev\n");
    Deno.writeTextFileSync(
      `${root}/.git/packed-refs`,
      `# pack-refs with: peeled fully-peeled sorted\n${SHA} refs/heads/main\n${SHA2} refs/heads/dev\n`,
    );
    assertEquals(gitCommit(git), SHA2);
    Deno.writeTextFileSync(`${root}/.git/HEAD`, `${SHA}\n`);
    assertEquals(gitCommit(git), SHA);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("gitCommit: absent or unreadable checkout gives undefined", () => {
  const { root, git } = tempGit();
  try {
    assertEquals(gitCommit(git), undefined);
    Deno.writeTextFileSync(`${root}/.git/HEAD`, "ref: refs/heads/none\n");
    assertEquals(gitCommit(git), undefined);
    assertEquals(gitCommit(new URL(`file://${root}/nope/.git/`)), undefined);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("gitCommit: a worktree's .git file is followed", () => {
  const { root } = tempGit();
  try {
    Deno.mkdirSync(`${root}/wt`);
    Deno.mkdirSync(`${root}/.git/worktrees/wt`, { recursive: true });
    Deno.writeTextFileSync(`${root}/wt/.git`, `gitdir: ${root}/.git/worktrees/wt\n`);
    Deno.writeTextFileSync(`${root}/.git/worktrees/wt/HEAD`, "ref: refs/heads/main\n");
    Deno.writeTextFileSync(`${root}/.git/worktrees/wt/commondir`, "../..\n");
    Deno.writeTextFileSync(`${root}/.git/refs/heads/main`, `${SHA2}\n`);
    assertEquals(gitCommit(new URL(`file://${root}/wt/.git/`)), SHA2);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("keelVersion: deno.json's version and, in this checkout, the HEAD commit", () => {
  const version = keelVersion();
  assertMatch(version, /^keel\/v\d+\.\d+\.\d+(-[0-9a-f]{12})?$/);
  assertEquals(version.split("-")[0], `keel/v${denoJson.version}`);
  // The compile script's build_info.json wins; otherwise the checkout's HEAD.
  const head = buildInfo.commit !== ""
    ? buildInfo.commit
    : gitCommit(new URL("../../../.git/", import.meta.url));
  if (head !== undefined) assertEquals(version, `keel/v${denoJson.version}-${head.slice(0, 12)}`);
});
