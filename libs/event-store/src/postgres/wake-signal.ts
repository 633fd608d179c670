/**
 * Tells subscriptions that new events may exist (a local append, or a NOTIFY from another process).
 * The version counter closes the race where a wake-up arrives between a subscription's read and its
 * wait: the subscription remembers the version it read at and does not sleep if it has moved.
 */
export class WakeSignal {
  private currentVersion = 0;
  private readonly waiters = new Set<() => void>();

  get version(): number {
    return this.currentVersion;
  }

  notify(): void {
    this.currentVersion += 1;
    for (const wake of this.waiters) wake();
    this.waiters.clear();
  }

  /** Resolves on the next notify, after timeoutMs, on abort, or at once if the version has moved. */
  wait(sinceVersion: number, timeoutMs: number, abort: AbortSignal): Promise<void> {
    if (sinceVersion !== this.currentVersion || abort.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(done);
        abort.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.waiters.add(done);
      abort.addEventListener('abort', done, { once: true });
    });
  }
}
