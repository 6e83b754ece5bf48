/** eth_sendRawTransaction: into the pool; geth's messages pass through as -32000. */
import {
  bytesToHex,
  getLogger,
  type Hex,
  hexToBytes,
  isErrorCode,
  JsonRpcClient,
  keccak256,
} from "../../../common/mod.ts";
import { DEPOSIT_TX_TYPE } from "../../../protocol/mod.ts";
import { defineMethod, RpcError, s } from "../../../rpc/mod.ts";
import type { EthContext } from "../backend.ts";
import { receiptOf } from "./get_transaction_receipt.ts";

/** Ether with up to 2 decimals, as geth prints the fee in its txfeecap error (%0.2f). */
function ether(wei: bigint): string {
  const cents = (wei + 5n * 10n ** 15n) / 10n ** 16n;
  return `${cents / 100n}.${(cents % 100n).toString().padStart(2, "0")}`;
}

/** Field positions of [fee cap, gas limit] and the field count, per transaction type (EIP-2718 payloads). */
const FEE_FIELDS: Record<number, [number, number, number]> = {
  0: [1, 2, 9], // legacy: nonce, gasPrice, gas, to, value, data, v, r, s
  1: [2, 3, 11], // EIP-2930: chainId, nonce, gasPrice, gas, ...
  2: [3, 4, 12], // EIP-1559: chainId, nonce, tip, feeCap, gas, ...
  3: [3, 4, 14], // EIP-4844
  4: [3, 4, 13], // EIP-7702
};

/**
 * fee cap * gas of a raw transaction, read from its RLP fields without building the transaction
 * (the pool decodes it once, right after); undefined when the bytes are not a well-formed list.
 * A walk over the item headers: no field is copied (5.7 -> ~0.4 µs for a transfer, measured).
 */
export function rawTxFee(raw: Uint8Array): bigint | undefined {
  const type = raw.length > 0 && raw[0] < 0x80 ? raw[0] : 0;
  const layout = FEE_FIELDS[type];
  if (layout === undefined) return undefined;
  const base = type === 0 ? 0 : 1;
  const list = rlpItem(raw, base, raw.length);
  if (list === undefined || !list.list || list.end !== raw.length) return undefined;
  let cap: RlpItem | undefined;
  let gas: RlpItem | undefined;
  let count = 0;
  for (let pos = list.start; pos < list.end; count++) {
    const item = rlpItem(raw, pos, list.end);
    if (item === undefined || (item.list && !wellFormedList(raw, item))) return undefined;
    if (count === layout[0]) cap = item;
    else if (count === layout[1]) gas = item;
    pos = item.end;
  }
  if (count !== layout[2] || cap === undefined || gas === undefined || cap.list || gas.list) return undefined;
  if (cap.end - cap.start > 32 || gas.end - gas.start > 8) return undefined;
  return bytesToBigInt(raw.subarray(cap.start, cap.end)) * bytesToBigInt(raw.subarray(gas.start, gas.end));
}

/** One RLP item: its payload `[start, end)` (end is also where the next item begins). */
interface RlpItem {
  list: boolean;
  start: number;
  end: number;
}

/** The item at `pos`, or undefined unless its header is canonical RLP and it fits before `limit`. */
function rlpItem(b: Uint8Array, pos: number, limit: number): RlpItem | undefined {
  if (pos >= limit) return undefined;
  const p = b[pos];
  if (p < 0x80) return { list: false, start: pos, end: pos + 1 };
  const list = p >= 0xc0;
  const short = list ? p <= 0xf7 : p <= 0xb7;
  let start: number;
  let len: number;
  if (short) {
    len = p - (list ? 0xc0 : 0x80);
    start = pos + 1;
    // A single byte below 0x80 is its own encoding.
    if (!list && len === 1 && (start >= limit || b[start] < 0x80)) return undefined;
  } else {
    const lenBytes = p - (list ? 0xf7 : 0xb7);
    start = pos + 1 + lenBytes;
    if (lenBytes > 4 || start > limit || b[pos + 1] === 0) return undefined;
    len = 0;
    for (let i = pos + 1; i < start; i++) len = len * 256 + b[i];
    if (len < 56) return undefined;
  }
  const end = start + len;
  return end > limit ? undefined : { list, start, end };
}

