/**
 * Alt-DA for the rollup node and the batcher (interfaces.md 4.5 "Alternative data availability"; op-node
 * node.go, op-alt-da cli.go): the DA server client of the `--altda.*` options and, for an Alt-DA chain
 * (rollup config `alt_da`), the manager derivation resolves commitments with.
 *
 * The chain decides: a rollup config with `alt_da` needs `--altda.enabled` and a DA server (without
 * them keel would derive a different chain: the commitments would be dropped as unknown data), and
 * `--altda.enabled` needs a rollup config with `alt_da` and non-zero windows (op-node GetOPAltDAConfig).
 */
import { BaseError } from "../common/errors.ts";
import { commitmentTypeOf } from "../protocol/altda.ts";
import type { RollupConfig } from "../protocol/rollup_config.ts";
import { type AltDaL1, AltDaManager, DaClient } from "../rollup/altda/mod.ts";

/** The `--altda.*` options (the rollup node's and the batcher's). */
export interface AltDaOptions {
  altdaEnabled: boolean;
  altdaDaServer?: string;
  altdaDaService: boolean;
  altdaVerifyOnRead: boolean;
  altdaGetTimeoutMs: number;
  altdaPutTimeoutMs: number;
  altdaMaxConcurrentDaRequests: number;
}

function configError(message: string): BaseError {
  return new BaseError("ALTDA_CONFIG", `Cannot start with Alt-DA: ${message}`);
}

/** The DA server client of the options (undefined unless --altda.enabled). */
export function daClientFor(o: AltDaOptions): DaClient | undefined {
  if (!o.altdaEnabled) return undefined;
  if (o.altdaDaServer === undefined) throw configError("--altda.enabled needs --altda.da-server");
  return new DaClient({
    url: o.altdaDaServer,
    verifyOnRead: o.altdaVerifyOnRead,
    daService: o.altdaDaService,
    getTimeoutMs: Number(o.altdaGetTimeoutMs),
    putTimeoutMs: Number(o.altdaPutTimeoutMs),
    maxConcurrent: Number(o.altdaMaxConcurrentDaRequests),
  });
}

/** Throws ALTDA_CONFIG when the options do not fit the chain (see the module's comment). */
export function checkAltDa(o: AltDaOptions, cfg: RollupConfig): void {
  const a = cfg.altDA;
  if (a === undefined) {
    if (o.altdaEnabled) throw configError("--altda.enabled, but the rollup config has no alt_da section");
    return;
  }
  if (!o.altdaEnabled) {
    throw configError(
      "the rollup config is an Alt-DA chain (alt_da): start with --altda.enabled and --altda.da-server",
    );
  }
  if (a.daChallengeWindow === 0n) throw configError("alt_da.da_challenge_window is 0");
  if (a.daResolveWindow === 0n) throw configError("alt_da.da_resolve_window is 0");
  if (o.altdaDaServer === undefined) throw configError("--altda.enabled needs --altda.da-server");
}

/** The derivation manager of an Alt-DA chain (undefined for others); the options checked first. */
export function altDaManagerFor(o: AltDaOptions, cfg: RollupConfig, l1: AltDaL1): AltDaManager | undefined {
  checkAltDa(o, cfg);
  const a = cfg.altDA;
  if (a === undefined) return undefined;
  return new AltDaManager(
    {
      commitmentType: commitmentTypeOf(a.commitmentType),
      challengeAddress: a.daChallengeAddress,
      challengeWindow: a.daChallengeWindow,
      resolveWindow: a.daResolveWindow,
    },
    daClientFor(o)!,
    l1,
  );
}
