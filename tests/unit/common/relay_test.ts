/** Relay: listeners in order, each removable, one that throws does not stop the others. */
import { assertEquals } from "../../assert.ts";
import { Relay } from "../../../lib/common/mod.ts";

Deno.test("Relay: emits to each listener in order; a removed one hears nothing more; a throw is its own", () => {
  const relay = new Relay<number>();
  const heard: string[] = [];
  const offA = relay.on((n) => heard.push(`a${n}`));
  relay.on(() => {
    throw new Error("a subscriber's bug");
  });
  relay.on((n) => heard.push(`c${n}`));
  relay.emit(1);
  offA();
  relay.emit(2);
  assertEquals(heard, ["a1", "c1", "c2"]);
  assertEquals(relay.size, 2);
});

Deno.test("Relay: the same function added twice hears twice and is removed once per removal", () => {
  const relay = new Relay<string>();
  const heard: string[] = [];
  const listener = (s: string) => heard.push(s);
  const off1 = relay.on(listener);
  relay.on(listener);
  relay.emit("x");
  off1();
  relay.emit("y");
  assertEquals(heard, ["x", "x", "y"]);
});
