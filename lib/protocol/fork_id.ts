/**
 * EIP-2124 fork identifier: FORK_HASH is the CRC-32 (IEEE) of the genesis hash, updated with each fork
 * already passed as a big-endian uint64; FORK_NEXT the first fork not yet passed (0 when none).
 *
 * Which forks count follows geth's `core/forkid` `gatherForks`, which op-geth shares: every fork field
 * of the chain config, by block number (`homesteadBlock` ... `mergeNetsplitBlock`, and op-geth's
 * `bedrockBlock`) and then by timestamp (`shanghaiTime` ... `osakaTime`, and the OP forks `regolithTime`
 * ... `interopTime`); each list sorted with duplicates dropped, the block forks at 0 and the time forks
 * at or before the genesis time left out (they are the genesis rules). Tested against geth's own
 * vectors for mainnet, Sepolia and Holesky (tests/spec/fork_id_test.ts).
 */
import { crc32 } from "../common/crc.ts";
import type { ChainConfig, ChainConfigExtras } from "./chain_config.ts";

export interface ForkId {
  /** FORK_HASH, 4 bytes. */
  hash: Uint8Array;
  /** FORK_NEXT: the block number or timestamp of the next fork, 0 when none is scheduled. */
  next: bigint;
}

/** The forks that change the fork id: by block number, then by timestamp (geth `gatherForks`). */
export function forkIdForks(config: ChainConfig, genesisTime: bigint): { blocks: bigint[]; times: bigint[] } {
  const extras = (config as { extras?: ChainConfigExtras }).extras;
  const blocks: bigint[] = Object.values(extras?.blockForks ?? {});
  if (extras?.bedrockBlock !== undefined) blocks.push(extras.bedrockBlock);
  const times: bigint[] = [...Object.values(config.l1), ...Object.values(config.op?.forks ?? {})];
  const sortedUnique = (xs: bigint[]) =>
    [...new Set(xs.filter((x): x is bigint => x !== undefined))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    blocks: sortedUnique(blocks).filter((b) => b !== 0n),
    times: sortedUnique(times).filter((t) => t > genesisTime),
  };
}

function update(hash: number, fork: bigint): number {
  const blob = new Uint8Array(8);
  new DataView(blob.buffer).setBigUint64(0, fork);
  return crc32(blob, hash);
}

/**
 * The fork id of a node whose head is block `head` at time `time` (geth `forkid.NewID`). eth_config
 * asks with `head` = 2^64 - 1: every block fork passed.
 */
export function forkId(
  config: ChainConfig,
  genesisHash: Uint8Array,
  genesisTime: bigint,
  head: bigint,
  time: bigint,
): ForkId {
  let hash = crc32(genesisHash);
  const { blocks, times } = forkIdForks(config, genesisTime);
  const out = (next: bigint): ForkId => {
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setUint32(0, hash);
    return { hash: bytes, next };
  };
  for (const fork of blocks) {
    if (fork > head) return out(fork);
    hash = update(hash, fork);
  }
  for (const fork of times) {
    if (fork > time) return out(fork);
    hash = update(hash, fork);
  }
  return out(0n);
}
