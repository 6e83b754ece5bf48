/**
 * The op-conductor client (lib/node/conductor.ts) against a stand-in conductor on 127.0.0.1: leadership,
 * the committed envelope (Engine API JSON), one retry within --conductor.rpc-timeout, the override of
 * admin_overrideLeader, and op-node's option rules for --conductor.enabled.
 */
import { assert, assertEquals, assertRejects, assertThrows } from "../../assert.ts";
import { bytesToHex } from "../../../lib/common/bytes.ts";
import { isErrorCode } from "../../../lib/common/errors.ts";
import { parseArgs, type ParsedNode } from "../../../lib/config/mod.ts";
import { checkConductorOptions, ConductorClient } from "../../../lib/node/conductor.ts";
import { testPayload } from "../rollup/p2p_helpers.ts";
import { fakeConductor } from "./fake_conductor.ts";

const ROOT = new Uint8Array(32).fill(0xbe);

Deno.test("conductor: leader, and each block committed as an ExecutionPayloadEnvelope", async () => {
  const fake = fakeConductor({ leader: false });
  try {
    const c = new ConductorClient(fake.url, 1_000);
    assertEquals(await c.leader(), false);
    fake.state.leader = true;
    assertEquals(await c.leader(), true);
    const payload = testPayload(7n, 1030n);
    await c.commitUnsafePayload(payload, ROOT);
    assertEquals(fake.committed.length, 1);
    const envelope = fake.committed[0] as {
      executionPayload: Record<string, unknown>;
      parentBeaconBlockRoot: string;
    };
    assertEquals(envelope.parentBeaconBlockRoot, bytesToHex(ROOT));
    assertEquals(envelope.executionPayload.blockNumber, "0x7");
    assertEquals(envelope.executionPayload.blockHash, bytesToHex(payload.blockHash));
    assertEquals(envelope.executionPayload.withdrawals, []);
    assertEquals(envelope.executionPayload.withdrawalsRoot, bytesToHex(payload.withdrawalsRoot!));
    // Before Ecotone there is no parent beacon block root.
    await c.commitUnsafePayload(testPayload(8n, 1000n), undefined);
    assertEquals("parentBeaconBlockRoot" in fake.committed[1], false);
    // A refused commit is an error naming the conductor's reason.
    fake.state.refuseCommits = true;
    const e = await assertRejects(() => c.commitUnsafePayload(payload, ROOT));
    assert(isErrorCode(e, "CONDUCTOR_RPC"), String(e));
    assert((e as Error).message.includes("not the leader"), (e as Error).message);
  } finally {
    await fake.server.shutdown();
  }
});

Deno.test("conductor: one retry after a failure, all within the timeout; the override asks nothing", async () => {
  const fake = fakeConductor();
  try {
    const c = new ConductorClient(fake.url, 1_000);
    fake.state.failNext = 1;
    assertEquals(await c.leader(), true);
    assertEquals(fake.calls.length, 2);
    fake.state.failNext = 2;
    assert(isErrorCode(await assertRejects(() => c.leader()), "CONDUCTOR_RPC"));
    // A conductor slower than the timeout: the call gives up within it.
    fake.state.delayMs = 2_000;
    const slow = new ConductorClient(fake.url, 300);
    const t0 = performance.now();
    assert(isErrorCode(await assertRejects(() => slow.leader()), "CONDUCTOR_RPC"));
    assert(performance.now() - t0 < 1_500, `took ${performance.now() - t0} ms`);
    fake.state.delayMs = 0;
    fake.state.leader = false;
    const before = fake.calls.length;
    c.overrideLeader();
    assertEquals(await c.leader(), true);
    await c.commitUnsafePayload(testPayload(9n, 1000n), undefined);
    assertEquals(fake.calls.length, before);
    assertEquals(c.overridden, true);
  } finally {
    await new Promise((r) => setTimeout(r, 2_100)); // the slow answer
    await fake.server.shutdown();
  }
});

function node(...argv: string[]): ParsedNode["options"] {
  const parsed = parseArgs(["node", "--network=op-mainnet", "--l1=http://127.0.0.1:1", ...argv], {});
  if (parsed.command !== "node") throw new Error(parsed.command);
  return parsed.options;
}

Deno.test("conductor options: a sequencer without a persisted admin state", () => {
  checkConductorOptions(node());
  checkConductorOptions(node("--sequencer.enabled", "--conductor.enabled"));
  for (
    const args of [["--conductor.enabled"], [
      "--sequencer.enabled",
      "--conductor.enabled",
      "--rpc.admin-state=/tmp/x",
    ]]
  ) {
    const e = assertThrows(() => checkConductorOptions(node(...args)));
    assert(isErrorCode(e, "CONDUCTOR_CONFIG"), String(e));
  }
  assertEquals(node("--sequencer.enabled", "--conductor.enabled").conductorRpcTimeoutMs, 1_000);
});
