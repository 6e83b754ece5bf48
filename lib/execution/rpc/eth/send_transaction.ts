/**
 * eth_sendTransaction and eth_signTransaction with the keys the node holds (`keel execution --dev`,
 * as anvil). Missing fields are filled as geth's TransactionArgs.setDefaults does: the fees (a
 * legacy or EIP-2930 transaction keeps its gasPrice, else EIP-1559 with the suggested tip and
 * 2 * base fee + tip), the pool's next nonce, the chain id, and the gas from eth_estimateGas. The
 * transaction is signed with EIP-155 replay protection; eth_sendTransaction then submits it as
 * eth_sendRawTransaction does, eth_signTransaction returns the raw bytes (anvil's result; geth's is
 * {raw, tx}).
 */
import {
  createAccessList2930Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  type FeeMarket1559Tx,
  type LegacyTx,
  type TypedTransaction,
} from "@ethereumjs/tx";
import { privateToPublic, toChecksumAddress } from "@ethereumjs/util";
import { bytesToHex, equalBytes, type Hex, keccak256 } from "../../../common/mod.ts";
import { defineMethod, type Infer, RpcError, s, SchemaError } from "../../../rpc/mod.ts";
import { forkRules, placeholderSignature, sharedSenderCache, txCommon } from "../../evm/mod.ts";
import { type EthContext, LATEST, pricingBaseFee, requireHeader } from "../backend.ts";
import { CALL_ARGS_FIELDS, type CallArgs } from "../call_args.ts";
import { authorizationTuple } from "../call_authorizations.ts";
import { formatTransaction, q } from "../format.ts";
import { gasPrice, suggestTip } from "../gas_price.ts";
import { estimateCallGas } from "./estimate_gas.ts";
import { checkTxFee, receiptWithin, submitRawTransaction } from "./send_raw_transaction.ts";
import { devAccountKey } from "./sign.ts";

/** The transaction object (geth TransactionArgs, without blobs, plus the type). */
export const sendArgsSchema = s.object({ ...CALL_ARGS_FIELDS, type: s.optional(s.uint64()) });
export type SendArgs = Infer<typeof sendArgsSchema>;

const EMPTY = new Uint8Array();

/**
 * The sender: `from`, or the first dev account when absent (anvil); its key, none for an impersonated
 * account (`impersonated`: eth_sendUnsignedTransaction, any `from`), else "unknown account".
 */
function sender(
  ctx: EthContext,
  args: SendArgs,
  impersonated = false,
): { from: Uint8Array; key: Uint8Array | undefined } {
  const from = args.from ?? ctx.backend.devAccounts?.[0]?.address;
  if (from === undefined) throw RpcError.server("unknown account");
  if (impersonated) return { from, key: undefined };
  const own = ctx.backend.devAccounts?.find((a) => equalBytes(a.address, from));
  if (own !== undefined) return { from, key: own.privateKey };
  if (ctx.backend.impersonation?.canSend(from)) return { from, key: undefined };
  return { from, key: devAccountKey(ctx, from) };
}

/**
 * The transaction of an account the node has no key for, with the placeholder signature
 * (evm/impersonation.ts) and its sender registered.
 */
function impersonate(ctx: EthContext, tx: TypedTransaction, from: Uint8Array): TypedTransaction {
  const registry = ctx.backend.impersonation;
  if (registry === undefined) throw RpcError.server("unknown account");
  const [v, r, s] = placeholderSignature(from);
  const signed = tx.type === 0
    ? (tx as LegacyTx).addSignature(v, r, s, true)
    : (tx as FeeMarket1559Tx).addSignature(v, r, s);
  registry.register(signed.hash(), from);
  return signed;
}

/** The fee fields of the transaction: gasPrice (types 0 and 1) or the two EIP-1559 fees (type 2). */
interface Fees {
  gasPrice: bigint | undefined;
  maxFeePerGas: bigint | undefined;
  maxPriorityFeePerGas: bigint | undefined;
}

