/**
 * The option table is typed: a mistyped or incomplete entry fails the type check (each
 * `@ts-expect-error` below fails `deno check` if the line it covers ever type-checks).
 */
import { assertEquals } from "../../assert.ts";
import {
  envName,
  envSuffixOf,
  formatDefault,
  option,
  optional,
  type OptionsOf,
  SPEC_4_5,
} from "../../../lib/config/option.ts";
import { path, port } from "../../../lib/config/values.ts";
import { L1_OPTIONS, type NodeOptions } from "../../../lib/config/mod.ts";

Deno.test("a well-typed entry and the options type it produces", () => {
  const table = {
    fooPort: option({
      name: "foo.port",
      env: "FOO_PORT",
      kind: port,
      default: 1234,
      origin: SPEC_4_5,
      group: "RPC",
      description: "a port",
    }),
    fooFile: optional({
      name: "foo.file",
      env: "FOO_FILE",
      kind: path,
      origin: SPEC_4_5,
      group: "RPC",
      description: "f",
    }),
  };
  type Foo = OptionsOf<typeof table>;
  const value: Foo = { fooPort: 1, fooFile: undefined };
  const n: number = value.fooPort;
  const f: string | undefined = value.fooFile;
  // @ts-expect-error an optional entry's field may be undefined
  const g: string = value.fooFile;
  assertEquals([n, f, g], [1, undefined, undefined]);
  assertEquals(formatDefault(table.fooPort), "1234");
  assertEquals(formatDefault(table.fooFile), "");
  assertEquals(envName(table.fooPort), "KEEL_FOO_PORT");
  assertEquals(envSuffixOf("rpc.batch-request-limit"), "RPC_BATCH_REQUEST_LIMIT");
});

Deno.test("mistyped entries fail the type check", () => {
  const wrongDefault = option({
    name: "x",
    env: "X",
    kind: port,
    // @ts-expect-error a default of the wrong type for its kind
    default: "9545",
    origin: SPEC_4_5,
    group: "RPC",
    description: "d",
  });
  const wrongGroup = option({
    name: "x",
    env: "X",
    kind: port,
    default: 1,
    origin: SPEC_4_5,
    // @ts-expect-error a group that is not one of the spec's areas
    group: "Misc",
    description: "d",
  });
  // @ts-expect-error a missing description
  const noDescription = option({
    name: "x",
    env: "X",
    kind: port,
    default: 1,
    origin: SPEC_4_5,
    group: "RPC",
  });
  // @ts-expect-error a missing env suffix
  const noEnv = optional({
    name: "x",
    kind: path,
    origin: SPEC_4_5,
    group: "RPC",
    description: "d",
  });
  assertEquals([wrongDefault, wrongGroup, noDescription, noEnv].length, 4);
});

Deno.test("NodeOptions fields are typed from the table", () => {
  const l1: string = L1_OPTIONS.l1.default;
  const ms: number = L1_OPTIONS.l1EpochPollIntervalMs.default;
  type Kind = NodeOptions["l2EngineKind"];
  const kind: Kind = "erigon";
  // @ts-expect-error only the three engine kinds
  const wrong: Kind = "nethermind";
  assertEquals([l1, ms, kind, wrong], ["http://127.0.0.1:8545", 384_000, "erigon", "nethermind"]);
});
