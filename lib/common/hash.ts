/**
 * keccak256, the one hash of the execution layer: WebAssembly Keccak-f[1600] from hash-wasm, 3-6x
 * faster than the pure-JS @noble/hashes one (1.0 vs 4.7 us for 64 bytes, 2.2 vs 10.7 us for 300 bytes,
 * measured on this machine). The @ethereumjs libraries use it too: through `Common.customCrypto`
 * (evm/common.ts) and the trie's `useKeyHashingFunction` (state/state_manager.ts).
 */
import { createKeccak } from "hash-wasm";

// One hasher, used synchronously: init/update/digest never interleave on one thread.
const hasher = await createKeccak(256);

export function keccak256(data: Uint8Array): Uint8Array {
  hasher.init();
  hasher.update(data);
  return hasher.digest("binary");
}
