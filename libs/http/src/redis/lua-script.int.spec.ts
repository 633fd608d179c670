import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { connectRedis, deleteKeys, uniquePrefix } from '../testing/redis-test-client.js';
import { LuaScript, replyArray, replyInteger, replyString } from './lua-script.js';

describe('LuaScript (real Redis)', () => {
  let redis: Redis;
  let prefix: string;

  beforeAll(() => {
    redis = connectRedis();
    prefix = uniquePrefix('lua-script');
  });

  afterAll(async () => {
    await deleteKeys(redis, prefix);
    await redis.quit();
  });

  it('sends the body when the server does not know the script, then runs it by SHA', async () => {
    // A body no server has seen, so the first run must take the NOSCRIPT path.
    const script = new LuaScript(`-- ${randomUUID()}\nreturn redis.call('INCR', KEYS[1]) + tonumber(ARGV[1])`);
    const key = `${prefix}counter`;
    expect(await script.run(redis, [key], [10])).toBe(11);
    expect(await script.run(redis, [key], [10])).toBe(12);
  });

  it('passes other script errors through', async () => {
    const script = new LuaScript(`-- ${randomUUID()}\nreturn redis.call('NOT_A_COMMAND')`);
    await expect(script.run(redis, [], [])).rejects.toThrow();
  });
});

describe('reply readers', () => {
  it('read well-formed replies and refuse others', () => {
    expect(replyArray([1])).toEqual([1]);
    expect(replyInteger(3)).toBe(3);
    expect(replyInteger('4')).toBe(4);
    expect(replyString('x')).toBe('x');
    expect(replyString(Buffer.from('y'))).toBe('y');
    expect(() => replyArray('x')).toThrow();
    expect(() => replyInteger('1.5')).toThrow();
    expect(() => replyString(1)).toThrow();
  });
});
