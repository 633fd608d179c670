import { MicroBatcher } from './micro-batcher.js';

class Refused extends Error {}

/** A batch runner that records every batch it is given and answers each input doubled, 5 ms later. */
const recording = (options: { refuse?: (input: number) => boolean; lost?: boolean } = {}) => {
  const batches: number[][] = [];
  const run = async (inputs: readonly number[]): Promise<number[]> => {
    batches.push([...inputs]);
    await new Promise<void>((done) => setTimeout(done, 5));
    if (options.lost && inputs.length > 1) throw new Error('connection lost');
    if (inputs.some((input) => options.refuse?.(input))) throw new Refused(`refused ${inputs.join(',')}`);
    return inputs.map((input) => input * 2);
  };
  return { batches, run };
};

describe('MicroBatcher', () => {
  it('runs the calls of one turn as one batch, and those made while it runs as the next one', async () => {
    const runner = recording();
    const batcher = new MicroBatcher<number, number>({ run: runner.run });
    const first = [1, 2, 3].map((input) => batcher.submit(input));
    await new Promise((done) => setImmediate(done));
    expect(runner.batches).toStrictEqual([[1, 2, 3]]);
    const second = [4, 5].map((input) => batcher.submit(input));
    expect(await Promise.all([...first, ...second])).toStrictEqual([2, 4, 6, 8, 10]);
    expect(runner.batches).toStrictEqual([[1, 2, 3], [4, 5]]);
  });

  it('never puts two inputs with one key in a batch, and keeps each key in call order', async () => {
    const runner = recording();
    const batcher = new MicroBatcher<number, number>({ run: runner.run, keyOf: (input) => String(input % 10) });
    const answers = await Promise.all([1, 11, 2, 21, 3, 12].map((input) => batcher.submit(input)));
    expect(answers).toStrictEqual([2, 22, 4, 42, 6, 24]);
    expect(runner.batches).toStrictEqual([[1, 2, 3], [11, 12], [21]]);
  });

  it('caps a batch at maxBatchSize', async () => {
    const runner = recording();
    const batcher = new MicroBatcher<number, number>({ run: runner.run, maxBatchSize: 2 });
    await Promise.all([1, 2, 3, 4, 5].map((input) => batcher.submit(input)));
    expect(runner.batches).toStrictEqual([[1, 2], [3, 4], [5]]);
  });

  it('runs a refused batch again one input at a time: only the refused caller fails', async () => {
    const runner = recording({ refuse: (input) => input === 3 });
    const batcher = new MicroBatcher<number, number>({ run: runner.run, retryAlone: (error) => error instanceof Refused });
    const settled = await Promise.allSettled([1, 2, 3, 4].map((input) => batcher.submit(input)));
    expect(settled.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : (outcome.reason as Error).message)))
      .toStrictEqual([2, 4, 'refused 3', 8]);
    expect(runner.batches).toStrictEqual([[1, 2, 3, 4], [1], [2], [3], [4]]);
  });

  it('fails every caller of a batch, without running it again, when the error may have left work done', async () => {
    const runner = recording({ lost: true });
    const batcher = new MicroBatcher<number, number>({ run: runner.run, retryAlone: (error) => error instanceof Refused });
    const settled = await Promise.allSettled([1, 2].map((input) => batcher.submit(input)));
    expect(settled.map(({ status }) => status)).toStrictEqual(['rejected', 'rejected']);
    expect(runner.batches).toStrictEqual([[1, 2]]);
    expect(await batcher.submit(7)).toBe(14);
  });
});
