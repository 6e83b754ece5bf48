/**
 * Spec 4.5 "Fork overrides": `override.<fork>` takes an activation timestamp (integer seconds),
 * default 0, env `OVERRIDE_<FORK>`. A value of 0 that was not given keeps the bundled setting:
 * `ParsedNode.sources` tells whether an override was given (op-node checks `IsSet` the same way).
 */
import { option, type OptionSpec, type OptionTable, SPEC_4_5 } from "../option.ts";
import { uint64 } from "../values.ts";

const group = "Fork overrides";

function override(fork: string): OptionSpec<bigint> {
  return option({
    name: `override.${fork}`,
    env: `OVERRIDE_${fork.toUpperCase()}`,
    kind: uint64,
    default: 0n,
    origin: SPEC_4_5,
    group,
    description: `manually specify the ${fork} fork timestamp, overriding the bundled setting`,
  });
}

export const OVERRIDE_OPTIONS = {
  overrideCanyon: override("canyon"),
  overrideDelta: override("delta"),
  overrideEcotone: override("ecotone"),
  overrideFjord: override("fjord"),
  overrideGranite: override("granite"),
  overrideHolocene: override("holocene"),
  overrideIsthmus: override("isthmus"),
  overrideInterop: override("interop"),
  overrideJovian: override("jovian"),
  overridePectraBlobSchedule: override("pectrablobschedule"),
} satisfies OptionTable;
