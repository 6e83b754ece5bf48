/**
 * anvil_dumpState and anvil_loadState (and hardhat's names for them): the head's whole state as anvil's
 * SerializableState JSON, gzip-compressed and answered as hex; loading applies such a state (anvil's
 * or keel's, compressed or not) to the head, account by account, as anvil does: balance and code set,
 * the nonce raised to the dump's (never lowered), the storage slots given written, other slots left
 * as they are.
 *
 * The state trie is keyed by hashes, so the dump lists the accounts and slots from the chain's
 * preimage log (state/preimages.ts), which `keel execution --dev` keeps from the genesis on. A chain
 * without one (a datadir made by an older keel, or not in dev mode) cannot be dumped: the method says so.
 *
 * anvil's dump also carries its blocks and transactions, to rebuild its chain; keel's carries none
 * (`blocks` and `transactions` empty): the state alone, which is what loading applies in both.
 */
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import { Account, Address } from "@ethereumjs/util";
import { bigIntToBytes, bytesToHex, hexToBytes, toQuantity } from "../../../common/bytes.ts";
import { defineMethod, RpcError, s } from "../../../rpc/mod.ts";
import type { DevChain, DevContext, DevMining } from "./backend.ts";

/** One account of anvil's SerializableState. */
export interface DumpedAccount {
  nonce: number;
  /** Hex quantity. */
  balance: string;
  /** Hex bytes. */
  code: string;
  /** 32-byte slot -> 32-byte value, both hex. */
  storage: Record<string, string>;
}

/** anvil's SerializableState, as keel writes it. */
export interface DumpedState {
  block: Record<string, unknown>;
  accounts: Record<string, DumpedAccount>;
  best_block_number: number;
  blocks: unknown[];
  transactions: unknown[];
  historical_states: null;
}

const word = (b: Uint8Array) => {
  const out = new Uint8Array(32);
  out.set(b, 32 - b.length);
  return bytesToHex(out);
};

/** The head's state (every account and non-zero slot the preimage log names). */
export async function dumpState(chain: DevChain): Promise<DumpedState> {
  const log = chain.preimages;
  if (log === undefined) {
    throw RpcError.invalidParams(
      "Cannot dump the state: this chain does not record its accounts and storage slots " +
        "(dev chains record them from the genesis on; start with a fresh --datadir)",
    );
  }
  const head = chain.head().header;
  const accounts: Record<string, DumpedAccount> = {};
  await chain.readState(head, async (sm) => {
    // A fork (fork mode) keeps its zeroed slots too: left out, a reloaded dump would read the remote's value.
    const forked = (sm as { fork?: unknown }).fork !== undefined;
    for (const { address, slots } of log.accounts()) {
      const a = new Address(address);
      const account = await sm.getAccount(a);
      if (account === undefined) continue;
      const storage: Record<string, string> = {};
      for (const slot of slots) {
        const value = await sm.getStorage(a, slot);
        if (value.length > 0 || forked) storage[bytesToHex(slot)] = word(value);
      }
      accounts[a.toString()] = {
        nonce: Number(account.nonce),
        balance: toQuantity(account.balance),
        code: bytesToHex(await sm.getCode(a)),
        storage,
      };
    }
  });
  return {
    block: {
      number: toQuantity(head.number),
      beneficiary: bytesToHex(head.coinbase),
      timestamp: toQuantity(head.timestamp),
      gas_limit: Number(head.gasLimit),
      basefee: Number(head.baseFeePerGas ?? 0n),
      difficulty: toQuantity(head.difficulty),
      prevrandao: bytesToHex(head.mixHash),
      blob_excess_gas_and_price: null,
    },
    accounts,
    best_block_number: Number(head.number),
    blocks: [],
    transactions: [],
    historical_states: null,
  };
}

