import { type ClockEvent, type ClockEventLog, SIMULATED_CLOCK_STREAM, SimulatedClock, isWrongExpectedRevision } from './clock.js';

/** One stream in memory, with the event store's optimistic concurrency; `interleave` appends first once. */
const memoryLog = (interleave?: () => ClockEvent) => {
  const events: ClockEvent[] = [];
  const appends: (number | 'no_stream')[] = [];
  let pending = interleave;
  const log: ClockEventLog = {
    readStream: async () => events.map((event, revision) => ({ revision, data: event.data })),
    appendToStream: async (_streamId, added, { expectedRevision }) => {
      appends.push(expectedRevision);
      if (pending) {
        events.push(pending());
        pending = undefined;
      }
      const actual = events.length === 0 ? 'no_stream' : events.length - 1;
      if (actual !== expectedRevision) throw Object.assign(new Error('conflict'), { name: 'WrongExpectedRevisionError' });
      events.push(...added);
      return {};
    },
  };
  return { log, events, appends };
};

const advanced = (offsetMs: number): ClockEvent => ({
  id: `e-${offsetMs}`, type: 'SimulatedClockAdvanced', data: { offsetMs },
  metadata: { correlationId: 'r', causationId: null, actor: 'internal', requestId: 'r', time: new Date().toISOString() },
});

describe('SimulatedClock', () => {
  it('records each advance on its stream after the last revision it read', async () => {
    const { log, events, appends } = memoryLog();
    const clock = new SimulatedClock(log);
    const before = Date.now();
    await clock.advance(60, 'req-1');
    const now = Date.parse(await clock.advance(3600, 'req-2'));
    expect(appends).toEqual(['no_stream', 0]);
    expect(events.map((event) => event.data)).toMatchObject([{ advanceSeconds: 60, offsetMs: 60_000 }, { advanceSeconds: 3600, offsetMs: 3_660_000 }]);
    expect(events[1]?.metadata).toMatchObject({ correlationId: 'req-2', requestId: 'req-2', actor: 'internal' });
    expect(now).toBeGreaterThanOrEqual(before + 3_660_000);
    expect(SIMULATED_CLOCK_STREAM).toBe('simulated-clock');
  });

  it('reads again and adds to the offset another process recorded when its append conflicts', async () => {
    const { log, events, appends } = memoryLog(() => advanced(10_000));
    await new SimulatedClock(log).advance(5, 'req-1');
    expect(appends).toEqual(['no_stream', 0]);
    expect(events.map((event) => event.data.offsetMs)).toEqual([10_000, 15_000]);
  });

  it('lets any other error of the store through', async () => {
    const log: ClockEventLog = { readStream: async () => [], appendToStream: async () => { throw new Error('store down'); } };
    await expect(new SimulatedClock(log).advance(5, 'req-1')).rejects.toThrow('store down');
  });

  it('recognises a conflict by the error name only', () => {
    expect(isWrongExpectedRevision(Object.assign(new Error('x'), { name: 'WrongExpectedRevisionError' }))).toBe(true);
    for (const other of [new Error('WrongExpectedRevisionError'), null, undefined, 'WrongExpectedRevisionError']) expect(isWrongExpectedRevision(other)).toBe(false);
  });
});
