import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The kernel's range for outgoing connections and `listen(0)`; Linux's default when it cannot be read. */
const ephemeralRange = (): [number, number] => {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high)) return [low, high];
  } catch {
    // not Linux
  }
  return [32768, 60999];
};

const canListen = (port: number): Promise<boolean> =>
  new Promise((answer) => {
    const server = createServer();
    server.once('error', () => answer(false));
    server.listen(port, '127.0.0.1', () => server.close(() => answer(true)));
  });

/**
 * A free loopback port for a child process, at random outside the kernel's ephemeral range: a `listen(0)`
 * port may be taken by any outgoing connection before the child binds it; outside, only an explicit bind can.
 */
export const freeLoopbackPort = async (): Promise<number> => {
  const [low, high] = ephemeralRange();
  const below = Math.max(0, low - 10_000);
  const above = Math.max(0, 65_535 - high);
  if (below + above === 0) throw new Error(`the ephemeral port range ${low}-${high} leaves no port to pick`);
  for (let attempt = 0; attempt < 100; attempt++) {
    const pick = Math.floor(Math.random() * (below + above));
    const port = pick < below ? 10_000 + pick : high + 1 + (pick - below);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free loopback port outside the ephemeral range ${low}-${high}`);
};
