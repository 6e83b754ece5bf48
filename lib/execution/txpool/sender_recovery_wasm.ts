/**
 * libsecp256k1 compiled to WebAssembly, for sender recovery. Its own module so that the recovery
 * Worker loads nothing else (no @ethereumjs): the node grants that Worker read access to keel's
 * modules, and a small graph starts fast. The package embeds the wasm bytes: no file read at run time.
 */
import { initWasmSecp256k1 } from "@solar-republic/wasm-secp256k1";

/** What keel uses of libsecp256k1 compiled to WebAssembly (the module embeds its bytes: no file read). */
export interface Secp256k1Recover {
  /** The 65-byte uncompressed public key of `sig` (r || s, 64 bytes) over `hash`; throws if none. */
  recover(sig: Uint8Array, hash: Uint8Array, recovery: number, uncompressed: true): Uint8Array;
}

let wasmSecp256k1: Promise<Secp256k1Recover> | undefined;

/**
 * libsecp256k1 (WebAssembly), instantiated once per thread. ecrecover there costs ~0.3 ms against
 * ~0.6 ms for @noble/curves on the 2-core reference machine (measured, Deno 2.9.6).
 */
export function loadWasmSecp256k1(): Promise<Secp256k1Recover> {
  return wasmSecp256k1 ??= initWasmSecp256k1();
}
