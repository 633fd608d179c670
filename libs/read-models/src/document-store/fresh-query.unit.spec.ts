import { FreshQuery } from './fresh-query.js';

/** A query whose answers the test gives by hand: it records when each one started. */
const manualQuery = () => {
  const runs: { answer(value: number): void; fail(error: Error): void }[] = [];
  const query = new FreshQuery<number>(() => new Promise<number>((answer, fail) => runs.push({ answer, fail })));
  return { query, runs };
};

const settle = () => new Promise((resolveLater) => setImmediate(resolveLater));

describe('FreshQuery: an answer read after the caller asked, shared by those who asked meanwhile', () => {
  it('never hands a caller the answer of a query that was already running when it asked', async () => {
    const { query, runs } = manualQuery();
    const first = query.ask();
    expect(runs.length).toBe(1);
    // Asked while the first runs: it must wait for a query that starts after it.
    const second = query.ask();
    const third = query.ask();
    expect(runs.length).toBe(1);
    runs[0]?.answer(10);
    await expect(first).resolves.toBe(10);
    await settle();
    expect(runs.length).toBe(2);
    // Asked while the second runs: a third query, not the second's answer.
    const fourth = query.ask();
    runs[1]?.answer(20);
    await expect(second).resolves.toBe(20);
    await expect(third).resolves.toBe(20);
    await settle();
    expect(runs.length).toBe(3);
    runs[2]?.answer(30);
    await expect(fourth).resolves.toBe(30);
    expect(query.started).toBe(3);
  });

  it('keeps nothing: a caller after everything settled starts a query of its own', async () => {
    const { query, runs } = manualQuery();
    const first = query.ask();
    runs[0]?.answer(1);
    await first;
    const later = query.ask();
    expect(runs.length).toBe(2);
    runs[1]?.answer(2);
    await expect(later).resolves.toBe(2);
  });

  it('fails only the callers of the query that failed; those waiting for the next get its answer', async () => {
    const { query, runs } = manualQuery();
    const failing = query.ask();
    const waiting = query.ask();
    runs[0]?.fail(new Error('primary gone'));
    await expect(failing).rejects.toThrow('primary gone');
    await settle();
    runs[1]?.answer(7);
    await expect(waiting).resolves.toBe(7);
  });
});
