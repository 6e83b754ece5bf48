/** The logs bloom, as log filters read it (one implementation: lib/protocol/bloom.ts). */
export { BLOOM_BYTES, bloomAdd, bloomBits, bloomHas, logsBloom } from "../../protocol/bloom.ts";
