import type { CommittedWrite, ReadSideWaiter } from '#commands';
import { type DatabaseOutage, noDatabaseOutage } from '#platform';

/**
 * A write is answered once every reader of the log has seen it: the read models, and the dispatcher
 * (whose outbox and delivery log the internal application shows). Waiters are added as the process
 * starts its parts; the wait is bounded by the caller's timeout as a whole.
 */
export class CompositeReadSide implements ReadSideWaiter {
  private readonly waiters: ReadSideWaiter[] = [];

  /** `database`: a wait that fails because the database went away answers (the write is in); the outage is logged once, there. */
  constructor(private readonly database: DatabaseOutage = noDatabaseOutage) {}

  add(waiter: ReadSideWaiter): void {
    this.waiters.push(waiter);
  }

  async waitForPosition(position: bigint, timeoutMs: number, write?: CommittedWrite): Promise<boolean> {
    const results = await Promise.all(this.waiters.map((waiter) => waiter.waitForPosition(position, timeoutMs, write).catch((error: unknown) => {
      if (this.database.report(error)) return true;
      throw error;
    })));
    return results.every(Boolean);
  }
}