async function pipe(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const out = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

function bad(message: string): RpcError {
  return RpcError.invalidParams(`Cannot load state: ${message}`);
}

/** A JSON number, or a decimal or 0x-hex string, as an unsigned integer below 2^bits. */
function uint(v: unknown, what: string, bits: number): bigint {
  let n: bigint;
  try {
    if (typeof v === "number" && Number.isSafeInteger(v)) n = BigInt(v);
    else if (typeof v === "string" && /^(0x[0-9a-fA-F]+|0x|[0-9]+)$/.test(v)) n = v === "0x" ? 0n : BigInt(v);
    else throw new Error();
  } catch {
    throw bad(`${what} ${JSON.stringify(v)} is not an unsigned integer`);
  }
  if (n < 0n || n >> BigInt(bits) !== 0n) throw bad(`${what} ${v} does not fit in ${bits} bits`);
  return n;
}

function hexBytes(v: unknown, what: string): Uint8Array {
  if (typeof v !== "string" || !/^0x([0-9a-fA-F]{2})*$/.test(v)) {
    throw bad(`${what} ${JSON.stringify(v)} is not 0x-prefixed hex bytes`);
  }
  return hexToBytes(v);
}

/** The 32-byte word of a slot key or value (hex bytes or a quantity, as anvil's B256 and U256 take them). */
function slotWord(v: unknown, what: string): Uint8Array {
  return bigIntToBytes(uint(v, what, 256), 32);
}

/** The accounts of a dumped state (gzip-compressed or not), checked before anything is written. */
export async function parseDump(
  bytes: Uint8Array,
): Promise<Map<string, { a: Address; fields: ParsedAccount }>> {
  let raw = bytes;
  if (raw.length >= 2 && raw[0] === 0x1f && raw[1] === 0x8b) {
    try {
      raw = await pipe(raw, new DecompressionStream("gzip"));
    } catch (e) {
      throw bad(`the gzip data is corrupt (${(e as Error).message})`);
    }
  }
  let state: unknown;
  try {
    state = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(raw));
  } catch (e) {
    throw bad(`not a JSON state dump (${(e as Error).message})`);
  }
  const accounts = (state as { accounts?: unknown } | null)?.accounts;
  if (typeof accounts !== "object" || accounts === null || Array.isArray(accounts)) {
    throw bad("the dump has no `accounts` object");
  }
  const out = new Map<string, { a: Address; fields: ParsedAccount }>();
  for (const [key, value] of Object.entries(accounts)) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(key)) throw bad(`account key ${key} is not an address`);
    if (typeof value !== "object" || value === null) throw bad(`account ${key} is not an object`);
    const v = value as Record<string, unknown>;
    const storage = v.storage ?? {};
    if (typeof storage !== "object" || storage === null || Array.isArray(storage)) {
      throw bad(`the storage of ${key} is not an object`);
    }
    out.set(key.toLowerCase(), {
      a: new Address(hexToBytes(key)),
      fields: {
        nonce: uint(v.nonce ?? 0, `the nonce of ${key}`, 64),
        balance: uint(v.balance ?? 0, `the balance of ${key}`, 256),
        code: hexBytes(v.code ?? "0x", `the code of ${key}`),
        storage: Object.entries(storage).map(([k, x]) => [
          slotWord(k, `a storage slot of ${key}`),
          slotWord(x, `the value of slot ${k} of ${key}`),
        ]),
      },
    });
  }
  return out;
}

interface ParsedAccount {
  nonce: bigint;
  balance: bigint;
  code: Uint8Array;
  storage: [Uint8Array, Uint8Array][];
}

async function apply(sm: MerkleStateManager, a: Address, fields: ParsedAccount): Promise<void> {
  const account = (await sm.getAccount(a)) ?? new Account();
  // As anvil: the higher of the two nonces (a transaction already sent from the account stays spent).
  if (fields.nonce > account.nonce) account.nonce = fields.nonce;
  account.balance = fields.balance;
  await sm.putAccount(a, account);
  await sm.putCode(a, fields.code);
  for (const [k, v] of fields.storage) {
    let i = 0;
    while (i < v.length && v[i] === 0) i++;
    await sm.putStorage(a, k, v.subarray(i));
  }
}

/**
 * Applies a dumped state (bytes of anvil's JSON, gzip-compressed or not) to the head of `chain`, all of
 * it or, on bad input, none of it. Returns how many accounts it held.
 */
export async function loadState(
  chain: DevChain,
  miner: Pick<DevMining, "exclusive">,
  bytes: Uint8Array,
): Promise<number> {
  const accounts = await parseDump(bytes);
  await miner.exclusive(async () => {
    await chain.changeHeadState(async (sm) => {
      for (const { a, fields } of accounts.values()) await apply(sm, a, fields);
    });
  });
  return accounts.size;
}

function dumpMethod(name: string, ctx: DevContext) {
  return defineMethod({
    name,
    params: [],
    handler: async () => {
      const json = new TextEncoder().encode(JSON.stringify(await dumpState(ctx.chain)));
      return bytesToHex(await pipe(json, new CompressionStream("gzip")));
    },
  });
}

function loadMethod(name: string, ctx: DevContext) {
  return defineMethod({
    name,
    params: [s.hex()],
    handler: async ([bytes]) => {
      await loadState(ctx.chain, ctx.miner, bytes);
      return true;
    },
  });
}

export function dumpMethods(ctx: DevContext) {
  return [
    dumpMethod("anvil_dumpState", ctx),
    dumpMethod("hardhat_dumpState", ctx),
    loadMethod("anvil_loadState", ctx),
    loadMethod("hardhat_loadState", ctx),
  ];
}
