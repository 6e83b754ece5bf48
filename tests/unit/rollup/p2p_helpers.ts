/** Shared by the p2p tests: a host on 127.0.0.1 for a test chain, waiting, and a block payload. */
import { encodeDepositTx } from "../../../lib/protocol/deposit_tx.ts";
import type { ExecutionPayload } from "../../../lib/protocol/engine.ts";
import { emptyL1BlockInfo, encodeL1InfoCalldata } from "../../../lib/protocol/l1_block_info.ts";
import type { RollupConfig } from "../../../lib/protocol/rollup_config.ts";
import { P2pHost, type P2pHostOptions } from "../../../lib/rollup/p2p/mod.ts";

/** A host of chain `chainId` (2-second blocks, no forks) on 127.0.0.1, any free port. */
export function testHost(chainId: bigint, options: Partial<P2pHostOptions> = {}): P2pHost {
  return new P2pHost({ listenIp: "127.0.0.1", listenTcp: 0, staticPeers: [], redialMs: 60_000, ...options }, {
    cfg: { l2ChainId: chainId, blockTime: 2n, forks: {} } as unknown as RollupConfig,
    unsafeBlockSigner: () => undefined,
    onBlock: () => {},
  });
}

/** Polls `fn` every 100 ms until it holds; throws naming `what` after `ms`. */
export async function until(what: string, fn: () => Promise<boolean> | boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A payload of block `number` at `timestamp` (fields of each fork per the timestamp against 1010/1020/1030). */
export function testPayload(number: bigint, timestamp: bigint): ExecutionPayload {
  const t = timestamp;
  return {
    parentHash: new Uint8Array(32).fill(1),
    feeRecipient: new Uint8Array(20),
    stateRoot: new Uint8Array(32),
    receiptsRoot: new Uint8Array(32),
    logsBloom: new Uint8Array(256),
    prevRandao: new Uint8Array(32),
    blockNumber: number,
    gasLimit: 30_000_000n,
    gasUsed: 0n,
    timestamp: t,
    extraData: new Uint8Array(),
    baseFeePerGas: 7n,
    blockHash: new Uint8Array(32).fill(2),
    transactions: [Uint8Array.of(0x7e, 1)],
    ...(t >= 1010n ? { withdrawals: [] } : {}),
    ...(t >= 1020n ? { blobGasUsed: 0n, excessBlobGas: 0n } : {}),
    ...(t >= 1030n ? { withdrawalsRoot: new Uint8Array(32).fill(3) } : {}),
  };
}

/** The L1-info deposit (bedrock format) of the L2 block at position `sequenceNumber` of L1 origin 7. */
export function l1InfoDeposit(sequenceNumber: bigint): Uint8Array {
  const data = encodeL1InfoCalldata("bedrock", {
    ...emptyL1BlockInfo(),
    number: 7n,
    timestamp: 900n,
    baseFee: 1n,
    blockHash: new Uint8Array(32).fill(7),
    sequenceNumber,
  });
  return encodeDepositTx({
    sourceHash: new Uint8Array(32),
    from: new Uint8Array(20),
    to: new Uint8Array(20),
    mint: 0n,
    value: 0n,
    gas: 1_000_000n,
    isSystemTx: false,
    data,
  });
}

/** A rollup config of chain 901 without forks, genesis at L2 time 1000 after L1 block 5 (the EL sync tests). */
export function testRollupConfig(): RollupConfig {
  return {
    l2ChainId: 901n,
    blockTime: 2n,
    forks: {},
    genesis: {
      l2Time: 1000n,
      l1: { number: 5n, hash: new Uint8Array(32).fill(5) },
      l2: { number: 0n, hash: new Uint8Array(32) },
    },
  } as unknown as RollupConfig;
}
