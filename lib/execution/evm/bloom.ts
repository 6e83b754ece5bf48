/** The logs bloom of receipts and headers (one implementation: lib/protocol/bloom.ts). */
export { BLOOM_BYTES, bloomAdd, logsBloom, orBlooms } from "../../protocol/bloom.ts";
