/**
 * rollupnode_outputAtBlock through the driver: the message passer root from the Isthmus header
 * (withdrawalsRoot), from the state before Isthmus, and from the state always with
 * --fetch-withdrawal-root-from-state (specs/protocol/proposals.md "L2 Output Commitment Construction").
 */
import type { ExecutionPayload } from "../../../../lib/protocol/engine.ts";
import { outputRootV0 } from "../../../../lib/protocol/output_root.ts";
import { Driver, type DriverDeps } from "../../../../lib/rollup/driver/driver.ts";
import { assertEquals, assertRejects } from "../../../assert.ts";
import { rollupFixture } from "../derive/rollup_fixture.ts";
import { testPayload } from "../p2p_helpers.ts";

const HEADER_ROOT = new Uint8Array(32).fill(0x11);
const STATE_ROOT_OF_PASSER = new Uint8Array(32).fill(0x22);

/** Block `number` (before Ecotone by its time), with the Isthmus header root when given. */
function payload(number: bigint, withdrawalsRoot?: Uint8Array): ExecutionPayload {
  return {
    ...testPayload(number, 1000n),
    stateRoot: new Uint8Array(32).fill(0x33),
    blockHash: new Uint8Array(32).fill(Number(number)),
    withdrawalsRoot,
  };
}

function driver(fetchWithdrawalRootFromState: boolean) {
  const reads: Uint8Array[] = [];
  const blocks = new Map([[1n, payload(1n)], [2n, payload(2n, HEADER_ROOT)]]);
  const deps = {
    l1: {},
    engine: {},
    l2: {
      payloadByNumber: (n: bigint) => Promise.resolve(blocks.get(n)),
      messagePasserStorageRoot: (hash: Uint8Array) => {
        reads.push(hash);
        return Promise.resolve(STATE_ROOT_OF_PASSER);
      },
    },
  } as unknown as DriverDeps;
  return { d: new Driver(rollupFixture(), deps, { fetchWithdrawalRootFromState }), reads };
}

Deno.test("output root: the header's withdrawalsRoot from Isthmus, the state's root before it", async () => {
  const { d, reads } = driver(false);
  const pre = payload(1n);
  assertEquals(
    (await d.outputAtBlock(1n))[1],
    outputRootV0(pre.stateRoot, STATE_ROOT_OF_PASSER, pre.blockHash),
  );
  const isthmus = payload(2n, HEADER_ROOT);
  assertEquals(
    (await d.outputAtBlock(2n))[1],
    outputRootV0(isthmus.stateRoot, HEADER_ROOT, isthmus.blockHash),
  );
  assertEquals(reads, [pre.blockHash]);
  await assertRejects(() => d.outputAtBlock(3n));
});

Deno.test("output root: --fetch-withdrawal-root-from-state reads the state's root for every block", async () => {
  const { d, reads } = driver(true);
  const isthmus = payload(2n, HEADER_ROOT);
  assertEquals(
    (await d.outputAtBlock(2n))[1],
    outputRootV0(isthmus.stateRoot, STATE_ROOT_OF_PASSER, isthmus.blockHash),
  );
  assertEquals(reads, [isthmus.blockHash]);
});
