import { Redis } from 'ioredis';
import { hashTagged } from '#platform';
import { internal } from './support/client.js';
import { email } from './support/core-helpers.js';
import { OwnRedis } from './support/faults-processes.js';
import { eventually, sleep, startWebhookReceiver, type WebhookReceiver } from './support/messaging-receivers.js';
import { world } from './support/messaging-world.js';
import { type RunningService, startService } from './support/service.js';

const BACKOFF_MS = 3000;
const timed = async <T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> => {
  const started = Date.now();
  const value = await work();
  return { value, ms: Date.now() - started };
};
const lines = (output: string, text: string): number => output.split('\n').filter((line) => line.includes(text)).length;

describe('faults: the service\'s Redis stops, and comes back empty', () => {
  let redis: OwnRedis;
  let service: RunningService;
  let receiver: WebhookReceiver;
  const prefix = `faults-${Date.now().toString(36)}`;

  beforeAll(async () => {
    redis = await OwnRedis.start();
    receiver = await startWebhookReceiver(() => ({ status: 200 }));
    service = await startService({ REDIS_URL: redis.url, QUEUE_PREFIX: prefix, LOG_LEVEL: 'info', WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_BACKOFF_MS: String(BACKOFF_MS) });
  }, 90_000);

  // A graceful stop after the outage may take a while (processes.ts kills after 15 s): more than the hook's default 5 s.
  afterAll(async () => {
    await service?.stop();
    await receiver?.close();
    await redis?.close();
  }, 30_000);

  it('3. during the outage writes answer at once, authenticated requests answer 500 server_error within two seconds, and the log says it once', async () => {
    const w = world(service);
    const ws = await w.workspace();
    const assessment = await w.assessment(ws.live);
    await redis.crash();
    await sleep(500);

    const write = await timed(() => internal(service).call('POST', '/internal/workspaces', { name: 'During the outage' }));
    expect(write.value.status).toBe(201);
    expect(write.ms).toBeLessThan(2000);
    const registered = await timed(() => internal(service).register({ inviteUrl: assessment.inviteUrl, email: email('outage') }));
    expect(registered.value.status).toBe(201);
    expect(registered.ms).toBeLessThan(2000);
    // What the write changed can be read at once.
    expect((await internal(service).call('GET', `/internal/workspaces/${write.value.body.data.id}/billing`)).status).toBe(200);

    for (let attempt = 0; attempt < 5; attempt += 1) {
      const read = await timed(() => ws.live.get('/v1/me'));
      expect(read.ms).toBeLessThan(2000);
      expect({ status: read.value.status, body: read.value.body }).toEqual({ status: 500, body: { error: { code: 'server_error', message: expect.any(String) } } });
      expect(Number(read.value.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    await sleep(3000);
    const output = service.output();
    expect(lines(output, 'Redis is unreachable')).toBe(1);
    expect(lines(output, '"stack"')).toBe(0);

    await redis.start();
    await eventually(async () => (await ws.live.get('/v1/me')).status, (status) => status === 200, 15_000, 'the API after Redis is back');
    // Log lines reach us asynchronously: wait for the line, then check it came once.
    await eventually(async () => lines(service.output(), 'Redis is reachable again'), (count) => count >= 1, 5000, 'the log line saying Redis is back');
    await sleep(1000);
    expect(lines(service.output(), 'Redis is reachable again')).toBe(1);
  }, 60_000);

  it('2. a retry scheduled in Redis survives Redis restarting empty, and the purge schedule is registered again', async () => {
    const w = world(service);
    receiver.respond = (_request, index) => ({ status: index === 0 ? 500 : 200 });
    const ws = await w.workspace({ url: receiver.url, events: ['candidateCreated'] });
    const assessment = await w.assessment(ws.live);
    await w.register({ inviteUrl: assessment.inviteUrl, email: email('retry') });
    const [failedOnce] = await eventually(() => w.deliveries(ws.id), (rows) => rows.length === 1 && rows[0]?.attempts === 1, 15_000, 'the first failed attempt');
    expect(failedOnce?.status).toBe('pending');

    await redis.crash();
    await redis.start();

    const [delivered] = await eventually(() => w.deliveries(ws.id), (rows) => rows[0]?.status === 'succeeded', BACKOFF_MS + 20_000, 'the retry after Redis came back empty');
    expect(delivered?.attempts).toBe(2);
    expect(receiver.requests).toHaveLength(2);
    const client = new Redis(redis.url);
    try {
      const schedulers = await eventually(() => client.zcard(`${hashTagged(prefix)}:messaging-maintenance:repeat`), (count) => count >= 1, 10_000, 'the purge scheduler');
      expect(schedulers).toBe(1);
    } finally {
      client.disconnect();
    }
  }, 60_000);
});
