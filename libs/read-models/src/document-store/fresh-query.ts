/**
 * The answer of a query that STARTED after the caller asked, shared by the callers that asked while
 * another was running: they wait for it to end, then one query starts for all of them. Never an
 * answer that was being read before a caller came, never a kept one: a caller that must see
 * everything acknowledged before it began (the primary's WAL position at a GET's start,
 * replica-document.store.ts) gets a position read after it began. At most one query runs at a time
 * and one waits to start; a failure fails only the callers of that query.
 */
export class FreshQuery<T> {
  private running: Promise<T> | null = null;
  private next: Promise<T> | null = null;

  constructor(private readonly query: () => Promise<T>) {}

  /** How many queries were started: tests and metrics count the sharing. */
  started = 0;

  ask(): Promise<T> {
    if (this.running === null) return this.start();
    this.next ??= this.running.then(settled, settled).then(() => {
      this.next = null;
      return this.start();
    });
    return this.next;
  }

  private start(): Promise<T> {
    this.started += 1;
    const run: Promise<T> = this.query().finally(() => {
      if (this.running === run) this.running = null;
    });
    this.running = run;
    return run;
  }
}

const settled = (): void => undefined;
