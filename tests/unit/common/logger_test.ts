import type { LogRecord } from "@logtape/logtape";
import createDebug from "debug";
import {
  configureLogging,
  formatLogRecord,
  getLogger,
  parseLogFormat,
  parseLogLevel,
  renderLogValue,
  resetLogging,
  setLogLevel,
} from "../../../lib/common/logger.ts";
import { BaseError } from "../../../lib/common/errors.ts";
import { assert, assertEquals, assertMatch, assertThrows } from "../../assert.ts";

// 2026-11-25T22:42:00.123Z
const T = Date.UTC(2026, 10, 25, 22, 42, 0, 123);

function record(
  level: LogRecord["level"],
  msg: string,
  properties: Record<string, unknown>,
  category = ["keel", "rollup", "driver"],
): LogRecord {
  return { category, level, message: [msg], rawMessage: msg, timestamp: T, properties };
}

const ctx = { number: 12n, hash: new Uint8Array([0xab, 0x01]), peer: "a b" };

Deno.test("parseLogLevel accepts names and the spec's numbers 0-5", () => {
  assertEquals(["0", "1", "2", "3", "4", "5"].map(parseLogLevel), [
    "silent",
    "error",
    "warn",
    "info",
    "debug",
    "detail",
  ]);
  assertEquals(parseLogLevel(3), "info");
  assertEquals(parseLogLevel("TRACE"), "detail");
  assertEquals(parseLogLevel("Warn"), "warn");
  assertThrows(() => parseLogLevel("6"), BaseError, "Cannot parse log level");
  assertThrows(() => parseLogLevel("loud"), BaseError, '"loud"');
  assertEquals(parseLogFormat("JSON"), "json");
  assertThrows(() => parseLogFormat("yaml"), BaseError, "text, terminal, logfmt, json, json-pretty");
});

Deno.test("logfmt and text: t, lvl, msg then context, quoted only when needed", () => {
  const line = formatLogRecord(record("info", "Imported block", ctx), { format: "logfmt", color: false });
  assertEquals(
    line,
    't=2026-11-25T22:42:00.123+0000 lvl=info msg="Imported block" module=rollup.driver number=12 hash=0xab01 peer="a b"',
  );
  assertEquals(
    formatLogRecord(record("info", "Imported block", ctx), { format: "text", color: false }),
    line,
  );
  assertEquals(
    formatLogRecord(record("warning", "Stalled", {}, ["keel"]), { format: "logfmt", color: false, pid: 42 }),
    "t=2026-11-25T22:42:00.123+0000 lvl=warn msg=Stalled pid=42",
  );
  assertEquals(
    formatLogRecord(record("error", "x", { empty: "", q: 'say "hi"' }, ["keel"]), {
      format: "logfmt",
      color: false,
    }),
    't=2026-11-25T22:42:00.123+0000 lvl=error msg=x empty="" q="say \\"hi\\""',
  );
});

Deno.test("terminal: geth's level column, time and padded message", () => {
  const line = formatLogRecord(record("info", "Imported block", { number: 12n }, ["keel"]), {
    format: "terminal",
    color: false,
  });
  assertEquals(line, "INFO  [11-25|22:42:00.123] Imported block" + " ".repeat(27) + "number=12");
  assertEquals(
    formatLogRecord(record("debug", "Quiet", {}, ["keel"]), { format: "terminal", color: false }),
    "DEBUG [11-25|22:42:00.123] Quiet",
  );
  const coloured = formatLogRecord(record("error", "Boom", {}, ["keel"]), {
    format: "terminal",
    color: true,
  });
  assertEquals(coloured, "\x1b[31mERROR\x1b[0m [11-25|22:42:00.123] Boom");
  // op-node: text with colour is the terminal format.
  assertEquals(
    formatLogRecord(record("error", "Boom", {}, ["keel"]), { format: "text", color: true }),
    coloured,
  );
});

Deno.test("json: one object per line with t, lvl, msg and the context; json-pretty indents", () => {
  const line = formatLogRecord(record("info", "Imported block", ctx), {
    format: "json",
    color: false,
    pid: 7,
  });
  assert(!line.includes("\n"));
  assertEquals(JSON.parse(line), {
    t: "2026-11-25T22:42:00.123Z",
    lvl: "info",
    msg: "Imported block",
    pid: 7,
    module: "rollup.driver",
    number: "12",
    hash: "0xab01",
    peer: "a b",
  });
  assertEquals(Object.keys(JSON.parse(line)).slice(0, 3), ["t", "lvl", "msg"]);
  const pretty = formatLogRecord(record("info", "Imported block", ctx), {
    format: "json-pretty",
    color: false,
  });
  assertEquals(pretty.split("\n")[0], "{");
  assertEquals(pretty.split("\n")[1], '  "t": "2026-11-25T22:42:00.123Z",');
  assertEquals(JSON.parse(pretty).hash, "0xab01");
});

