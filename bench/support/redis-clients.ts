import { readFile, readdir, readlink } from 'node:fs/promises';

const REDIS_PORT_HEX = (Number(new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379').port || 6379)).toString(16).toUpperCase().padStart(4, '0');

/**
 * The local ports of a process's TCP connections to Redis (Linux /proc), so that a MONITOR on a
 * Redis shared with other work counts only that process's commands.
 */
export const redisPortsOf = async (pid: number | undefined): Promise<Set<number>> => {
  const ports = new Set<number>();
  if (pid === undefined) return ports;
  const inodes = new Set<string>();
  for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [] as string[])) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    const match = /^socket:\[(\d+)\]$/.exec(target);
    if (match?.[1]) inodes.add(match[1]);
  }
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [local, remote, inode] = [fields[1], fields[2], fields[9]];
      if (!local || !remote || !inode || !inodes.has(inode)) continue;
      if (remote.split(':')[1] === REDIS_PORT_HEX) ports.add(Number.parseInt(local.split(':')[1] ?? '0', 16));
    }
  }
  return ports;
};
