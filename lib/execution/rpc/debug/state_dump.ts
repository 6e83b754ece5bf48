/**
 * geth's state dump (core/state/dump.go DumpToCollector, collected as a `Dump`), the answer of
 * debug_dumpBlock and debug_accountRange: the accounts of a state in hashed-key (secure trie) order from
 * a start key, at most `max` of them, each with its balance (a decimal string), nonce, storage root,
 * code hash, code and storage unless skipped, address and hashed key; `next` the hashed key of the
 * account after the last one given, absent at the end.
 *
 * The trie is keyed by keccak256(address) and keccak256(slot): the addresses and slots come from the
 * database's preimage log (state/preimages.ts, kept by `keel execution --dev` from the genesis on), as
 * geth takes them from its preimage store (`--cache.preimages`). An account without a known address is
 * left out when `onlyWithAddresses` (geth's OnlyWithAddresses: not counted towards `max` either), else
 * listed under `pre(<hashed key>)` without `address`; a storage slot without a known preimage is left
 * out (geth skips it too).
 *
 * Output as geth's JSON: `root` is the state root in hex without 0x (geth's "%x"), accounts are keyed by
 * the checksummed address, slot values are the trimmed word in hex without 0x (common.Bytes2Hex),
 * `code` and `storage` are omitted when empty (omitempty), and `next` is 0x-hex (go-ethereum since
 * #33102; op-geth releases before it encode the same bytes as base64). Object keys are in Go's order
 * (encoding/json sorts map keys).
 */
import {
  BaseError,
  bytesToBigInt,
  bytesToHex,
  concatBytes,
  equalBytes,
  type Hex,
  keccak256,
  rlpDecode,
  type RlpValue,
} from "../../../common/mod.ts";
import { prefixedKey, PREFIXES } from "../../../db/mod.ts";
import { EMPTY_TRIE_ROOT, toChecksumAddress } from "../../../protocol/mod.ts";
import type { KeelStateManager, PreimageLog, TrieDb } from "../../state/mod.ts";

/** geth's DumpAccount, as its JSON. */
export interface DumpAccount {
  /** Decimal. */
  balance: string;
  nonce: number;
  root: Hex;
  codeHash: Hex;
  code?: Hex;
  /** Slot (32-byte hex) -> value (trimmed hex, no 0x). */
  storage?: Record<Hex, string>;
  address?: Hex;
  /** The hashed key (keccak256 of the address). */
  key: Hex;
}

/** geth's Dump, as its JSON. */
export interface Dump {
  /** The state root, hex without 0x. */
  root: string;
  accounts: Record<string, DumpAccount>;
  /** The hashed key to continue from; absent when the dump reached the end of the state. */
  next?: Hex;
}

/** geth's DumpConfig. */
export interface DumpOptions {
  skipCode: boolean;
  skipStorage: boolean;
  onlyWithAddresses: boolean;
  /** The hashed key to start from (32 bytes). */
  start: Uint8Array;
  /** The most accounts to give (at least 1). */
  max: number;
}

/** keccak256 of empty code. */
const EMPTY_CODE_HASH = keccak256(new Uint8Array());
/** The code rows' key byte after the trie-node prefix (`c` ‖ code hash, geth's CodePrefix; see db.ts). */
const CODE_KEY = 0x63;

function missing(what: string, hash: Uint8Array): BaseError {
  return new BaseError(
    "STATE_DUMP_MISSING",
    `Cannot dump the state: ${what} ${bytesToHex(hash)} is not in the database`,
  );
}

/** Nibbles of a hex-prefix encoded path (yellow paper appendix C) and whether it ends a leaf. */
function decodePath(encoded: Uint8Array): { nibbles: number[]; leaf: boolean } {
  const flag = encoded[0] >> 4;
  const nibbles: number[] = [];
  if ((flag & 1) === 1) nibbles.push(encoded[0] & 15);
  for (let i = 1; i < encoded.length; i++) nibbles.push(encoded[i] >> 4, encoded[i] & 15);
  return { nibbles, leaf: flag >= 2 };
}

