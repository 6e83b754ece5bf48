/**
 * A map with a capacity that forgets the least recently used entries first. Each entry weighs 1, or
 * what `weigh` says (bytes, say); the capacity is in the same unit. A capacity of 0 keeps nothing.
 */
export class Lru<K, V> {
  readonly capacity: number;
  readonly #weigh: (value: V) => number;
  #map = new Map<K, V>();
  #weight = 0;

  constructor(capacity: number, weigh: (value: V) => number = () => 1) {
    this.capacity = capacity;
    this.#weigh = weigh;
  }

  get size(): number {
    return this.#map.size;
  }

  /** The total weight of the entries kept. */
  get weight(): number {
    return this.#weight;
  }

  /** The value of `key`, which becomes the most recently used. */
  get(key: K): V | undefined {
    const v = this.#map.get(key);
    if (v !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, v);
    }
    return v;
  }

  has(key: K): boolean {
    return this.#map.has(key);
  }

  set(key: K, value: V): void {
    const w = this.#weigh(value);
    if (w > this.capacity) return;
    this.delete(key);
    this.#map.set(key, value);
    this.#weight += w;
    // Map iteration follows insertion order: the first keys are the least recently used.
    for (const [k, v] of this.#map) {
      if (this.#weight <= this.capacity) break;
      this.#map.delete(k);
      this.#weight -= this.#weigh(v);
    }
  }

  delete(key: K): boolean {
    const old = this.#map.get(key);
    if (old === undefined) return false;
    this.#map.delete(key);
    this.#weight -= this.#weigh(old);
    return true;
  }

  clear(): void {
    this.#map.clear();
    this.#weight = 0;
  }
}
