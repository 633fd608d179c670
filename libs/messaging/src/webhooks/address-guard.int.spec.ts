import { request } from 'node:http';
import { startHttpReceiver, type HttpReceiver } from '../test-support/http-receiver.js';
import { AddressRefusedError, pinnedLookup, resolveDeliveryTarget } from './address-guard.js';
import { postWebhook } from './post-webhook.js';

describe('webhook address guard', () => {
  let receiver: HttpReceiver;
  let port: string;

  beforeAll(async () => {
    receiver = await startHttpReceiver(() => ({ status: 200 }));
    port = new URL(receiver.url).port;
  });
  afterAll(async () => receiver.close());

  it.each([
    ['a loopback IP', () => `https://127.0.0.1:${port}/hooks`],
    ['a name resolving to loopback', () => `https://localhost:${port}/hooks`],
    ['an IPv6 loopback', () => `https://[::1]:${port}/hooks`],
    ['a private IP', () => 'https://10.1.2.3/hooks'],
    ['plain http', () => 'http://93.184.215.14/hooks'],
    ['credentials', () => 'https://user:pw@93.184.215.14/hooks'],
  ])('refuses %s unless insecure addresses are allowed', async (_name, url) => {
    await expect(resolveDeliveryTarget(url(), false)).rejects.toBeInstanceOf(AddressRefusedError);
  });

  it('accepts loopback over http when insecure addresses are allowed', async () => {
    await expect(resolveDeliveryTarget(`http://localhost:${port}/hooks`, true)).resolves.toMatchObject({ address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) });
  });

  it('a refused address is a connection_failed attempt and nothing reaches it', async () => {
    const outcome = await postWebhook({ url: `https://127.0.0.1:${port}/hooks`, body: '{}', headers: {}, timeoutMs: 1000, allowInsecure: false });
    expect(outcome).toMatchObject({ responseStatus: null, error: 'connection_failed' });
    expect(outcome.detail).toMatch(/non-public address 127\.0\.0\.1/);
    const insecure = await postWebhook({ url: `http://127.0.0.1:${port}/hooks`, body: '{}', headers: {}, timeoutMs: 1000, allowInsecure: false });
    expect(insecure.error).toBe('connection_failed');
    expect(receiver.requests).toHaveLength(0);
  });

  it('a name that does not resolve is connection_failed', async () => {
    const outcome = await postWebhook({ url: `http://no-such-host.invalid:${port}/hooks`, body: '{}', headers: {}, timeoutMs: 1000, allowInsecure: true });
    expect(outcome).toMatchObject({ responseStatus: null, error: 'connection_failed' });
  });

  it('the pinned lookup connects to the checked address whatever the host name says', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`http://rebinding.invalid:${port}/hooks`, { method: 'POST', lookup: pinnedLookup({ address: '127.0.0.1', family: 4 }), agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end('{}');
    });
    expect(status).toBe(200);
    expect(receiver.requests.at(-1)?.headers.host).toBe(`rebinding.invalid:${port}`);
  });
});
