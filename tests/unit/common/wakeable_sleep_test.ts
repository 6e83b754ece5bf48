/** WakeableSleep: a wake ends the sleep under way, or the next one when it came mid-step (never lost). */
import { assert } from "../../assert.ts";
import { WakeableSleep } from "../../../lib/common/wakeable_sleep.ts";

const timed = async (p: Promise<void>) => {
  const t0 = performance.now();
  await p;
  return performance.now() - t0;
};

Deno.test("wakeable sleep: the full time without a wake; a wake ends it early", async () => {
  const s = new WakeableSleep();
  assert((await timed(s.sleep(50))) >= 45);
  const sleeping = s.sleep(10_000);
  setTimeout(() => s.wake(), 20);
  assert((await timed(sleeping)) < 1_000);
});

Deno.test("wakeable sleep: a wake while nobody sleeps ends the next sleep at once, and only that one", async () => {
  const s = new WakeableSleep();
  s.wake();
  s.wake();
  assert((await timed(s.sleep(10_000))) < 1_000);
  assert((await timed(s.sleep(50))) >= 45);
});
