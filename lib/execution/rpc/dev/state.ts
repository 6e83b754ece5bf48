/**
 * anvil_setBalance, anvil_setCode, anvil_setNonce, anvil_setStorageAt (and their hardhat_ names, and
 * ganache's evm_setAccountBalance / Nonce / Code / StorageAt):
 * the head's state changes at once, without a block (ExecutionEngine.changeHeadState); reads at
 * `latest`, the pool and the next block see the new values. Answers as anvil's: null, and true for
 * anvil_setStorageAt.
 *
 * anvil_dealERC20 (also hardhat_dealERC20, anvil_setERC20Balance) and anvil_setERC20Allowance write a
 * token's balance or allowance where its `balanceOf` / `allowance` view reads it (../erc20_slot.ts).
 */
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import { Account, Address } from "@ethereumjs/util";
import { defineMethod, RpcError, s } from "../../../rpc/mod.ts";
import type { DevContext } from "./backend.ts";
import { devQuantity } from "./quantity.ts";
import { allowanceCall, balanceOfCall } from "../erc20_slot.ts";
import { bigIntToBytes } from "../../../common/mod.ts";

/** The account at `address`, created empty when missing. */
async function accountOf(sm: MerkleStateManager, address: Address): Promise<Account> {
  return (await sm.getAccount(address)) ?? new Account();
}

/** Leading zero bytes dropped (a zero value clears the slot). */
function unpad(b: Uint8Array): Uint8Array {
  let i = 0;
  while (i < b.length && b[i] === 0) i++;
  return b.subarray(i);
}

function change(ctx: DevContext, fn: (sm: MerkleStateManager) => Promise<void>): Promise<void> {
  return ctx.miner.exclusive(async () => {
    await ctx.chain.changeHeadState(fn);
  });
}

function setBalance(name: string, ctx: DevContext) {
  return defineMethod({
    name,
    params: [s.address(), devQuantity()],
    handler: async ([address, balance]) => {
      const a = new Address(address);
      await change(ctx, async (sm) => {
        const account = await accountOf(sm, a);
        account.balance = balance;
        await sm.putAccount(a, account);
      });
      return null;
    },
  });
}

function setNonce(name: string, ctx: DevContext) {
  return defineMethod({
    name,
    params: [s.address(), devQuantity(64)],
    handler: async ([address, nonce]) => {
      const a = new Address(address);
      await change(ctx, async (sm) => {
        const account = await accountOf(sm, a);
        account.nonce = nonce;
        await sm.putAccount(a, account);
      });
      return null;
    },
  });
}

function setCode(name: string, ctx: DevContext) {
  return defineMethod({
    name,
    params: [s.address(), s.hex()],
    handler: async ([address, code]) => {
      const a = new Address(address);
      await change(ctx, async (sm) => {
        if ((await sm.getAccount(a)) === undefined) await sm.putAccount(a, new Account());
        await sm.putCode(a, code);
      });
      return null;
    },
  });
}

function setStorageAt(name: string, ctx: DevContext) {
  return defineMethod({
    name,
    params: [s.address(), devQuantity(), s.hex()],
    handler: async ([address, slot, value]) => {
      if (value.length !== 32) {
        throw RpcError.invalidParams(`storage value must be 32 bytes, got ${value.length}`);
      }
      const a = new Address(address);
      const key = new Uint8Array(32);
      for (let i = 31, x = slot; i >= 0 && x > 0n; i--, x >>= 8n) key[i] = Number(x & 0xffn);
      await change(ctx, async (sm) => {
        if ((await sm.getAccount(a)) === undefined) await sm.putAccount(a, new Account());
        await sm.putStorage(a, key, unpad(value));
      });
      return true;
    },
  });
}

const MAX_UINT256 = (1n << 256n) - 1n;

/** anvil_addBalance: the balance grows by `amount`. */
function addBalance(ctx: DevContext) {
  return defineMethod({
    name: "anvil_addBalance",
    params: [s.address(), devQuantity()],
    handler: async ([address, amount]) => {
      const a = new Address(address);
      await change(ctx, async (sm) => {
        const account = await accountOf(sm, a);
        // As anvil: the balance saturates at 2^256 - 1 (an account field holds 256 bits).
        const sum = account.balance + amount;
        account.balance = sum > MAX_UINT256 ? MAX_UINT256 : sum;
        await sm.putAccount(a, account);
      });
      return null;
    },
  });
}

/** Writes `value` where `token`'s view `data` reads its answer (DevInfo.erc20Slot finds the slot). */
function setErc20Slot(ctx: DevContext, token: Uint8Array, data: Uint8Array, value: bigint, what: string) {
  return ctx.miner.exclusive(async () => {
    const slot = await ctx.info.erc20Slot(token, data, value, what);
    if (slot === undefined) return;
    await ctx.chain.changeHeadState((sm) =>
      sm.putStorage(new Address(token), slot, unpad(bigIntToBytes(value, 32)))
    );
  });
}

/** anvil_dealERC20 [account, token, amount]: the account's token balance becomes `amount`. */
function dealErc20(name: string, ctx: DevContext) {
  return defineMethod({
    name,
    params: [s.address(), s.address(), devQuantity()],
    handler: async ([account, token, amount]) => {
      await setErc20Slot(ctx, token, balanceOfCall(account), amount, "balance");
      return null;
    },
  });
}

/** anvil_setERC20Allowance [owner, spender, token, amount]. */
function setErc20Allowance(ctx: DevContext) {
  return defineMethod({
    name: "anvil_setERC20Allowance",
    params: [s.address(), s.address(), s.address(), devQuantity()],
    handler: async ([owner, spender, token, amount]) => {
      await setErc20Slot(ctx, token, allowanceCall(owner, spender), amount, "allowance");
      return null;
    },
  });
}

/** The same method answering true (ganache's convention). */
function answeringTrue<M extends { handler: (...args: never[]) => unknown }>(m: M): M {
  const handler = m.handler as (...args: unknown[]) => unknown;
  return {
    ...m,
    handler: async (...args: unknown[]) => {
      await handler(...args);
      return true;
    },
  } as M;
}

export function stateMethods(ctx: DevContext) {
  return [
    addBalance(ctx),
    ...["anvil_dealERC20", "hardhat_dealERC20", "anvil_setERC20Balance"].map((n) => dealErc20(n, ctx)),
    setErc20Allowance(ctx),
    ...["anvil", "hardhat"].flatMap((ns) => [
      setBalance(`${ns}_setBalance`, ctx),
      setNonce(`${ns}_setNonce`, ctx),
      setCode(`${ns}_setCode`, ctx),
      setStorageAt(`${ns}_setStorageAt`, ctx),
    ]),
    // ganache's names: the same changes, answering true.
    answeringTrue(setBalance("evm_setAccountBalance", ctx)),
    answeringTrue(setNonce("evm_setAccountNonce", ctx)),
    answeringTrue(setCode("evm_setAccountCode", ctx)),
    answeringTrue(setStorageAt("evm_setAccountStorageAt", ctx)),
  ];
}
