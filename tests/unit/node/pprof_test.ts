import { BaseError } from "../../../lib/common/errors.ts";
import { parsePprofType, PprofService, profileFilePath } from "../../../lib/node/pprof.ts";
import { assert, assertEquals, assertStringIncludes, assertThrows } from "../../assert.ts";

/** Burns CPU so a profile has samples. */
function spin(ms: number): number {
  let x = 0;
  const until = performance.now() + ms;
  while (performance.now() < until) x += Math.sqrt(x + 1);
  return x;
}

Deno.test("Go-only profile types are refused at start with a clear message", () => {
  for (const type of ["goroutine", "threadcreate", "block", "mutex"]) {
    assertThrows(
      () => new PprofService({ enabled: true, type }),
      BaseError,
      `pprof.type=${type} is a Go runtime profile; keel runs on V8 and offers cpu, heap, allocs`,
    );
  }
  assertThrows(() => parsePprofType("trace"), BaseError, "Cannot parse pprof.type");
  assertEquals(parsePprofType("CPU"), "cpu");
  assertEquals(parsePprofType(""), "");
  assertThrows(
    () => new PprofService({ enabled: true, path: "/tmp/x" }),
    BaseError,
    "pprof.path needs pprof.type",
  );
});

Deno.test("disabled: start does nothing", async () => {
  const svc = new PprofService({ enabled: false, addr: "127.0.0.1", port: 0 });
  await svc.start();
  assertThrows(() => svc.port, BaseError, "not running");
  await svc.stop();
});

Deno.test("HTTP: CPU profile, heap snapshot and sampling heap profile", async () => {
  const svc = new PprofService({ enabled: true, addr: "127.0.0.1", port: 0 });
  await svc.start();
  await svc.start();
  try {
    const base = `http://127.0.0.1:${svc.port}/debug/pprof`;
    const cpuRes = fetch(`${base}/profile?seconds=0.4`);
    // Server and client share this event loop: let the handler start the profiler, then burn CPU.
    await new Promise((r) => setTimeout(r, 80));
    spin(150);
    const cpu = await (await cpuRes).json();
    assert(Array.isArray(cpu.nodes) && cpu.nodes.length > 0, "cpu profile has nodes");
    assert(Array.isArray(cpu.samples) && cpu.samples.length > 0, "cpu profile has samples");
    assert(
      cpu.nodes.some((n: { callFrame: { functionName: string } }) => n.callFrame.functionName === "spin"),
      "the CPU profile shows the busy function",
    );

    const heapRes = await fetch(`${base}/heap`);
    assertEquals(heapRes.headers.get("content-type"), "application/json");
    const heap = await heapRes.json();
    assert(Array.isArray(heap.snapshot.meta.node_fields), "heap snapshot has snapshot.meta");
    assert(heap.nodes.length > 0, "heap snapshot has nodes");

    const allocs = await (await fetch(`${base}/allocs`)).json();
    assert(
      typeof allocs.head === "object" && Array.isArray(allocs.samples),
      "sampling profile has head and samples",
    );

    const goroutine = await fetch(`${base}/goroutine`);
    assertEquals(goroutine.status, 404);
    assertStringIncludes(await goroutine.text(), "Go runtime profile");
    const bad = await fetch(`${base}/profile?seconds=abc`);
    assertEquals(bad.status, 400);
    await bad.body?.cancel();
    const index = await fetch(`${base}/`);
    assertStringIncludes(await index.text(), "/debug/pprof/profile?seconds=N");
  } finally {
    await svc.stop();
    await svc.stop();
  }
});

Deno.test("file mode: cpu profiles from start to stop into {dir}/cpu.prof; heap and allocs to a file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-pprof-" });
  try {
    assertEquals(await profileFilePath(dir, "cpu"), `${dir}/cpu.prof`);
    assertEquals(await profileFilePath(`${dir}/x.json`, "heap"), `${dir}/x.json`);

    const cpu = new PprofService({ enabled: true, path: dir, type: "cpu", port: 0 });
    await cpu.start();
    assertThrows(() => cpu.port, BaseError, "not running");
    spin(100);
    await cpu.stop();
    const profile = JSON.parse(await Deno.readTextFile(`${dir}/cpu.prof`));
    assert(profile.nodes.length > 0 && profile.samples.length > 0);

    const heap = new PprofService({ enabled: true, path: `${dir}/heap.out`, type: "heap" });
    await heap.start();
    await heap.stop();
    assert(Array.isArray(JSON.parse(await Deno.readTextFile(`${dir}/heap.out`)).snapshot.meta.node_fields));

    const allocs = new PprofService({ enabled: true, path: dir, type: "allocs" });
    await allocs.start();
    const keep = Array.from({ length: 20000 }, (_, i) => ({ i, s: `v${i}` }));
    await allocs.stop();
    assert(keep.length === 20000);
    assert(Array.isArray(JSON.parse(await Deno.readTextFile(`${dir}/allocs.prof`)).samples));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
