/**
 * muxTracer's config (geth native/mux.go): an object of tracer names to their configs; an unknown name,
 * a nested muxTracer or a config that is no object is refused before anything runs.
 */
import { runTracer, traceConfigSchema } from "../../../../../lib/execution/rpc/debug/trace_config.ts";
import { assert, assertEquals } from "../../../../assert.ts";

const PLACE = { blockHash: undefined, blockNumber: 1n, txHash: undefined, txIndex: 0 };

Deno.test("muxTracer refuses a config it cannot run, before running anything", async () => {
  let runs = 0;
  const run = () => {
    runs++;
    return Promise.reject(new Error("not reached"));
  };
  const cases: [unknown, RegExp][] = [
    [{ nope: {} }, /tracer "nope" not found/],
    [{ muxTracer: {} }, /tracer "muxTracer" not found/],
    ["callTracer", /want an object/],
    [undefined, /want an object/],
    [{ callTracer: { withLog: "yes" } }, /cannot unmarshal string/],
  ];
  for (const [tracerConfig, message] of cases) {
    const err = await runTracer(traceConfigSchema.parse({ tracer: "muxTracer", tracerConfig }), run, PLACE)
      .then(
        () => undefined,
        (e) => e,
      );
    assert(err instanceof Error && message.test(err.message), `${JSON.stringify(tracerConfig)}: ${err}`);
  }
  assertEquals(runs, 0);
});

Deno.test("muxTracer: one run, each tracer's result under its name", async () => {
  let runs = 0;
  const result = await runTracer(
    traceConfigSchema.parse({ tracer: "muxTracer", tracerConfig: { noopTracer: {}, "4byteTracer": {} } }),
    (options) => {
      runs++;
      assert(options.tracer !== undefined);
      return Promise.resolve({} as never);
    },
    PLACE,
  );
  assertEquals(runs, 1);
  assertEquals(result, { noopTracer: {}, "4byteTracer": {} });
});
