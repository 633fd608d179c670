import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freeLoopbackPort } from './free-port.js';

const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);

describe('freeLoopbackPort', () => {
  it('hands out ports outside the ephemeral range, where no outgoing connection can take them, and that one can listen on', async () => {
    const ports = await Promise.all(Array.from({ length: 50 }, () => freeLoopbackPort()));
    for (const port of ports) expect(port >= low && port <= high).toBe(false);
    for (const port of ports) expect(port).toBeGreaterThanOrEqual(10_000);
    const server = createServer();
    await new Promise<void>((listening, failed) => server.once('error', failed).listen(ports[0], '127.0.0.1', listening));
    await new Promise<void>((closed) => server.close(() => closed()));
  });
});
