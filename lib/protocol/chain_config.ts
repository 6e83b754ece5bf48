/**
 * The execution layer's chain configuration, as op-geth reads it from `genesis.json` `config`.
 * `op` is present for an OP-Stack L2 and absent for a plain Ethereum chain (the devnet's L1).
 */
import type { ForkSchedule } from "./hardforks.ts";

/** Ethereum L1 forks that matter to keel's engine, activation by timestamp (post-merge chains). */
export interface L1ForkSchedule {
  shanghaiTime?: bigint;
  cancunTime?: bigint;
  pragueTime?: bigint;
  osakaTime?: bigint;
}

export interface Eip1559Params {
  /** op-geth `optimism.eip1559Elasticity` (6 on OP Mainnet). */
  elasticity: bigint;
  /** op-geth `optimism.eip1559Denominator` (50 on OP Mainnet), before Canyon. */
  denominator: bigint;
  /** op-geth `optimism.eip1559DenominatorCanyon` (250 on OP Mainnet), from Canyon. */
  denominatorCanyon: bigint;
}

export interface ChainConfig {
  chainId: bigint;
  /** L1 fork times. For an OP chain they follow the OP forks (Canyon = Shanghai, Ecotone = Cancun, Isthmus = Prague). */
  l1: L1ForkSchedule;
  /** OP-Stack parameters; undefined for a plain Ethereum chain. */
  op?: {
    forks: ForkSchedule;
    eip1559: Eip1559Params;
  };
}
