/**
 * Table-driven CRC-32 checksums (reflected, initial value and final XOR 0xffffffff): CRC-32 IEEE
 * (polynomial 0xedb88320, zlib's and Go's `crc32.ChecksumIEEE`) and CRC-32C (Castagnoli, 0x82f63b78).
 */

function table(poly: number): Uint32Array {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ poly : c >>> 1;
    t[i] = c >>> 0;
  }
  return t;
}

const IEEE_TABLE = table(0xedb88320);
const CASTAGNOLI_TABLE = table(0x82f63b78);

function update(t: Uint32Array, crc: number, data: Uint8Array): number {
  let c = (crc ^ 0xffffffff) >>> 0;
  for (let i = 0; i < data.length; i++) c = t[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** CRC-32 IEEE of `data`, continuing from `crc` (Go's `crc32.Update(crc, crc32.IEEETable, data)`). */
export function crc32(data: Uint8Array, crc = 0): number {
  return update(IEEE_TABLE, crc, data);
}

/** CRC-32C (Castagnoli) of `data`. */
export function crc32c(data: Uint8Array): number {
  return update(CASTAGNOLI_TABLE, 0, data);
}
