import { randomUUID } from 'node:crypto';
import type { EventStore } from '#event-store';

/** The domain clock: every time the domain writes or compares comes from here. */
export interface Clock {
  now(): Promise<string>;
}

export const systemClock: Clock = { now: async () => new Date().toISOString() };

export const SIMULATED_CLOCK_STREAM = 'simulated-clock';
export const MAX_ADVANCE_SECONDS = 315_360_000;

/**
 * The simulated clock is real time plus an offset that only grows. The offset is recorded as events
 * (so auditors can replay what time the domain believed) and read from the store on every call, so
 * that every process of the service agrees at once and a restart never moves time back.
 */
export class SimulatedClock implements Clock {
  private lastIssued = 0;

  constructor(private readonly store: EventStore) {}

  private async offsetMs(): Promise<{ offsetMs: number; revision: number | 'no_stream' }> {
    const events = await this.store.readStream(SIMULATED_CLOCK_STREAM);
    const last = events.at(-1);
    const offsetMs = last ? Number((last.data as { offsetMs?: number }).offsetMs ?? 0) : 0;
    return { offsetMs, revision: last ? last.revision : 'no_stream' };
  }

  async now(): Promise<string> {
    const { offsetMs } = await this.offsetMs();
    // Monotonic within the process even if the wall clock steps back.
    this.lastIssued = Math.max(this.lastIssued, Date.now() + offsetMs);
    return new Date(this.lastIssued).toISOString();
  }

  async advance(seconds: number, requestId: string): Promise<string> {
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const { offsetMs, revision } = await this.offsetMs();
      const next = offsetMs + seconds * 1000;
      const time = new Date(Date.now() + next).toISOString();
      try {
        await this.store.appendToStream(
          SIMULATED_CLOCK_STREAM,
          [{ id: randomUUID(), type: 'SimulatedClockAdvanced', data: { advanceSeconds: seconds, offsetMs: next, now: time }, metadata: { correlationId: requestId, causationId: null, actor: 'internal', requestId, time } }],
          { expectedRevision: revision },
        );
        return this.now();
      } catch (error) {
        if ((error as Error).name !== 'WrongExpectedRevisionError') throw error;
      }
    }
    throw new Error('the simulated clock is contended');
  }
}
