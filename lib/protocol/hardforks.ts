/**
 * The OP-Stack hardforks, in activation order, and the schedule that activates them by
 * L2 block timestamp (specs/protocol/superchain-upgrades.md; each fork's overview.md).
 * Bedrock is active from genesis; every later fork has an optional activation time
 * (undefined = not scheduled).
 */
export const OP_FORKS = [
  "bedrock",
  "regolith",
  "canyon",
  "delta",
  "ecotone",
  "fjord",
  "granite",
  "holocene",
  "isthmus",
  "jovian",
  "interop",
] as const;

export type OpFork = typeof OP_FORKS[number];

/** Activation times in seconds (L2 block timestamp) for each fork after Bedrock. */
export type ForkSchedule = Partial<Record<Exclude<OpFork, "bedrock">, bigint>>;

/** Every fork from Regolith through `last` active at genesis (time 0), the later ones not scheduled. */
export function forksAtGenesis(last: Exclude<OpFork, "bedrock">): ForkSchedule {
  const schedule: ForkSchedule = {};
  for (const fork of OP_FORKS.slice(1, OP_FORKS.indexOf(last) + 1)) {
    schedule[fork as Exclude<OpFork, "bedrock">] = 0n;
  }
  return schedule;
}

/** True when `fork` is active at `timestamp` under `schedule`. */
export function isForkActive(schedule: ForkSchedule, fork: OpFork, timestamp: bigint): boolean {
  if (fork === "bedrock") return true;
  const at = schedule[fork];
  return at !== undefined && timestamp >= at;
}

/** The latest fork active at `timestamp`. */
export function activeFork(schedule: ForkSchedule, timestamp: bigint): OpFork {
  let current: OpFork = "bedrock";
  for (const fork of OP_FORKS) if (isForkActive(schedule, fork, timestamp)) current = fork;
  return current;
}

/** True when `timestamp` is the first block of `fork`: the parent (at timestamp - blockTime) was before it. */
export function isForkActivationBlock(
  schedule: ForkSchedule,
  fork: OpFork,
  timestamp: bigint,
  blockTime: bigint,
): boolean {
  return isForkActive(schedule, fork, timestamp) &&
    (timestamp < blockTime || !isForkActive(schedule, fork, timestamp - blockTime));
}