function packNibbles(nibbles: number[]): Uint8Array {
  const out = new Uint8Array(nibbles.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = (nibbles[2 * i] << 4) | nibbles[2 * i + 1];
  return out;
}

/** -1, 0 or 1 as `path` sorts before, as a prefix of (or equal to), or after `bound`'s first nibbles. */
function comparePrefix(path: number[], bound: number[]): number {
  const n = Math.min(path.length, bound.length);
  for (let i = 0; i < n; i++) if (path[i] !== bound[i]) return path[i] < bound[i] ? -1 : 1;
  return 0;
}

/**
 * The leaves of the trie at `root` (keys of 32 bytes, as the secure tries have) whose key is `start` or
 * after, in key order, as [key, value]. Reads node by node: a consumer that stops early reads no more.
 */
export function* trieLeaves(
  nodes: Pick<TrieDb, "getNode">,
  root: Uint8Array,
  start: Uint8Array = new Uint8Array(32),
): Generator<[Uint8Array, Uint8Array]> {
  if (equalBytes(root, EMPTY_TRIE_ROOT)) return;
  const bound: number[] = [];
  for (const b of start) bound.push(b >> 4, b & 15);
  function* walk(ref: RlpValue, path: number[], bounded: boolean): Generator<[Uint8Array, Uint8Array]> {
    let node = ref;
    if (node instanceof Uint8Array) {
      if (node.length === 0) return;
      const rlp = nodes.getNode(node);
      if (rlp === undefined) throw missing("trie node", node);
      node = rlpDecode(rlp);
    }
    if (!Array.isArray(node)) {
      throw new BaseError("STATE_DUMP_CORRUPT", "Cannot dump the state: a trie node is not a list");
    }
    if (node.length === 17) {
      // Below a path equal to the start's prefix, the children before the start's next nibble are skipped.
      const at = bounded && path.length < bound.length ? bound[path.length] : -1;
      for (let i = Math.max(at, 0); i < 16; i++) yield* walk(node[i], [...path, i], i === at);
      return;
    }
    const { nibbles, leaf } = decodePath(node[0] as Uint8Array);
    const full = [...path, ...nibbles];
    let inside = bounded;
    if (bounded) {
      const order = comparePrefix(full, bound);
      if (order < 0) return;
      inside = order === 0;
    }
    if (leaf) yield [packNibbles(full), node[1] as Uint8Array];
    else yield* walk(node[1], full, inside);
  }
  yield* walk(root, [], true);
}

/** What the preimage log knows: address and recorded slots by hashed address (hex). */
function addressesByHash(
  log: PreimageLog | undefined,
): Map<string, { address: Uint8Array; slots: Uint8Array[] }> {
  const out = new Map<string, { address: Uint8Array; slots: Uint8Array[] }>();
  for (const entry of log?.accounts() ?? []) out.set(bytesToHex(keccak256(entry.address)), entry);
  return out;
}

/** Go's encoding/json order of map keys: byte-wise. */
function sortedKeys<T>(record: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const key of Object.keys(record).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) out[key] = record[key];
  return out;
}

/** The dump of the state `sm` stands at (a state manager over the node's own database). */
export async function dumpState(sm: KeelStateManager, options: DumpOptions): Promise<Dump> {
  const nodes = sm.nodeDb;
  if (nodes === undefined) {
    throw new BaseError("STATE_DUMP_NO_DB", "Cannot dump the state: the state manager has no node database");
  }
  const root = await sm.getStateRoot();
  const known = addressesByHash(sm.preimages);
  const accounts: Record<string, DumpAccount> = {};
  let count = 0;
  let next: Hex | undefined;
  for (const [key, value] of trieLeaves(nodes, root, options.start)) {
    const hashHex = bytesToHex(key);
    if (count >= options.max) {
      next = hashHex;
      break;
    }
    const preimage = known.get(hashHex);
    if (preimage === undefined && options.onlyWithAddresses) continue;
    const [nonce, balance, storageRoot, codeHash] = rlpDecode(value) as Uint8Array[];
    let code: Hex | undefined;
    if (!options.skipCode && !equalBytes(codeHash, EMPTY_CODE_HASH)) {
      const bytes = nodes.store.get(
        prefixedKey(PREFIXES.trieNode, concatBytes(Uint8Array.of(CODE_KEY), codeHash)),
      );
      if (bytes === undefined) throw missing("code", codeHash);
      code = bytesToHex(bytes);
    }
    let storage: Record<Hex, string> | undefined;
    if (!options.skipStorage && !equalBytes(storageRoot, EMPTY_TRIE_ROOT) && preimage !== undefined) {
      const slots = new Map<string, Uint8Array>();
      for (const slot of preimage.slots) slots.set(bytesToHex(keccak256(slot)), slot);
      const values: Record<Hex, string> = {};
      for (const [hashedSlot, rlp] of trieLeaves(nodes, storageRoot)) {
        const slot = slots.get(bytesToHex(hashedSlot));
        if (slot === undefined) continue;
        values[bytesToHex(slot)] = bytesToHex(rlpDecode(rlp) as Uint8Array).slice(2);
      }
      if (Object.keys(values).length > 0) storage = sortedKeys(values);
    }
    // The fields in the order of geth's DumpAccount (its JSON order), the empty ones left out.
    accounts[preimage === undefined ? `pre(${hashHex})` : toChecksumAddress(preimage.address)] = {
      balance: bytesToBigInt(balance).toString(),
      nonce: Number(bytesToBigInt(nonce)),
      root: bytesToHex(storageRoot),
      codeHash: bytesToHex(codeHash),
      ...(code === undefined ? {} : { code }),
      ...(storage === undefined ? {} : { storage }),
      ...(preimage === undefined ? {} : { address: bytesToHex(preimage.address) }),
      key: hashHex,
    };
    count++;
  }
  const dump: Dump = { root: bytesToHex(root).slice(2), accounts: sortedKeys(accounts) };
  if (next !== undefined) dump.next = next;
  return dump;
}
