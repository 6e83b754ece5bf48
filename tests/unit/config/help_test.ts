import { assert, assertEquals, assertStringIncludes, assertThrows } from "../../assert.ts";
import {
  ConfigError,
  envName,
  EXECUTION_OPTION_TABLE,
  executionHelp,
  formatDefault,
  GROUPS,
  helpText,
  mainHelp,
  NODE_COMMAND_TABLE,
  nodeHelp,
  parseArgs,
} from "../../../lib/config/mod.ts";

Deno.test("keel node --help shows every option with its env var, default and description", () => {
  const text = nodeHelp();
  for (const spec of Object.values(NODE_COMMAND_TABLE)) {
    assertStringIncludes(text, `--${spec.name} `.replace(/ $/, ""), spec.name);
    assertStringIncludes(text, `[$${envName(spec)}]`, spec.name);
    assertStringIncludes(text, spec.description, spec.name);
    const def = formatDefault(spec);
    if (def !== "" && !spec.secret) {
      assertStringIncludes(text, `${spec.description} (default: ${def})`, spec.name);
    }
  }
  assertStringIncludes(text, "--help, -h");
  assertStringIncludes(text, "--version, -v");
});

Deno.test("help is grouped in the spec's order of areas", () => {
  const text = nodeHelp();
  let last = -1;
  // Every area of `keel node`; the last three are `keel devnet`'s, `keel batcher`'s and `keel da-server`'s.
  for (const group of GROUPS.filter((g) => g !== "Devnet" && g !== "Batcher" && g !== "DA server")) {
    const at = text.indexOf(`\n${group}:\n`);
    assert(at > last, `group ${group} missing or out of order`);
    last = at;
  }
  // Within a group: the l1 section lists --l1.epoch-poll-interval with its Go-form default.
  assertStringIncludes(text, "(default: 6m24s)");
});

Deno.test("keel execution --help shows only the execution client's options", () => {
  const text = executionHelp();
  for (const spec of Object.values(EXECUTION_OPTION_TABLE)) assertStringIncludes(text, `[$${envName(spec)}]`);
  assert(!text.includes("--l1.beacon"));
  assertStringIncludes(text, "keel execution init --datadir DIR genesis.json");
});

Deno.test("main help lists the commands", () => {
  for (const cmd of ["keel node", "keel execution", "keel networks", "keel da-server", "keel --version"]) {
    assertStringIncludes(mainHelp(), cmd);
  }
  assertStringIncludes(helpText("networks"), "keel networks");
});

Deno.test("keel da-server: op-alt-da's da-server flags; --file.path is required", () => {
  const text = helpText("da-server");
  for (
    const flag of ["--addr", "--port", "--file.path", "--generic-commitment", "[$KEEL_DA_SERVER_FILE_PATH]"]
  ) {
    assertStringIncludes(text, flag);
  }
  assertEquals(parseArgs(["da-server", "--help"], {}), { command: "help", topic: "da-server" });
  assertEquals(parseArgs(["help", "da-server"], {}), { command: "help", topic: "da-server" });
  const d = parseArgs(["da-server", "--file.path=/tmp/da"], { KEEL_DA_SERVER_PORT: "3200" });
  assert(d.command === "da-server");
  assertEquals(
    [d.options.addr, d.options.port, d.options.filePath, d.options.genericCommitment],
    ["127.0.0.1", 3200, "/tmp/da", false],
  );
  const e = assertThrows(() => parseArgs(["da-server"], {}), ConfigError);
  assertEquals((e as ConfigError).code, "CONFIG_MISSING_REQUIRED");
  assertStringIncludes(e.message, "--file.path");
});