/** Whether a list's items (recursively) are canonical RLP that exactly fill it. */
function wellFormedList(b: Uint8Array, list: RlpItem): boolean {
  for (let pos = list.start; pos < list.end;) {
    const item = rlpItem(b, pos, list.end);
    if (item === undefined || (item.list && !wellFormedList(b, item))) return false;
    pos = item.end;
  }
  return true;
}

function bytesToBigInt(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt(`0x${b.toHex()}`);
}

/**
 * geth checkTxFee (internal/ethapi): refuses a signed transaction whose fee cap * gas is above
 * rpc.txfeecap (0 = no cap). Undecodable bytes pass: the pool reports the decoding error with geth's message.
 */
export function checkTxFee(ctx: EthContext, raw: Uint8Array): void {
  const cap = ctx.backend.options.txFeeCap;
  if (cap === 0n) return;
  const fee = rawTxFee(raw);
  if (fee !== undefined && fee > cap) {
    throw RpcError.server(`tx fee (${ether(fee)} ether) exceeds the configured cap (${ether(cap)} ether)`);
  }
}

/**
 * Submits a signed transaction as a local one (geth SubmitTransaction): no deposits, the fee cap
 * check, then the pool. Returns the hash in lowercase hex. eth_sendRawTransaction and eth_sendTransaction.
 */
export async function submitRawTransaction(ctx: EthContext, raw: Uint8Array): Promise<Hex> {
  if (raw.length > 0 && raw[0] === DEPOSIT_TX_TYPE) {
    // Deposits come only from L1 via the rollup node (specs/protocol/deposits.md).
    throw RpcError.server("transaction type not supported");
  }
  checkTxFee(ctx, raw);
  const sequencer = ctx.backend.sequencer;
  if (sequencer !== undefined) {
    // op-geth with --rollup.sequencerhttp: the sequencer's verdict counts; the local pool keeps a copy for
    // this node's own RPC (txpool_*, pending nonces), and its refusal is only logged.
    await sequencer.forward(raw);
    try {
      await ctx.backend.pool.add(raw, { local: true });
    } catch (e) {
      log.warn("Sent to the sequencer, but the local pool refused it", { error: (e as Error).message });
    }
    return bytesToHex(keccak256(raw));
  }
  const hash = await ctx.backend.pool.add(raw, { local: true });
  return hash.toLowerCase() as Hex;
}

const log = getLogger(["execution", "rpc"]);

/** The sequencer of `--rollup.sequencerhttp`, as the send methods use it. */
export interface SequencerForwarder {
  forward(raw: Uint8Array): Promise<void>;
  /** eth_sendRawTransactionConditional on the sequencer; its hash. */
  forwardConditional(raw: Uint8Array, conditional: unknown): Promise<Hex>;
}

/**
 * The forwarder of `--rollup.sequencerhttp`: the send methods called on the sequencer. Its JSON-RPC
 * error passes through with its code, message and data (as op-geth's); an unreachable sequencer is -32000.
 */
export function sequencerForwarder(url: string, timeoutMs = 10_000): SequencerForwarder {
  const client = new JsonRpcClient(url, { timeoutMs });
  const call = async <T>(method: string, params: unknown[]): Promise<T> => {
    try {
      return await client.call<T>(method, params);
    } catch (e) {
      if (isErrorCode(e, "RPC_ERROR")) {
        const meta = e.meta as { code?: number; data?: unknown };
        throw new RpcError(meta.code ?? -32000, e.message.replace(`${method} failed: `, ""), meta.data);
      }
      throw RpcError.server(`Cannot forward the transaction to the sequencer: ${(e as Error).message}`);
    }
  };
  return {
    async forward(raw) {
      await call("eth_sendRawTransaction", [bytesToHex(raw)]);
    },
    forwardConditional: (raw, conditional) =>
      call<Hex>("eth_sendRawTransactionConditional", [bytesToHex(raw), conditional]),
  };
}