/** geth setLondonFeeDefaults: the suggested tip, and twice the latest base fee plus the tip (room for it to rise). */
function dynamicFees(ctx: EthContext, args: SendArgs, baseFee: bigint): Fees {
  if (args.gasPrice !== undefined) {
    throw RpcError.server("gasPrice is not valid for an EIP-1559 transaction: use maxFeePerGas");
  }
  const tip = args.maxPriorityFeePerGas ?? suggestTip(ctx.backend);
  const maxFee = args.maxFeePerGas ?? tip + 2n * baseFee;
  if (maxFee < tip) throw RpcError.server(`maxFeePerGas (${q(maxFee)}) < maxPriorityFeePerGas (${q(tip)})`);
  return { gasPrice: undefined, maxFeePerGas: maxFee, maxPriorityFeePerGas: tip };
}

/** A legacy or EIP-2930 transaction's gasPrice: the given one, else eth_gasPrice (suggested tip + latest base fee). */
function legacyFees(ctx: EthContext, args: SendArgs, type: bigint): Fees {
  if (args.maxFeePerGas !== undefined || args.maxPriorityFeePerGas !== undefined) {
    throw RpcError.server(
      `maxFeePerGas and maxPriorityFeePerGas are not valid for transaction type ${q(type)}`,
    );
  }
  if (type === 0n && args.accessList !== undefined) {
    throw RpcError.server("accessList is not valid for a legacy transaction");
  }
  return {
    gasPrice: args.gasPrice ?? gasPrice(ctx.backend),
    maxFeePerGas: undefined,
    maxPriorityFeePerGas: undefined,
  };
}

/** Public keys of the dev accounts' keys (by the key's hex), each derived once. */
const publicKeys = new Map<string, Uint8Array>();

/**
 * `tx` signed with `key`, its sender remembered by hash (sharedSenderCache): the pool then takes the
 * sender from the cache instead of recovering it from the signature just made (~0.65 ms a transaction
 * of eth_sendTransaction's ~7, measured).
 */
function signRemembered(tx: TypedTransaction, key: Uint8Array): TypedTransaction {
  const signed = tx.sign(key);
  const hex = bytesToHex(key);
  let pub = publicKeys.get(hex);
  if (pub === undefined) publicKeys.set(hex, pub = privateToPublic(key));
  (signed.cache as { senderPubKey?: Uint8Array }).senderPubKey = pub;
  sharedSenderCache.remember(signed);
  return signed;
}

/**
 * The signed transaction of `args` from `from`, its missing fields filled (geth setDefaults;
 * the messages are geth's where geth has the case).
 */
export async function signFilledTransaction(
  ctx: EthContext,
  args: SendArgs,
  from: Uint8Array,
  key: Uint8Array | undefined,
): Promise<TypedTransaction> {
  const tx = await filledTransaction(ctx, args, from);
  return key === undefined ? impersonate(ctx, tx, from) : signRemembered(tx, key);
}

