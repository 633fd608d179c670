interface Waiter {
  position: bigint;
  resolve: (reached: boolean) => void;
  timer: NodeJS.Timeout;
}

/** The position every read model has reached: the lowest checkpoint, null while one has none. */
export const lowestCheckpoint = (checkpoints: ReadonlyMap<string, bigint | null>): bigint | null => {
  let lowest: bigint | null = null;
  for (const checkpoint of checkpoints.values()) {
    if (checkpoint === null) return null;
    if (lowest === null || checkpoint < lowest) lowest = checkpoint;
  }
  return lowest;
};

/** Callers waiting for the read models to reach a position, each with its own timeout. */
export class PositionWaiters {
  private readonly waiters = new Set<Waiter>();

  get size(): number {
    return this.waiters.size;
  }

  wait(position: bigint, timeoutMs: number, current: bigint | null): Promise<boolean> {
    if (current !== null && current >= position) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        position,
        resolve,
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.add(waiter);
    });
  }

  reached(current: bigint | null): void {
    if (current === null) return;
    for (const waiter of this.waiters) {
      if (waiter.position > current) continue;
      clearTimeout(waiter.timer);
      this.waiters.delete(waiter);
      waiter.resolve(true);
    }
  }

  cancelAll(): void {
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.resolve(false);
    }
    this.waiters.clear();
  }
}
