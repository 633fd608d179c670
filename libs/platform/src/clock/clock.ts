import { randomUUID } from 'node:crypto';

/** The domain clock: every time the domain writes or compares comes from here. */
export interface Clock {
  now(): Promise<string>;
}

export const systemClock: Clock = { now: async () => new Date().toISOString() };

export const SIMULATED_CLOCK_STREAM = 'simulated-clock';
export const MAX_ADVANCE_SECONDS = 315_360_000;

/** An event as the simulated clock appends it: the shape of the event store's `NewEvent`. */
export interface ClockEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
  metadata: { correlationId: string; causationId: string | null; actor: string; requestId: string; time: string };
}

/**
 * What the simulated clock needs of an event store, declared here so that the platform imports none
 * of our libraries: the `EventStore` of libs/event-store has this shape.
 */
export interface ClockEventLog {
  /** Events of one stream in revision order; [] when the stream does not exist. */
  readStream(streamId: string): Promise<readonly { revision: number; data: object }[]>;
  /** Appends to one stream if its last revision is `expectedRevision`; otherwise fails with a WrongExpectedRevisionError. */
  appendToStream(streamId: string, events: ClockEvent[], options: { expectedRevision: number | 'no_stream' }): Promise<unknown>;
}

/** True for the event store's conflict (its WrongExpectedRevisionError), recognised by name: another append came first. */
export const isWrongExpectedRevision = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'WrongExpectedRevisionError';

/**
 * The simulated clock is real time plus an offset that only grows. The offset is recorded as events
 * (so auditors can replay what time the domain believed) and read from the store on every call, so
 * that every process of the service agrees at once and a restart never moves time back.
 */
export class SimulatedClock implements Clock {
  private lastIssued = 0;

  constructor(private readonly store: ClockEventLog) {}

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
        if (!isWrongExpectedRevision(error)) throw error;
      }
    }
    throw new Error('the simulated clock is contended');
  }
}
