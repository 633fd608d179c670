import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * A Lua script run by its SHA, the body sent again on NOSCRIPT (a restart, SCRIPT FLUSH). Redis runs
 * each script atomically: that makes the callers' check-then-write sequences race-free.
 */
export class LuaScript {
  private readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source, 'utf8').digest('hex');
  }

  async run(redis: Redis, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}

/** Scripts answer arrays; this reads one without trusting its shape. */
export const replyArray = (reply: unknown): unknown[] => {
  if (!Array.isArray(reply)) throw new Error(`unexpected Redis script reply: ${String(reply)}`);
  return reply;
};

export const replyInteger = (reply: unknown): number => {
  const value = typeof reply === 'string' ? Number(reply) : reply;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new Error(`unexpected Redis integer: ${String(reply)}`);
  return value;
};

export const replyString = (reply: unknown): string => {
  if (typeof reply === 'string') return reply;
  if (Buffer.isBuffer(reply)) return reply.toString('utf8');
  throw new Error(`unexpected Redis string: ${String(reply)}`);
};
