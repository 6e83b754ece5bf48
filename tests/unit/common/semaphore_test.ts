import { Semaphore } from "../../../lib/common/semaphore.ts";
import { assertEquals } from "../../assert.ts";

Deno.test("semaphore: at most `limit` holders; waiters get a slot in arrival order as holders release", async () => {
  const s = new Semaphore(2);
  const order: string[] = [];
  await s.acquire();
  await s.acquire();
  const waiters = ["a", "b", "c"].map((name) => s.acquire().then(() => order.push(name)));
  await Promise.resolve();
  assertEquals(order, []); // both slots held
  s.release();
  await waiters[0];
  assertEquals(order, ["a"]);
  s.release();
  s.release();
  await Promise.all(waiters);
  assertEquals(order, ["a", "b", "c"]);
  // Three holders released (a, b, c): the count is back to zero, so two acquire at once again.
  s.release();
  s.release();
  s.release();
  let taken = 0;
  await Promise.all([s.acquire().then(() => taken++), s.acquire().then(() => taken++)]);
  assertEquals(taken, 2);
});
