import { isRedisConnectionError } from './redis-unavailable.js';

describe('isRedisConnectionError', () => {
  it('knows what ioredis and BullMQ report while Redis cannot be reached, by message or by code', () => {
    const unreachable = [
      new Error('connect ECONNREFUSED 127.0.0.1:6379'),
      new Error('Connection is closed.'),
      new Error("Stream isn't writeable and enableOfflineQueue options is false"),
      new Error('Reached the max retries per request limit (which is 20). Refer to "maxRetriesPerRequest" option for details.'),
      new Error('LOADING Redis is loading the dataset in memory'),
      Object.assign(new Error('read failed'), { code: 'ECONNRESET' }),
    ];
    for (const error of unreachable) expect(isRedisConnectionError(error)).toBe(true);
  });

  it('leaves every other error, and what is not an error, to be reported', () => {
    const others = [
      new Error('ERR wrong number of arguments'), new TypeError('x is undefined'), Object.assign(new Error('duplicate'), { code: '23505' }),
      'ECONNREFUSED', { message: 'ECONNREFUSED' }, null,
    ];
    for (const error of others) expect(isRedisConnectionError(error)).toBe(false);
  });
});
