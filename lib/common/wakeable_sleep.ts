/**
 * A pause between polls that a signal ends early (a new L1 head announced over a subscription). A
 * wake that comes while nobody sleeps is kept: the next sleep returns at once, so that a signal
 * arriving mid-step is not lost until the next poll.
 */
export class WakeableSleep {
  #wake: (() => void) | undefined;
  #woken = false;

  /** Resolves after `ms`, or at the first wake (at once when one came since the last sleep). */
  sleep(ms: number): Promise<void> {
    if (this.#woken) {
      this.#woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#wake = undefined;
        resolve();
      }, ms);
      this.#wake = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
    });
  }

  /** Ends the sleep under way, or the next one. */
  wake(): void {
    if (this.#wake !== undefined) this.#wake();
    else this.#woken = true;
  }
}
