import { assert, assertEquals } from "../../assert.ts";

const UNIT_URL = new URL("../../../scripts/keel.service", import.meta.url);
const UNIT = await Deno.readTextFile(UNIT_URL);

/** The unit's directives: section → key → values (a key may repeat). */
function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | undefined;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const section = /^\[(\w+)\]$/.exec(line);
    if (section) {
      current = new Map();
      sections.set(section[1], current);
      continue;
    }
    const eq = line.indexOf("=");
    if (!current || eq < 0) throw new Error(`Cannot parse unit line: ${raw}`);
    const key = line.slice(0, eq).trim();
    current.set(key, [...(current.get(key) ?? []), line.slice(eq + 1).trim()]);
  }
  return sections;
}

const SYSTEMD_ANALYZE = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].find((p) => {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
});

Deno.test("keel.service: dedicated user, state directory, env file, restart policy and hardening", () => {
  const unit = parseUnit(UNIT);
  assertEquals([...unit.keys()], ["Unit", "Service", "Install"]);
  const service = unit.get("Service")!;
  const one = (key: string) => service.get(key)?.at(-1);
  assertEquals(one("User"), "keel");
  assertEquals(one("StateDirectory"), "keel");
  assertEquals(one("EnvironmentFile"), "/etc/keel/keel.env");
  assertEquals(one("ExecStart"), "/usr/local/bin/keel node --datadir=/var/lib/keel");
  assertEquals(one("Restart"), "on-failure");
  for (
    const key of [
      "NoNewPrivileges",
      "ProtectHome",
      "PrivateTmp",
      "PrivateDevices",
      "ProtectKernelTunables",
      "ProtectKernelModules",
      "ProtectControlGroups",
      "RestrictSUIDSGID",
      "LockPersonality",
      "RestrictNamespaces",
    ]
  ) {
    assertEquals(one(key), "true", key);
  }
  assertEquals(one("ProtectSystem"), "strict");
  assertEquals(one("CapabilityBoundingSet"), "");
  // V8 needs writable+executable memory for its JIT.
  assertEquals(one("MemoryDenyWriteExecute"), undefined);
  assertEquals(unit.get("Install")!.get("WantedBy"), ["multi-user.target"]);
  assert(UNIT.includes("useradd --system"), "the unit documents how to create the user");
});

Deno.test({
  name: "keel.service passes systemd-analyze verify",
  ignore: SYSTEMD_ANALYZE === undefined,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "keel-unit-" });
    try {
      // The binary is not installed here: verify the unit with an executable that exists.
      const path = `${dir}/keel.service`;
      await Deno.writeTextFile(path, UNIT.replace("ExecStart=/usr/local/bin/keel", "ExecStart=/bin/true"));
      const out = await new Deno.Command(SYSTEMD_ANALYZE!, {
        args: ["verify", path],
        stdout: "piped",
        stderr: "piped",
      })
        .output();
      const stderr = new TextDecoder().decode(out.stderr);
      assertEquals(out.code, 0, stderr);
      assertEquals(stderr.trim(), "");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
