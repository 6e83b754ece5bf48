import { BaseError } from "../../../lib/common/errors.ts";
import {
  formatPermissionError,
  KEEL_RUNTIME_FLAGS,
  KEEL_V8_FLAGS,
  nodeWorkerPermissions,
  permissionSetFromConfig,
  permissionSetToFlags,
  resolveGrantPath,
  resolveNodeFileGrants,
} from "../../../lib/node/permissions.ts";
import { assert, assertEquals, assertRejects, assertThrows } from "../../assert.ts";

Deno.test("permissionSetToFlags: booleans, lists and the {allow, deny, ignore} form", () => {
  assertEquals(
    permissionSetToFlags({
      read: ["/a", "/b"],
      write: true,
      net: { allow: true, deny: ["10.0.0.1"] },
      env: { allow: ["KEEL_*"], ignore: true },
      sys: ["networkInterfaces"],
      run: false,
      ffi: [],
    }),
    [
      "--allow-read=/a,/b",
      "--allow-write",
      "--allow-net",
      "--deny-net=10.0.0.1",
      "--allow-env=KEEL_*",
      "--ignore-env",
      "--allow-sys=networkInterfaces",
      "--deny-run",
      "--deny-ffi",
    ],
  );
  assertEquals(permissionSetToFlags({}), []);
  assertEquals(permissionSetFromConfig({ permissions: { keel: { net: true } } }), { net: true });
  assertThrows(() => permissionSetFromConfig({}), BaseError, 'Cannot find permission set "keel"');
});

Deno.test("formatPermissionError: one clear line per kind, undefined for other errors", () => {
  const write = new Deno.errors.NotCapable(
    'Requires write access to "/etc/keel-denied", run again with the --allow-write flag',
  );
  assertEquals(
    formatPermissionError(write, ["/var/lib/keel"]),
    "keel: cannot write /etc/keel-denied: outside the allowed paths (/var/lib/keel)",
  );
  assertEquals(
    formatPermissionError(
      new Deno.errors.NotCapable('Requires env access to "HOME", run again with the --allow-env flag'),
    ),
    "keel: cannot read environment variable HOME: only KEEL_* variables are readable",
  );
  assertEquals(
    formatPermissionError(
      new Deno.errors.NotCapable('Requires run access to "sh", run again with the --allow-run flag'),
    ),
    "keel: cannot run sh: keel never starts subprocesses",
  );
  assertEquals(
    formatPermissionError(
      new Deno.errors.PermissionDenied("Permission denied (os error 13): open '/root/x'"),
    ),
    "keel: permission denied by the operating system: Permission denied (os error 13): open '/root/x'",
  );
  assertEquals(formatPermissionError(new Error("other")), undefined);
  assertEquals(formatPermissionError("text"), undefined);
});

Deno.test("grant paths are resolved through symlinks; missing files by their future name", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "keel-perm-paths-" }));
  try {
    await Deno.mkdir(`${dir}/real`);
    await Deno.symlink(`${dir}/real`, `${dir}/link`);
    assertEquals(await resolveGrantPath(`${dir}/link`), `${dir}/real`);
    assertEquals(await resolveGrantPath(`${dir}/link/sub/key.txt`), `${dir}/real/sub/key.txt`);
    assertEquals(await resolveGrantPath("link/x", dir), `${dir}/real/x`);
    // A file where a folder belongs (--dump-state=file/x.json): named, not "Not a directory (os error 20)".
    await Deno.writeTextFile(`${dir}/file`, "");
    const e = await assertRejects(() => resolveGrantPath(`${dir}/file/x.json`));
    assertEquals(
      (e as Error).message,
      `Cannot use ${dir}/file/x.json: a folder on its path is a file and not a directory`,
    );
    // A data dir that is a file.
    await assertRejects(
      () => resolveNodeFileGrants({ dataDir: `${dir}/file` }, dir),
      BaseError,
      `Cannot use ${dir}/file as the data directory`,
    );
    await Deno.remove(`${dir}/file`);

    const grants = await resolveNodeFileGrants({
      dataDir: "link/data",
      write: [`${dir}/link/p2p_priv.txt`, undefined],
      read: [`${dir}/rollup.json`],
    }, dir);
    assertEquals(grants.write, [`${dir}/real/data`, `${dir}/real/p2p_priv.txt`]);
    assertEquals(grants.read, [`${dir}/real/data`, `${dir}/real/p2p_priv.txt`, `${dir}/rollup.json`]);
    assertEquals((await Deno.stat(`${dir}/real/data`)).isDirectory, true);
    const perms = nodeWorkerPermissions(grants);
    assertEquals([perms.run, perms.ffi, perms.net, perms.write], [false, false, true, grants.write]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("runtime flags: the deno.json tasks that run keel pass the binary's V8 heap flags", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../../../deno.json", import.meta.url)));
  assert(KEEL_RUNTIME_FLAGS.includes(KEEL_V8_FLAGS));
  assert(
    (config.tasks.bench as string).split(/\s+/).includes(KEEL_V8_FLAGS),
    "the block benchmark runs as the binary",
  );
  for (const task of ["dev", "node", "execution"]) {
    const command: string = config.tasks[task];
    assert(command.includes("-P=keel"), `task ${task} runs under the keel permission set`);
    assert(command.split(/\s+/).includes(KEEL_V8_FLAGS), `task ${task} passes ${KEEL_V8_FLAGS}`);
  }
});
