import { Redis } from 'ioredis';
import { hashTagOf } from '../redis/hash-tags.js';

/** CRC16-XMODEM, the checksum Redis Cluster takes modulo 16384 (cluster specification, appendix A). */
const crc16 = (bytes: Buffer): number => {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
};

/** The Redis Cluster slot of a key: of its hash tag when it has one, else of the whole key. */
export const keySlot = (key: string): number => crc16(Buffer.from(hashTagOf(key) ?? key, 'utf8')) % 16384;

/** One script run or one MULTI ... EXEC as the server saw it: the keys it declared. */
export interface MultiKeyCommand {
  command: string;
  keys: string[];
}

/**
 * Watches the server (MONITOR, on a connection of its own) and keeps every EVAL/EVALSHA and every
 * MULTI ... EXEC whose keys include `needle`: the keys a script declares are the ones Redis Cluster
 * checks for one slot. Commands of other clients on the shared server are left out by the needle.
 */
export const watchMultiKeyCommands = async (redisUrl: string, needle: string): Promise<{ seen: MultiKeyCommand[]; stop(): Promise<void> }> => {
  const client = new Redis(redisUrl);
  const monitor = await client.monitor();
  const seen: MultiKeyCommand[] = [];
  const transactions = new Map<string, string[][]>();
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    const [name = '', ...rest] = args;
    const command = name.toLowerCase();
    if (command === 'multi') transactions.set(source, []);
    else if (command === 'exec') {
      const queued = transactions.get(source) ?? [];
      transactions.delete(source);
      // Each queued command's first argument is its key (all the service's MULTIs are of that kind).
      const keys = queued.map((queuedArgs) => queuedArgs[1] ?? '');
      if (keys.some((key) => key.includes(needle))) seen.push({ command: 'multi', keys });
    } else if (transactions.has(source)) transactions.get(source)?.push(args);
    else if (command === 'eval' || command === 'evalsha') {
      const keys = rest.slice(2, 2 + Number(rest[1]));
      if (keys.some((key) => key.includes(needle))) seen.push({ command, keys });
    }
  });
  return {
    seen,
    stop: async () => {
      // What was sent before stop() reaches the monitor a moment later.
      await new Promise((resolve) => setTimeout(resolve, 200));
      monitor.disconnect();
      client.disconnect();
    },
  };
};
