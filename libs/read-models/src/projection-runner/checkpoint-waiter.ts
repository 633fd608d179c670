import type { DocumentStore } from '../shared/document-store.port.js';
import { PositionWaiters, lowestCheckpoint } from './position-waiters.js';

const POLL_INTERVAL_MS = 10;

/**
 * Read-your-writes for a process that does not run the projections (an API process in
 * multi-process mode): polls the checkpoint table while someone is waiting, one query per
 * interval however many callers wait.
 */
export class CheckpointWaiter {
  private readonly waiters = new PositionWaiters();
  private polling = false;

  constructor(private readonly documentStore: DocumentStore, private readonly projectionNames: readonly string[]) {}

  async waitForPosition(position: bigint, timeoutMs: number): Promise<boolean> {
    // Checked before waiting: a rebuild may have moved the checkpoints back since the last poll.
    const current = await this.currentPosition();
    const reached = this.waiters.wait(position, timeoutMs, current);
    if (!this.polling) void this.poll();
    return reached;
  }

  async currentPosition(): Promise<bigint | null> {
    return lowestCheckpoint(await this.documentStore.checkpoints(this.projectionNames));
  }

  private async poll(): Promise<void> {
    this.polling = true;
    try {
      while (this.waiters.size > 0) {
        await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
        try {
          this.waiters.reached(await this.currentPosition());
        } catch {
          // A failed poll is retried at the next interval; each waiter's own timeout bounds the wait.
        }
      }
    } finally {
      this.polling = false;
    }
  }
}
