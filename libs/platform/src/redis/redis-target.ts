import { StartRefused } from '../config/start-refused.js';

/**
 * Where Redis is: one address (REDIS_URL), or a master found through Redis Sentinel
 * (REDIS_SENTINELS, REDIS_SENTINEL_NAME), with the passwords given apart from the addresses.
 */
export type RedisTarget =
  | { kind: 'url'; url: string; password: string | null }
  | {
    kind: 'sentinel';
    sentinels: readonly { host: string; port: number }[];
    /** The master's name as the sentinels monitor it. */
    name: string;
    sentinelPassword: string | null;
    password: string | null;
  };

const DEFAULT_SENTINEL_PORT = 26379;

/** `host:port,host:port,...` (IPv6 in brackets); a refusal names the setting, not its value. */
export const parseSentinels = (value: string, setting = 'REDIS_SENTINELS'): { host: string; port: number }[] => {
  const entries = value.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  if (entries.length === 0) throw new StartRefused(`${setting} must list at least one host:port`);
  return entries.map((entry) => {
    const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry) ?? /^([^:[\]]+)(?::(\d+))?$/.exec(entry);
    const port = match?.[2] === undefined ? DEFAULT_SENTINEL_PORT : Number(match[2]);
    if (!match?.[1] || !Number.isInteger(port) || port < 1 || port > 65535) {
      throw new StartRefused(`${setting} must be a comma-separated list of host:port, got an entry it cannot read`);
    }
    return { host: match[1], port };
  });
};

/** host:port of each place Redis is looked for, without credentials: for the log. */
export const redisTargetAddress = (target: RedisTarget): string => {
  if (target.kind === 'sentinel') return `sentinel ${target.name} at ${target.sentinels.map(({ host, port }) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`)).join(',')}`;
  try {
    const parsed = new URL(target.url);
    return parsed.host || parsed.pathname;
  } catch {
    return 'the configured address';
  }
};
