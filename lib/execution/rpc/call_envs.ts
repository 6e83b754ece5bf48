/**
 * Where eth_call, eth_estimateGas and eth_createAccessList run (call.ts CallEnv): one environment per
 * state root served one caller at a time, an idle one moved to a new head's state instead of a new VM,
 * a fresh one for calls with overrides; each run under the rpc.evmtimeout deadline.
 */
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import { BaseError } from "../../common/mod.ts";
import type { Header } from "../../protocol/mod.ts";
import { type BlockSpec, RpcError } from "../../rpc/mod.ts";
import { EVM_TIMEOUT } from "../evm/mod.ts";
import { type EthContext, requireHeader } from "./backend.ts";
import type { AccountOverride, BlockOverrides } from "./call_args.ts";
import { CallEnv } from "./call.ts";

/** Runs `fn` with an environment at `header`: the shared one, or a fresh one with overrides. */
export async function withCallEnv<T>(
  ctx: EthContext,
  header: Header,
  stateOverrides: AccountOverride[] | undefined,
  blockOverrides: BlockOverrides | undefined,
  fn: (env: CallEnv) => Promise<T>,
): Promise<T> {
  if (stateOverrides === undefined && blockOverrides === undefined) {
    return await ctx.states.exclusive(header, async (sm) => {
      let env = envCache.get(sm);
      if (env === undefined) {
        env = idleEnv(ctx, header, sm) ?? await CallEnv.create(ctx, header, sm);
        envCache.set(sm, env);
        const recent = recentEnvs(ctx);
        recent.unshift(env);
        if (recent.length > RECENT_ENVS) recent.pop();
      }
      env.busy = true;
      try {
        return await fn(env);
      } finally {
        env.busy = false;
      }
    });
  }
  const base = await ctx.states.read(header);
  return await fn(await CallEnv.create(ctx, header, base, blockOverrides, stateOverrides));
}

const envCache = new WeakMap<MerkleStateManager, CallEnv>();
/**
 * Per backend (a VM reads its backend's chain for BLOCKHASH), the environments made or moved last,
 * newest first: an idle one of the right fork serves a new state.
 */
const recentEnvsOf = new WeakMap<object, CallEnv[]>();
const RECENT_ENVS = 4;

function recentEnvs(ctx: EthContext): CallEnv[] {
  let list = recentEnvsOf.get(ctx.backend);
  if (list === undefined) recentEnvsOf.set(ctx.backend, list = []);
  return list;
}

/** An idle recent environment moved to `sm` at `header` (and no longer serving its old state), if any. */
function idleEnv(ctx: EthContext, header: Header, sm: MerkleStateManager): CallEnv | undefined {
  const recent = recentEnvs(ctx);
  for (let i = recent.length - 1; i >= 0; i--) {
    const env = recent[i];
    if (env.busy) continue;
    const old = env.sm.base;
    if (!env.retarget(ctx, header, sm)) continue;
    envCache.delete(old);
    recent.splice(i, 1);
    return env;
  }
  return undefined;
}

/**
 * Runs `fn` with the environment's deadline set, so a call that outlives rpc.evmtimeout stops at
 * its next state access or its next checked jump (installDeadlineCheck: a pure compute loop stops
 * too), with geth's "execution aborted (timeout = 5s)". (A timer alone would not fire: the EVM
 * runs on microtasks and does not yield to the event loop.)
 */
export async function withDeadline<T>(env: CallEnv, timeoutMs: number, fn: () => Promise<T>): Promise<T> {
  env.sm.deadline = timeoutMs > 0 ? Date.now() + timeoutMs : 0;
  try {
    return await fn();
  } catch (e) {
    if (e instanceof BaseError && e.code === EVM_TIMEOUT) {
      throw RpcError.server(`execution aborted (timeout = ${formatDuration(timeoutMs)})`);
    }
    throw e;
  } finally {
    env.sm.deadline = 0;
  }
}

/**
 * The common path of eth_call, eth_estimateGas and eth_createAccessList: `fn` runs in a call
 * environment at the named block (latest when absent) with the state and block overrides, under
 * `timeoutMs` (0 = none).
 */
export function callAt<T>(
  ctx: EthContext,
  block: BlockSpec | undefined,
  stateOverrides: AccountOverride[] | undefined,
  blockOverrides: BlockOverrides | undefined,
  timeoutMs: number,
  fn: (env: CallEnv) => Promise<T>,
): Promise<T> {
  const { header } = requireHeader(ctx.backend, block);
  return withCallEnv(
    ctx,
    header,
    stateOverrides,
    blockOverrides,
    (env) => withDeadline(env, timeoutMs, () => fn(env)),
  );
}

function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