Deno.test("values: bigint, bytes, errors, nested objects and cycles render without throwing", () => {
  assertEquals(renderLogValue(2n ** 70n), "1180591620717411303424");
  assertEquals(renderLogValue(new Uint8Array([0, 255])), "0x00ff");
  assertEquals(renderLogValue(new Error("bad frame")), "bad frame");
  assertEquals(renderLogValue({ a: 1n, b: [new Uint8Array([1])] }), '{"a":"1","b":["0x01"]}');
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  assertEquals(renderLogValue(cyclic), '{"a":1,"self":"[circular]"}');
  const line = formatLogRecord(record("info", "m", { nested: { n: 5n } }, ["keel"]), {
    format: "json",
    color: false,
  });
  assertEquals(JSON.parse(line).nested, { n: "5" });
});

Deno.test("configureLogging: level filter, sink capture, silent and numeric levels", () => {
  const lines: string[] = [];
  try {
    configureLogging({ level: 2, format: "logfmt" }, (l) => lines.push(l));
    const log = getLogger(["test"]);
    log.info("Hidden", { a: 1 });
    log.warn("Shown", { a: 1n });
    log.error("Also shown");
    assertEquals(lines.length, 2);
    assertMatch(
      lines[0],
      /^t=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000 lvl=warn msg=Shown module=test a=1$/,
    );
    assertMatch(lines[1], /lvl=error msg="Also shown" module=test$/);

    lines.length = 0;
    configureLogging({ level: "silent", format: "json" }, (l) => lines.push(l));
    getLogger(["test"]).error("Dropped");
    assertEquals(lines.length, 0);

    configureLogging({ level: "detail", format: "json", pid: true }, (l) => lines.push(l));
    getLogger(["test"]).trace("Fine detail", { x: new Uint8Array([1, 2]) });
    assertEquals(lines.length, 1);
    const obj = JSON.parse(lines[0]);
    assertEquals([obj.lvl, obj.msg, obj.pid, obj.x], ["trace", "Fine detail", Deno.pid, "0x0102"]);
  } finally {
    resetLogging();
  }
});

Deno.test("setLogLevel (admin_setLogLevel, debug_verbosity): the running level changes, format and sink stay", async () => {
  const lines: string[] = [];
  try {
    configureLogging({ level: "info", format: "logfmt" }, (l) => lines.push(l));
    const log = getLogger(["test"]);
    log.debug("Hidden at info");
    assertEquals(lines.length, 0);
    assertEquals(setLogLevel("debug"), "debug");
    log.debug("Shown at debug");
    assertEquals(lines.length, 1);
    assertMatch(lines[0], /lvl=debug msg="Shown at debug"/);
    assertEquals(setLogLevel(2), "warn");
    log.info("Hidden at warn");
    assertEquals(lines.length, 1);
    assertThrows(() => setLogLevel("loud"), BaseError, "Cannot parse log level");
    // Through the RPC methods.
    const { adminNamespace } = await import("../../../lib/rollup/rpc/mod.ts");
    const { debugNamespace } = await import("../../../lib/execution/rpc/debug/mod.ts");
    const admin = adminNamespace({}).setLogLevel;
    const verbosity = debugNamespace({} as never).verbosity;
    if (admin.kind !== "method" || verbosity.kind !== "method") throw new Error("not methods");
    assertEquals(await admin.handler(["debug"] as never, {} as never), null);
    log.debug("Shown again");
    assertEquals(lines.length, 2);
    assertEquals(await verbosity.handler([1] as never, {} as never), null);
    log.warn("Hidden at error");
    assertEquals(lines.length, 2);
    let refused = "";
    try {
      await admin.handler(["loud"] as never, {} as never);
    } catch (e) {
      refused = (e as Error).message;
    }
    assert(refused.includes("Cannot parse log level"), refused);
  } finally {
    resetLogging();
  }
});

Deno.test("the npm debug package is routed into the keel sink at detail and silent below it", () => {
  const lines: string[] = [];
  const dbg = createDebug("ethereumjs:test");
  try {
    configureLogging({ level: "debug", format: "logfmt" }, (l) => lines.push(l));
    dbg("not at debug level %d", 1);
    assertEquals(lines.length, 0);
    configureLogging({ level: "detail", format: "logfmt" }, (l) => lines.push(l));
    dbg("value %d", 42);
    assertEquals(lines.length, 1);
    assertMatch(lines[0], /lvl=trace msg="Library debug output" module=lib text="ethereumjs:test value 42"$/);
  } finally {
    resetLogging();
  }
});
