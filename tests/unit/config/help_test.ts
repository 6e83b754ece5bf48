import { assert, assertStringIncludes } from "../../assert.ts";
import {
  envName,
  EXECUTION_OPTION_TABLE,
  executionHelp,
  formatDefault,
  GROUPS,
  helpText,
  mainHelp,
  NODE_COMMAND_TABLE,
  nodeHelp,
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
  // Every area of `keel node`; "Devnet" and "Batcher" are `keel devnet`'s and `keel batcher`'s own.
  for (const group of GROUPS.filter((g) => g !== "Devnet" && g !== "Batcher")) {
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
  for (const cmd of ["keel node", "keel execution", "keel networks", "keel --version"]) {
    assertStringIncludes(mainHelp(), cmd);
  }
  assertStringIncludes(helpText("networks"), "keel networks");
});