/** The unsigned transaction of `args` from `from`, its missing fields filled (geth setDefaults). */
async function filledTransaction(
  ctx: EthContext,
  args: SendArgs,
  from: Uint8Array,
): Promise<TypedTransaction> {
  const backend = ctx.backend;
  if (
    args.input !== undefined && args.data !== undefined && bytesToHex(args.input) !== bytesToHex(args.data)
  ) {
    throw RpcError.server(
      `both "data" and "input" are set and not equal. Please use "input" to pass transaction call data`,
    );
  }
  const data = args.input ?? args.data ?? EMPTY;
  if (args.to === undefined && data.length === 0) {
    throw RpcError.server("contract creation without any data provided");
  }
  const chainId = backend.config.chainId;
  if (args.chainId !== undefined && args.chainId !== chainId) {
    throw RpcError.server(`chainId does not match node's (have=${args.chainId}, want=${chainId})`);
  }
  const { header } = requireHeader(backend, LATEST);
  const baseFee = header.baseFeePerGas;
  const dynamic = args.maxFeePerGas !== undefined || args.maxPriorityFeePerGas !== undefined;
  if (args.gasPrice !== undefined && dynamic) {
    throw RpcError.server("both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified");
  }
  // geth ToTransaction: EIP-7702 with an authorization list, EIP-1559 with 1559 fees (or by default
  // after London), else EIP-2930 with an access list, else legacy.
  const legacyType = args.accessList !== undefined ? 1n : 0n;
  const type = args.type ??
    (args.authorizationList !== undefined
      ? 4n
      : dynamic || (args.gasPrice === undefined && baseFee !== undefined)
      ? 2n
      : legacyType);
  const rules = forkRules(backend.config, header.timestamp).common;
  // The shared view: each @ethereumjs tx constructor (this one and the signature's) would otherwise copy
  // the Common and merge its parameters again (~0.5 ms of a send, CPU profile).
  const common = txCommon(rules);
  if (
    type === 3n || type > 4n || (type >= 2n && baseFee === undefined) ||
    (type === 4n && !common.isActivatedEIP(7702))
  ) {
    throw RpcError.server("transaction type not supported");
  }
  if (type === 4n) {
    if (args.to === undefined) {
      throw RpcError.server("EIP-7702 transaction cannot be used to create contract");
    }
    if ((args.authorizationList ?? []).length === 0) {
      throw RpcError.server("EIP-7702 transaction with empty auth list");
    }
  } else if (args.authorizationList !== undefined) {
    throw RpcError.server(`authorizationList is not valid for transaction type ${q(type)}`);
  }
  const fees: Fees = type >= 2n
    ? dynamicFees(ctx, args, pricingBaseFee(backend, baseFee ?? 0n))
    : legacyFees(ctx, args, type);
  const call: CallArgs = {
    from,
    to: args.to,
    value: args.value ?? 0n,
    data,
    accessList: args.accessList,
    gas: undefined,
    nonce: undefined,
    input: undefined,
    chainId: undefined,
    authorizationList: args.authorizationList,
    ...fees,
  };
  const nonce = args.nonce ?? await backend.pool.nonce(from);
  if (nonce >= MAX_UINT64) {
    // EIP-2681: the account can send no more (geth core ErrNonceMax); @ethereumjs would throw while building.
    throw RpcError.server(
      `nonce has max value: address ${toChecksumAddress(bytesToHex(from))}, nonce: ${nonce}`,
    );
  }
  const gasLimit = args.gas ?? await estimateCallGas(ctx, call);
  const accessList = (args.accessList ?? []).map((
    e,
  ): [Uint8Array, Uint8Array[]] => [e.address, e.storageKeys]);
  const fields = { nonce, to: args.to, value: call.value, data, gasLimit };
  // The initcode size is the pool's to refuse (geth: "max initcode size exceeded: code size N, limit M"),
  // not the constructor's (its error would be an internal one).
  const opts = { common, allowUnlimitedInitCodeSize: true };
  let tx: TypedTransaction;
  if (type === 4n) {
    tx = createEOACode7702Tx({
      ...fields,
      chainId,
      accessList,
      authorizationList: args.authorizationList!.map(authorizationTuple),
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    }, opts);
  } else if (type === 2n) {
    tx = createFeeMarket1559Tx({
      ...fields,
      chainId,
      accessList,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    }, opts);
  } else if (type === 1n) {
    tx = createAccessList2930Tx({ ...fields, chainId, accessList, gasPrice: fees.gasPrice }, opts);
  } else {
    // EIP-155: the common's chain id goes into v.
    tx = createLegacyTx({ ...fields, gasPrice: fees.gasPrice }, opts);
  }
  return tx;
}

const MAX_UINT64 = (1n << 64n) - 1n;

/** Per-account queue of sends (geth's nonceLock): concurrent sends of one account get consecutive nonces. */
class AccountLocks {
  readonly #tails = new Map<string, Promise<void>>();

