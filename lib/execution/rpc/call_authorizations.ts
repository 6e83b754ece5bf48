/**
 * EIP-7702 authorizations in a message call (eth_call, eth_estimateGas, eth_createAccessList) and in
 * the transaction eth_sendTransaction fills: the `authorizationList` of geth's TransactionArgs, each
 * item {chainId, address, nonce, yParity, r, s} (types.SetCodeAuthorization's JSON).
 *
 * A call applies them as a set-code transaction does (EIP-7702 "Behavior"; geth core/state_transition
 * applyAuthorization, @ethereumjs runTx processAuthorizationList): each costs PER_EMPTY_ACCOUNT_COST
 * (25,000) of intrinsic gas; one that is invalid (another chain, a nonce of 2^64-1, a malleable or
 * unrecoverable signature, an authority with code that is not a delegation, a nonce that is not the
 * authority's) is skipped; a valid one bumps the authority's nonce, writes the delegation
 * (0xef0100 ‖ address; the zero address clears it), warms the authority and, when the authority
 * existed, refunds 25,000 - PER_AUTH_BASE_COST (12,500).
 */
import type { EVMInterface } from "@ethereumjs/evm";
import {
  Account,
  type Address,
  type EOACode7702AuthorizationListBytesItem,
  eoaCode7702RecoverAuthority,
} from "@ethereumjs/util";
import { bytesToHex, concatBytes, equalBytes } from "../../common/mod.ts";
import { DELEGATION_PREFIX, isDelegation } from "../evm/mod.ts";
import { type Infer, s } from "../../rpc/mod.ts";

/**
 * A signature value: a quantity, or (as anvil takes it, and as signers print it) 32 bytes of data
 * with leading zeros.
 */
const signatureWord = s.custom<bigint>("signature value", (v) => {
  if (typeof v === "string" && /^0x0[0-9a-fA-F]+$/.test(v) && v.length <= 66) return BigInt(v);
  return s.quantity().parse(v);
});

/** The call-object item (geth types.SetCodeAuthorization JSON; `v` is taken for `yParity` too). */
export const authorizationSchema = s.object({
  chainId: s.quantity(),
  address: s.address(),
  nonce: s.uint64(),
  yParity: s.optional(s.quantity()),
  v: s.optional(s.quantity()),
  r: signatureWord,
  s: signatureWord,
});
export type AuthorizationArg = Infer<typeof authorizationSchema>;

/** EIP-7702 PER_EMPTY_ACCOUNT_COST: intrinsic gas per authorization. */
export const PER_EMPTY_ACCOUNT_COST = 25_000n;
/** EIP-7702 PER_AUTH_BASE_COST. */
const PER_AUTH_BASE_COST = 12_500n;
const SECP256K1_N_DIV_2 = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
const MAX_UINT64 = (1n << 64n) - 1n;
const ZERO_ADDRESS = new Uint8Array(20);

/** The y-parity of an item: `yParity`, else `v` (27/28 as 0/1). */
export function yParityOf(a: AuthorizationArg): bigint {
  if (a.yParity !== undefined) return a.yParity;
  if (a.v !== undefined) return a.v >= 27n ? a.v - 27n : a.v;
  return 0n;
}

/** The item as the transaction's authorization tuple [chainId, address, nonce, yParity, r, s]. */
export function authorizationTuple(a: AuthorizationArg): EOACode7702AuthorizationListBytesItem {
  return [
    quantityBytes(a.chainId),
    a.address,
    quantityBytes(a.nonce),
    quantityBytes(yParityOf(a)),
    quantityBytes(a.r),
    quantityBytes(a.s),
  ];
}

function quantityBytes(v: bigint): Uint8Array {
  if (v === 0n) return new Uint8Array();
  let hex = v.toString(16);
  if (hex.length % 2 === 1) hex = "0" + hex;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** The authority that signed `a`, or undefined when its signature is not a valid one. */
function authority(a: AuthorizationArg): Address | undefined {
  const y = yParityOf(a);
  if (a.s > SECP256K1_N_DIV_2 || y > 1n || a.r === 0n || a.s === 0n) return undefined;
  try {
    return eoaCode7702RecoverAuthority(authorizationTuple(a));
  } catch {
    return undefined;
  }
}

/**
 * Applies the authorizations on the EVM's state (the caller's checkpoint holds the changes); returns
 * the refund they earn. The sender's nonce must already be bumped (a self-sponsored authorization
 * names the nonce after it).
 */
export async function applyAuthorizations(
  evm: EVMInterface,
  list: readonly AuthorizationArg[],
  chainId: bigint,
): Promise<bigint> {
  let refund = 0n;
  const sm = evm.stateManager;
  for (const a of list) {
    if (a.chainId !== 0n && a.chainId !== chainId) continue;
    if (a.nonce >= MAX_UINT64) continue;
    const signer = authority(a);
    if (signer === undefined) continue;
    // Warm even when the authorization turns out invalid below (geth validateAuthorization).
    evm.journal.addAlwaysWarmAddress(bytesToHex(signer.bytes).slice(2));
    const existing = await sm.getAccount(signer);
    const account = existing ?? new Account();
    if (account.isContract()) {
      const code = await sm.getCode(signer);
      if (!isDelegation(code)) continue;
    }
    if (account.nonce !== a.nonce) continue;
    if (existing !== undefined) refund += PER_EMPTY_ACCOUNT_COST - PER_AUTH_BASE_COST;
    account.nonce++;
    await evm.journal.putAccount(signer, account);
    const delegation = equalBytes(a.address, ZERO_ADDRESS)
      ? new Uint8Array()
      : concatBytes(DELEGATION_PREFIX, a.address);
    await sm.putCode(signer, delegation);
  }
  return refund;
}
