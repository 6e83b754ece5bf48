import { assertEquals, assertThrows } from "../../assert.ts";
import { formatDuration, parseDuration } from "../../../lib/common/mod.ts";

Deno.test("parses Go durations into milliseconds", () => {
  const cases: [string, number][] = [
    ["6m24s", 384_000],
    ["10m0s", 600_000],
    ["1h0m0s", 3_600_000],
    ["500ms", 500],
    ["1.5s", 1_500],
    ["0s", 0],
    ["0", 0],
    ["12s", 12_000],
    ["1m", 60_000],
    ["2h45m", 9_900_000],
    ["-1s", -1_000],
    ["+3s", 3_000],
    ["1500us", 1.5],
    ["1500µs", 1.5],
    ["250ns", 0.00025],
    [".5s", 500],
    ["1h1ms", 3_600_001],
  ];
  for (const [text, ms] of cases) assertEquals(parseDuration(text), ms, text);
});

Deno.test("rejects what Go rejects", () => {
  for (const text of ["", "6", "s", "1d", "1.2.3s", "6 m", "m6", "1e3s", "--1s", "1sec", "-"]) {
    assertEquals(parseDuration(text), undefined, text);
  }
});

Deno.test("prints Go's form", () => {
  const cases: [number, string][] = [
    [384_000, "6m24s"],
    [600_000, "10m0s"],
    [3_600_000, "1h0m0s"],
    [500, "500ms"],
    [1_500, "1.5s"],
    [0, "0s"],
    [12_000, "12s"],
    [60_000, "1m0s"],
    [1.5, "1.5ms"],
    [0.0015, "1.5µs"],
    [0.00025, "250ns"],
    [-1_000, "-1s"],
    [90_061_500, "25h1m1.5s"],
    [1.25, "1.25ms"],
    [123.456, "123.456ms"],
  ];
  for (const [ms, text] of cases) assertEquals(formatDuration(ms), text, String(ms));
  assertThrows(() => formatDuration(Infinity), RangeError);
});

Deno.test("round trip: format(parse(x)) is Go's canonical spelling", () => {
  for (const text of ["6m24s", "10m0s", "1h0m0s", "500ms", "1.5s", "0s", "30s", "1m0s", "2h30m0s", "100µs"]) {
    assertEquals(formatDuration(parseDuration(text)!), text);
  }
  assertEquals(formatDuration(parseDuration("384s")!), "6m24s");
  assertEquals(formatDuration(parseDuration("0")!), "0s");
  for (const ms of [1, 999, 1000, 59_999, 3_599_999, 86_400_000]) {
    assertEquals(parseDuration(formatDuration(ms)), ms);
  }
});
