import { type ClockEventLog, isWrongExpectedRevision } from '#platform';
import { type EventStore, WrongExpectedRevisionError } from './event-store.port.js';

// The platform's simulated clock declares what it needs of a store instead of importing this port.
const usableByTheClock = (store: EventStore): ClockEventLog => store;

describe('the EventStore port, as the simulated clock sees it', () => {
  it('has the shape the clock needs (checked by the compiler) and a conflict it recognises', () => {
    expect(usableByTheClock).toBeInstanceOf(Function);
    expect(isWrongExpectedRevision(new WrongExpectedRevisionError('simulated-clock', 3, 4))).toBe(true);
    expect(isWrongExpectedRevision(new Error('wrong expected revision'))).toBe(false);
  });
});
