/**
 * JSON text written straight into bytes, for large results (eth_getLogs pages of thousands of logs).
 * Built as one JavaScript string, such a page is a string of hundreds of KiB in V8's large-object
 * space, copied again for the envelope and for the HTTP body, and freed only by a full GC: under
 * 32 concurrent pages that held about 80 MiB more resident memory (measured with the RPC benchmark).
 * Bytes live in an ArrayBuffer that a young-generation GC frees.
 *
 * Only ASCII goes in: keys and punctuation given by the caller, and hex. Nothing is escaped.
 */

const HEX = new TextEncoder().encode("0123456789abcdef");

export class JsonBytes {
  #buf: Uint8Array<ArrayBuffer>;
  #len = 0;

  constructor(capacity = 4096) {
    this.#buf = new Uint8Array(capacity);
  }

  get length(): number {
    return this.#len;
  }

  #room(n: number): void {
    if (this.#len + n <= this.#buf.length) return;
    let size = this.#buf.length * 2;
    while (size < this.#len + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.#buf.subarray(0, this.#len));
    this.#buf = next;
  }

  /** Appends ASCII text as it is (keys, punctuation, literals). */
  ascii(text: string): this {
    this.#room(text.length);
    const buf = this.#buf;
    let at = this.#len;
    for (let i = 0; i < text.length; i++) buf[at++] = text.charCodeAt(i);
    this.#len = at;
    return this;
  }

  /** Appends `"0x<hex of bytes>"`. */
  hexString(bytes: Uint8Array): this {
    this.#room(bytes.length * 2 + 4);
    const buf = this.#buf;
    let at = this.#len;
    buf[at++] = 0x22; // "
    buf[at++] = 0x30; // 0
    buf[at++] = 0x78; // x
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i];
      buf[at++] = HEX[b >> 4];
      buf[at++] = HEX[b & 15];
    }
    buf[at++] = 0x22;
    this.#len = at;
    return this;
  }

  /** Appends `"0x<quantity>"`: hex without leading zeros ("0x0" for zero). */
  quantity(v: bigint | number): this {
    return this.ascii(`"0x${v.toString(16)}"`);
  }

  /** The bytes written (a view of the buffer; the writer must not be used after). */
  bytes(): Uint8Array<ArrayBuffer> {
    return this.#buf.subarray(0, this.#len);
  }
}

const encoder = new TextEncoder();

/** `parts` joined by `separator` between `open` and `close`, as bytes (strings encoded as UTF-8). */
export function joinBytes(
  parts: readonly (string | Uint8Array)[],
  open = "",
  separator = "",
  close = "",
): Uint8Array<ArrayBuffer> {
  const chunks = parts.map((p) => typeof p === "string" ? encoder.encode(p) : p);
  const [o, s, c] = [encoder.encode(open), encoder.encode(separator), encoder.encode(close)];
  let size = o.length + c.length + Math.max(0, chunks.length - 1) * s.length;
  for (const chunk of chunks) size += chunk.length;
  const out = new Uint8Array(size);
  out.set(o, 0);
  let at = o.length;
  chunks.forEach((chunk, i) => {
    if (i > 0) {
      out.set(s, at);
      at += s.length;
    }
    out.set(chunk, at);
    at += chunk.length;
  });
  out.set(c, at);
  return out;
}
