import { Writable } from 'node:stream';
import pino from 'pino';
import { RepeatedProblem, logQueueError } from './redis-errors.js';

const capture = (): { logger: pino.Logger; lines: () => Record<string, any>[] } => {
  const written: string[] = [];
  const sink = new Writable({ write(chunk: Buffer, _encoding, done) { written.push(chunk.toString()); done(); } });
  return { logger: pino({ level: 'info' }, sink), lines: () => written.join('').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line)) };
};

describe('queue errors in the log', () => {
  it('logs jobs Redis lost with its data once, without a stack, and a real error with its stack', () => {
    const { logger, lines } = capture();
    const listener = logQueueError(logger, 'webhook worker error');
    for (let job = 0; job < 20; job += 1) listener(new Error(`Missing key for job webhook-whd_${job}. moveToFinished`));
    listener(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' }));
    listener(new Error('a script failed: wrong number of arguments'));
    expect(lines().map((line) => ({ level: line.level, msg: line.msg, reason: line.reason, stack: typeof line.err?.stack }))).toEqual([
      { level: 40, msg: 'webhook worker error: a job\'s keys were gone from Redis (restarted empty or flushed); its outcome is not recorded in the queue',
        reason: 'Missing key for job webhook-whd_0. moveToFinished', stack: 'undefined' },
      { level: 50, msg: 'webhook worker error', reason: undefined, stack: 'string' },
    ]);
  });

  it('says how often a problem repeated in one more line at the end of its window', async () => {
    const { logger, lines } = capture();
    const problem = new RepeatedProblem(logger, 'dispatcher waiting for Redis', 50);
    for (let attempt = 0; attempt < 5; attempt += 1) problem.report({ reason: 'Stream isn\'t writeable and enableOfflineQueue options is false' });
    await new Promise((resolve) => setTimeout(resolve, 120));
    problem.report({ reason: 'again, after the window' });
    expect(lines().map((line) => [line.msg, line.repeated])).toEqual([
      ['dispatcher waiting for Redis', undefined],
      ['dispatcher waiting for Redis (repeated)', 4],
      ['dispatcher waiting for Redis', undefined],
    ]);
  });
});
