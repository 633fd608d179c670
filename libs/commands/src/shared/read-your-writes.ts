import type { Logger } from 'pino';
import type { CommittedWrite, ReadSideWaiter } from './ports.js';

/**
 * Read-your-writes: an answer goes once the read side shows the write (bounded wait). Where the
 * read models were updated in the append transaction (inline), they already do: nothing is waited for.
 */
export class ReadYourWrites {
  constructor(private readonly readSide: ReadSideWaiter, private readonly timeoutMs: number, private readonly logger: Logger) {}

  async settle(position: bigint, write: CommittedWrite): Promise<void> {
    const caughtUp = await this.readSide.waitForPosition(position, this.timeoutMs, write).catch((error: unknown) => {
      this.logger.warn({ err: error }, 'waiting for the read side failed; answering anyway');
      return true;
    });
    if (!caughtUp) this.logger.warn({ position: position.toString() }, 'read side did not catch up in time; answering anyway');
  }
}