export function ethSendRawTransaction(ctx: EthContext) {
  return defineMethod({
    name: "eth_sendRawTransaction",
    params: [s.hex()],
    handler: ([raw]) => submitRawTransaction(ctx, raw),
  });
}

/** A duration as Go prints a time.Duration (%v): "500ms", "2s", "2.5s", "1m0s". */
export function goDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000) return `${ms / 1000}s`;
  const m = Math.floor(ms / 60_000);
  return `${m}m${(ms - m * 60_000) / 1000}s`;
}

/** How often the chain is read for the receipt when the backend announces no new heads. */
const POLL_MS = 25;

/** The receipt of `hash` once a canonical block holds it, or undefined when `timeoutMs` passes first. */
async function awaitReceipt(ctx: EthContext, hash: Hex, timeoutMs: number): Promise<unknown> {
  const receipt = () => {
    const bytes = hexToBytes(hash);
    return receiptOf(ctx.backend, bytes) ?? undefined;
  };
  const found = receipt();
  if (found !== undefined) return found;
  const { promise, resolve } = Promise.withResolvers<unknown>();
  const check = () => {
    const r = receipt();
    if (r !== undefined) resolve(r);
  };
  const unsubscribe = ctx.backend.onNewHeads?.(check);
  const poll = unsubscribe === undefined ? setInterval(check, POLL_MS) : undefined;
  const timer = setTimeout(() => resolve(undefined), timeoutMs);
  try {
    // A block may have landed between the first look and the subscription.
    check();
    return await promise;
  } finally {
    clearTimeout(timer);
    if (poll !== undefined) clearInterval(poll);
    unsubscribe?.();
  }
}

/**
 * eth_sendRawTransactionSync (EIP-7966, geth 1.16): submits as eth_sendRawTransaction, then answers the
 * receipt once a block includes the transaction. The wait is the request's (ms, at most the node's
 * maximum) or the node's default; when it passes, error 4 with the hash as data (geth txSyncTimeoutError).
 */
export function ethSendRawTransactionSync(ctx: EthContext) {
  return defineMethod({
    name: "eth_sendRawTransactionSync",
    params: [s.hex(), s.optional(s.hexOrDecimal())],
    handler: async ([raw, timeoutMs]) => receiptWithin(ctx, await submitRawTransaction(ctx, raw), timeoutMs),
  });
}

/**
 * The receipt of `hash` once a block includes it, waiting the request's `timeoutMs` (at most the node's
 * maximum) or the node's default; past it, error 4 with the hash as data (geth txSyncTimeoutError).
 */
export async function receiptWithin(
  ctx: EthContext,
  hash: Hex,
  timeoutMs: bigint | undefined,
): Promise<unknown> {
  const options = ctx.backend.options;
  const asked = timeoutMs === undefined || timeoutMs === 0n ? undefined : Number(timeoutMs);
  const wait = asked === undefined
    ? options.txSyncDefaultTimeoutMs
    : Math.min(asked, options.txSyncMaxTimeoutMs);
  const receipt = await awaitReceipt(ctx, hash, wait);
  if (receipt !== undefined) return receipt;
  throw new RpcError(
    TX_SYNC_TIMEOUT,
    `The transaction was added to the transaction pool but wasn't processed in ${goDuration(wait)}`,
    hash,
  );
}

/** EIP-7966's error code for a transaction not included within the wait. */
const TX_SYNC_TIMEOUT = 4;
