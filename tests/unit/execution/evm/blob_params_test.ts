/** EIP-4844 blob gas parameters per fork on a plain chain: Cancun (target 3, max 6), Prague (EIP-7691: 6, 9). */
import { assertEquals } from "../../../assert.ts";
import type { ChainConfig } from "../../../../lib/protocol/chain_config.ts";
import { blobBaseFee, BlockBuilder, expectedBlobFields } from "../../../../lib/execution/evm/mod.ts";
import { attributes, genesisHeader, installL1SystemContracts, l1Config, newState } from "./helpers.ts";

const BLOB = 131_072n;
const CANCUN: ChainConfig = { chainId: 900n, l1: { shanghaiTime: 0n, cancunTime: 0n } };

/** EIP-4844 fake_exponential, written out independently. */
function fakeExponential(factor: bigint, numerator: bigint, denominator: bigint): bigint {
  let i = 1n;
  let output = 0n;
  let acc = factor * denominator;
  while (acc > 0n) {
    output += acc;
    acc = (acc * numerator) / (denominator * i);
    i++;
  }
  return output / denominator;
}

Deno.test("blob params: the next excess blob gas subtracts the fork's target (Prague 6 blobs, Cancun 3)", () => {
  for (const [config, target] of [[l1Config(), 6n], [CANCUN, 3n]] as const) {
    const parent = { ...genesisHeader(config, "l1"), blobGasUsed: 9n * BLOB, excessBlobGas: 2n * BLOB };
    assertEquals(expectedBlobFields(config, parent, 2n).excessBlobGas, (11n - target) * BLOB);
    const low = { ...parent, blobGasUsed: 0n, excessBlobGas: BLOB };
    assertEquals(expectedBlobFields(config, low, 2n).excessBlobGas, 0n);
  }
});

Deno.test("blob params: blob base fee uses the fork's update fraction (Prague 5007716, Cancun 3338477)", () => {
  const excess = 10_000_000n;
  assertEquals(blobBaseFee(l1Config(), 2n, excess), fakeExponential(1n, excess, 5_007_716n));
  assertEquals(blobBaseFee(CANCUN, 2n, excess), fakeExponential(1n, excess, 3_338_477n));
  assertEquals(blobBaseFee(l1Config(), 2n, 0n), 1n);
});

Deno.test("blob params: a Prague block holds 9 blobs of gas, a Cancun block 6", async () => {
  for (const [config, max] of [[l1Config(), 9n], [CANCUN, 6n]] as const) {
    const sm = newState();
    await installL1SystemContracts(sm);
    const b = await BlockBuilder.open(config, genesisHeader(config, "l1"), attributes("l1"), {
      stateManager: sm,
    });
    assertEquals(b.rules.common.getBlobGasSchedule().maxBlobGasPerBlock, max * BLOB);
    await b.abort();
  }
});
