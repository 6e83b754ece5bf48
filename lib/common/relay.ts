/**
 * Listeners of one kind of event, called in the order they were added; a listener's throw is its own
 * (the others are still called). For events that must outlive their source: the execution role's
 * eth_subscribe feeds, which go on when a dev re-fork replaces the engine that emits them.
 */
export class Relay<T> {
  readonly #listeners = new Set<(event: T) => void>();

  /** Adds `listener`; returns its removal. */
  on(listener: (event: T) => void): () => void {
    // A wrapper per call: the same function added twice is called twice and removed once each.
    const own = (event: T) => listener(event);
    this.#listeners.add(own);
    return () => this.#listeners.delete(own);
  }

  emit(event: T): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch {
        // A subscriber's failure is not the emitter's: the next listener still hears the event.
      }
    }
  }

  get size(): number {
    return this.#listeners.size;
  }
}
