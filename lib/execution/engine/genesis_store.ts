/**
 * The genesis in the database: written once (`keel execution init`, or the first open), with the
 * genesis.json `config` kept so that a restart needs no genesis file; checked on every later open.
 */
import { bytesToHex, equalBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import { type KvStore, MemoryStore, prefixedKey, PREFIXES } from "../../db/mod.ts";
import { type ChainConfig, parseChainConfig } from "../../protocol/mod.ts";
import { ChainStore } from "../chain/mod.ts";
import { buildGenesis, type Genesis, type GenesisJson, parseGenesis } from "../genesis/mod.ts";
import { createStateManager } from "../state/mod.ts";
import { ENGINE_ERRORS } from "./engine_types.ts";

/** A parsed genesis, from either form. */
export function toGenesis(g: Genesis | GenesisJson): Genesis {
  return g.alloc instanceof Map ? g as Genesis : parseGenesis(g);
}

/** Where initGenesis keeps the genesis.json `config` object (so a restart needs no genesis file). */
export const CHAIN_CONFIG_KEY = prefixedKey(PREFIXES.meta, new TextEncoder().encode("chain_config"));
export const GENESIS_HASH_KEY = prefixedKey(PREFIXES.meta, new TextEncoder().encode("genesis_hash"));

/** The chain config stored by initGenesis from a genesis.json, or undefined. */
export function storedChainConfig(store: KvStore): ChainConfig | undefined {
  const raw = store.get(CHAIN_CONFIG_KEY);
  if (raw === undefined) return undefined;
  return parseChainConfig(JSON.parse(new TextDecoder().decode(raw)));
}

/**
 * Writes the genesis into `store` if it is empty (the code path of `keel execution init`), or checks
 * that the stored chain starts with the same genesis. Returns the genesis hash.
 */
export async function initGenesis(store: KvStore, genesisInput: Genesis | GenesisJson): Promise<Uint8Array> {
  const configJson = genesisInput.alloc instanceof Map
    ? undefined
    : new TextEncoder().encode(JSON.stringify((genesisInput as GenesisJson).config));
  return await initParsedGenesis(store, toGenesis(genesisInput), configJson);
}

/** initGenesis for a parsed genesis; `configJson` is stored when given. */
export async function initParsedGenesis(
  store: KvStore,
  genesis: Genesis,
  configJson: Uint8Array | undefined,
): Promise<Uint8Array> {
  const chain = new ChainStore({}, { store });
  const existing = chain.getCanonicalHash(genesis.number);
  if (existing !== undefined) {
    // Compute the hash aside, so a mismatch writes nothing.
    const result = await buildGenesis(genesis, await createStateManager(new MemoryStore()));
    if (!equalBytes(result.hash, existing)) {
      throw new BaseError(
        ENGINE_ERRORS.GENESIS_MISMATCH,
        `Cannot open database: it holds genesis ${bytesToHex(existing)}, but the given genesis is ${
          bytesToHex(result.hash)
        }`,
        { meta: { stored: bytesToHex(existing), given: bytesToHex(result.hash) } },
      );
    }
    return existing;
  }
  return await store.transactionAsync(async () => {
    const sm = await createStateManager(store);
    const result = await buildGenesis(genesis, sm);
    chain.putBlock(result.block, [], { hash: result.hash, totalDifficulty: result.header.difficulty });
    chain.setCanonicalHead(result.hash);
    chain.setSafeHead(result.hash);
    chain.setFinalizedHead(result.hash);
    if (configJson !== undefined) store.put(CHAIN_CONFIG_KEY, configJson);
    store.put(GENESIS_HASH_KEY, result.hash);
    return result.hash;
  });
}
