export interface MicroBatcherOptions<Input, Output> {
  /** Runs one batch as one statement; answers one result per input, in the inputs' order. */
  run: (inputs: readonly Input[]) => Promise<readonly Output[]>;
  /**
   * Inputs with the same key never share a batch: a later one waits for the next batch, so two
   * writes to one row are applied one after the other, in call order (an UPDATE … FROM with two
   * source rows for one target row would apply only one of them).
   */
  keyOf?: (input: Input) => string;
  /**
   * When a batch of several fails with an error for which this answers true, each input is run
   * again alone so that each caller gets its own result or error (one bad input does not fail its
   * neighbours). Only for errors that leave nothing done (a statement the server refused), never for
   * a lost connection, where a write may have been committed without its answer.
   */
  retryAlone?: (error: unknown) => boolean;
  maxBatchSize?: number;
}

interface Waiting<Input, Output> {
  input: Input;
  resolve: (output: Output) => void;
  reject: (error: unknown) => void;
}

/**
 * Coalesces concurrent calls into one statement: one batch in flight at a time, and the calls that
 * arrive meanwhile go into the next one. Under load the batch grows with the concurrency; a lone
 * call waits only for the end of the current turn of the event loop.
 */
export class MicroBatcher<Input, Output> {
  private waiting: Waiting<Input, Output>[] = [];
  private running = false;
  private scheduled = false;

  constructor(private readonly options: MicroBatcherOptions<Input, Output>) {}

  submit(input: Input): Promise<Output> {
    return new Promise<Output>((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.running || this.scheduled || this.waiting.length === 0) return;
    this.scheduled = true;
    // Calls made in the same turn (answers read from several sockets at once) share the first batch.
    setImmediate(() => {
      this.scheduled = false;
      void this.runNext();
    });
  }

  private takeBatch(): Waiting<Input, Output>[] {
    const { keyOf, maxBatchSize = 500 } = this.options;
    if (!keyOf) return this.waiting.splice(0, maxBatchSize);
    const batch: Waiting<Input, Output>[] = [];
    const left: Waiting<Input, Output>[] = [];
    const keys = new Set<string>();
    for (const entry of this.waiting) {
      const key = keyOf(entry.input);
      if (batch.length >= maxBatchSize || keys.has(key)) {
        left.push(entry);
        continue;
      }
      keys.add(key);
      batch.push(entry);
    }
    this.waiting = left;
    return batch;
  }

  private async runNext(): Promise<void> {
    this.running = true;
    try {
      const batch = this.takeBatch();
      if (batch.length > 0) await this.runBatch(batch);
    } finally {
      this.running = false;
      this.schedule();
    }
  }

  private async runBatch(batch: Waiting<Input, Output>[]): Promise<void> {
    try {
      const outputs = await this.options.run(batch.map(({ input }) => input));
      if (outputs.length !== batch.length) throw new Error(`a batch of ${batch.length} answered ${outputs.length} results`);
      batch.forEach(({ resolve }, index) => resolve(outputs[index] as Output));
    } catch (error) {
      if (batch.length === 1 || !this.options.retryAlone?.(error)) {
        for (const { reject } of batch) reject(error);
        return;
      }
      // One after the other, in call order: nothing was done, so each input is run as if it had come alone.
      for (const entry of batch) await this.runBatch([entry]);
    }
  }
}