  run<T>(address: Uint8Array, fn: () => Promise<T>): Promise<T> {
    const key = bytesToHex(address);
    const run = (this.#tails.get(key) ?? Promise.resolve()).then(fn);
    const tail = run.then(() => {}, () => {});
    this.#tails.set(key, tail);
    tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return run;
  }
}

/**
 * eth_sendTransaction [tx]: fill, sign and submit; the transaction hash. eth_sendUnsignedTransaction
 * (anvil): the same from any `from`, impersonated (dev mode).
 */
export function ethSendTransaction(ctx: EthContext, name = "eth_sendTransaction") {
  return defineMethod({
    name,
    params: [sendArgsSchema],
    handler: ([args]) => sendFilled(ctx, args, name === "eth_sendUnsignedTransaction"),
  });
}

/** Per context, the sends in progress by account (eth_sendTransaction and its sync and unsigned forms share them). */
const LOCKS = new WeakMap<EthContext, AccountLocks>();

/** Fills, signs (or, `unsigned`, impersonates) and submits `args`; the hash. */
function sendFilled(ctx: EthContext, args: SendArgs, unsigned: boolean): Promise<Hex> {
  if (unsigned && (args.from === undefined || ctx.backend.impersonation === undefined)) {
    throw RpcError.server(args.from === undefined ? "missing from" : "unknown account");
  }
  const { from, key } = sender(ctx, args, unsigned);
  let locks = LOCKS.get(ctx);
  if (locks === undefined) LOCKS.set(ctx, locks = new AccountLocks());
  return locks.run(from, async (): Promise<Hex> => {
    const tx = await signFilledTransaction(ctx, args, from, key);
    return await submitRawTransaction(ctx, tx.serialize());
  });
}

/**
 * The raw signed transaction of a JSON request as eth_sendTransaction takes it (anvil_reorg's
 * transactions): the sender is `from` or the first dev account, the nonce the request's or else
 * `nonce(from)`, which is asked either way (anvil counts on per sender), the rest filled as there.
 */
export async function signTransactionRequest(
  ctx: EthContext,
  request: unknown,
  nonce: (from: Uint8Array) => Promise<bigint>,
): Promise<Uint8Array> {
  let args: SendArgs;
  try {
    args = sendArgsSchema.parse(request);
  } catch (e) {
    if (e instanceof SchemaError) throw RpcError.invalidParams(`invalid transaction: ${e.message}`);
    throw e;
  }
  const { from, key } = sender(ctx, args);
  const next = await nonce(from);
  return (await signFilledTransaction(ctx, { ...args, nonce: args.nonce ?? next }, from, key)).serialize();
}

/**
 * eth_sendTransactionSync [tx, timeout ms] (anvil; EIP-7966 for eth_sendTransaction): fill, sign and
 * submit, then the receipt once mined, or error 4 after the wait (eth_sendRawTransactionSync's).
 */
export function ethSendTransactionSync(ctx: EthContext) {
  return defineMethod({
    name: "eth_sendTransactionSync",
    params: [sendArgsSchema, s.optional(s.hexOrDecimal())],
    handler: async ([args, timeoutMs]) => receiptWithin(ctx, await sendFilled(ctx, args, false), timeoutMs),
  });
}

/**
 * eth_fillTransaction [tx] (geth, anvil): the transaction with its missing fields filled as
 * eth_sendTransaction fills them, unsigned: `{raw, tx}`, raw its encoding with a zero signature, tx its
 * JSON (`from` as given, or the first dev account). Any `from` may be filled: nothing is signed or kept.
 */
export function ethFillTransaction(ctx: EthContext) {
  return defineMethod({
    name: "eth_fillTransaction",
    params: [sendArgsSchema],
    handler: async ([args]) => {
      const { from } = sender(ctx, args, true);
      const tx = await filledTransaction(ctx, args, from);
      const raw = tx.serialize();
      return { raw: bytesToHex(raw), tx: formatTransaction(tx, undefined, keccak256(raw), from) };
    },
  });
}

/** eth_signTransaction [tx]: fill and sign; the raw transaction (anvil's result). */
export function ethSignTransaction(ctx: EthContext) {
  return defineMethod({
    name: "eth_signTransaction",
    params: [sendArgsSchema],
    handler: async ([args]): Promise<Hex> => {
      const { from, key } = sender(ctx, args);
      // Only a key signs: an impersonated account's placeholder is no signature to hand out.
      if (key === undefined) throw RpcError.server("unknown account");
      const raw = (await signFilledTransaction(ctx, args, from, key)).serialize();
      // geth SignTransaction checks the fee cap too.
      checkTxFee(ctx, raw);
      return bytesToHex(raw);
    },
  });
}
