import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { configureFastify, createFastifyAdapter } from './fastify-setup.js';

const REQUEST_TIMEOUT_MS = 1000;

/** A client in a process of its own: it sends `raw` at once and prints what came back. */
const sendFrom = async (port: number, raw: string): Promise<string> => {
  const script = `const s = require('net').connect(${port}, '127.0.0.1', () => s.write(${JSON.stringify(raw)}));
let answer = ''; s.on('data', (c) => { answer += c; }); s.on('close', () => process.stdout.write(answer));`;
  return (await promisify(execFile)(process.execPath, ['-e', script], { timeout: 20_000 })).stdout;
};

describe('request timeouts against a busy process', () => {
  const adapter = createFastifyAdapter('', REQUEST_TIMEOUT_MS);
  const instance = adapter.getInstance();
  let port = 0;

  beforeAll(async () => {
    configureFastify(instance);
    instance.get('/ping', async () => ({ ok: true }));
    instance.post('/echo', async (request) => ({ got: request.body }));
    await instance.listen({ port: 0, host: '127.0.0.1' });
    port = (instance.server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await instance.close();
  });

  // Node checks the limits on a timer, and after a long turn of the event loop timers run before
  // the sockets are read: a request that arrived whole while the process was busy must not be blamed
  // on its client.
  it.each([
    ['a GET', 'GET /ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', '{"ok":true}'],
    ['a POST with its body', 'POST /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi', '{"got":"hi"}'],
  ])('%s that arrived whole while the process was busy past the limits is answered, not 408', async (_label, raw, body) => {
    instance.server.once('connection', () => {
      const until = Date.now() + 2.5 * REQUEST_TIMEOUT_MS;
      while (Date.now() < until);
    });
    const answer = await sendFrom(port, raw);
    expect({ status: answer.split('\r\n')[0], body: answer.split('\r\n\r\n')[1] }).toEqual({ status: 'HTTP/1.1 200 OK', body });
  }, 30_000);

  it('a request still incomplete after the limits is answered 408', async () => {
    const answer = await sendFrom(port, 'GET /ping HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n[^]*"code":"request_timeout"/);
  }, 30_000);
});
