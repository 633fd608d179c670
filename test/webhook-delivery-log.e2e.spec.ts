import { jest } from '@jest/globals';
import { api, request } from './support/client.js';
import { expectError } from './support/core-helpers.js';
import { eventually, startWebhookReceiver, type WebhookReceiver } from './support/messaging-receivers.js';
import { type Delivery, world } from './support/messaging-world.js';
import { type RunningService, startService } from './support/service.js';

jest.setTimeout(60_000);

/**
 * `GET /internal/workspaces/{id}/webhook-deliveries` a page at a time: `limit` (1 to 1000, 1000 when
 * absent: the whole first page it always answered) and `cursor` from `meta.nextCursor`, signed and
 * bound to the workspace, as the public lists take them.
 */
describe('the webhook delivery log, paged', () => {
  let service: RunningService;
  let hooks: WebhookReceiver;
  let w: ReturnType<typeof world>;

  beforeAll(async () => {
    [service, hooks] = await Promise.all([startService({ WEBHOOK_ALLOW_INSECURE: 'true' }), startWebhookReceiver()]);
    w = world(service);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([service?.stop(), hooks?.close()]);
  });

  const logPath = (workspaceId: string, query = '') => `/internal/workspaces/${workspaceId}/webhook-deliveries${query}`;
  const page = async (workspaceId: string, query: string) => {
    const answer = await w.app.call('GET', logPath(workspaceId, query));
    expect(answer.status).toBe(200);
    return answer.body as { data: Delivery[]; meta: { nextCursor: string | null } };
  };

  /** A workspace whose webhook got `count` candidateInvited deliveries (one invitation request), every one ended. */
  const workspaceWithDeliveries = async (count: number) => {
    const ws = await w.workspace({ url: hooks.url, events: ['candidateInvited'] });
    const assessment = await w.assessment(ws.live);
    const invite = async (n: number, label: string) =>
      w.invite(ws.live, assessment.id, Array.from({ length: n }, (_, index) => ({ email: `${label}-${index}-${ws.id.toLowerCase()}@example.com` })));
    await invite(count, 'first');
    await eventually(() => w.deliveries(ws.id), (rows) => rows.length === count && rows.every((row) => row.status === 'succeeded'), 20_000, `${count} deliveries`);
    return { ws, invite };
  };

  /** Every page from the first, `limit` rows each: the rows and the page sizes. */
  const walk = async (workspaceId: string, limit: number, first?: string) => {
    const rows: Delivery[] = [];
    const sizes: number[] = [];
    let cursor: string | null | undefined = first;
    do {
      const answer = await page(workspaceId, `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      rows.push(...answer.data);
      sizes.push(answer.data.length);
      cursor = answer.meta.nextCursor;
    } while (cursor !== null && sizes.length < 50);
    return { ids: rows.map((row) => row.id), sizes };
  };

  it('answers without parameters what it always did, the whole log newest first, now with meta.nextCursor null', async () => {
    const { ws } = await workspaceWithDeliveries(7);
    const whole = await page(ws.id, '');
    expect(whole.data).toHaveLength(7);
    expect(whole.meta).toStrictEqual({ nextCursor: null });
    const times = whole.data.map((row) => row.createdAt);
    expect([...times].sort().reverse()).toStrictEqual(times);
    expect(await page(ws.id, '?limit=1000')).toStrictEqual(whole);
  });

  it('pages newest first, limit rows a page: the pages together are the whole log, each row once, the last with no cursor', async () => {
    const { ws } = await workspaceWithDeliveries(7);
    const whole = (await page(ws.id, '')).data.map((row) => row.id);
    expect(await walk(ws.id, 3)).toStrictEqual({ ids: whole, sizes: [3, 3, 1] });
    expect(await walk(ws.id, 1)).toStrictEqual({ ids: whole, sizes: [1, 1, 1, 1, 1, 1, 1] });
    // Exactly one page: no empty page after it.
    expect(await walk(ws.id, 7)).toStrictEqual({ ids: whole, sizes: [7] });
  });

  it('keeps its place: deliveries made after the first page go before it, and the rest reads on as it stood', async () => {
    const { ws, invite } = await workspaceWithDeliveries(5);
    const before = (await page(ws.id, '')).data.map((row) => row.id);
    const first = await page(ws.id, '?limit=2');
    expect(first.data.map((row) => row.id)).toStrictEqual(before.slice(0, 2));
    await invite(3, 'later');
    await eventually(() => w.deliveries(ws.id), (rows) => rows.length === 8, 20_000, 'three more deliveries');
    expect(await walk(ws.id, 2, first.meta.nextCursor ?? undefined)).toStrictEqual({ ids: before.slice(2), sizes: [2, 1] });
    const now = (await page(ws.id, '')).data.map((row) => row.id);
    expect(now.slice(3)).toStrictEqual(before);
  });

  it('refuses a limit out of its rule (400 invalid_parameter) and a cursor it did not issue for this workspace (400 invalid_cursor)', async () => {
    const { ws } = await workspaceWithDeliveries(3);
    const other = await workspaceWithDeliveries(3);
    for (const limit of ['0', '1001', '-1', '1.5', 'abc', '', '1e2', '2&limit=3']) {
      expectError(await w.app.call('GET', logPath(ws.id, `?limit=${limit}`)), 400, 'invalid_parameter');
    }
    const cursor = (await page(ws.id, '?limit=1')).meta.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    const valid = cursor ?? '';
    const edited = `${valid.slice(0, -2)}${valid.endsWith('AA') ? 'AB' : 'AA'}`;
    await w.assessment(ws.live);
    const publicCursor: unknown = (await api(service, ws.liveCredential).get('/v1/assessments?limit=1')).body.meta.nextCursor;
    expect(publicCursor).toEqual(expect.any(String));
    const otherCursor = (await page(other.ws.id, '?limit=1')).meta.nextCursor ?? '';
    for (const bad of ['garbage', edited, otherCursor, String(publicCursor), '']) {
      expectError(await w.app.call('GET', logPath(ws.id, `?cursor=${encodeURIComponent(bad)}`)), 400, 'invalid_cursor');
    }
    expectError(await w.app.call('GET', logPath(ws.id, `?cursor=${encodeURIComponent(valid)}&cursor=${encodeURIComponent(valid)}`)), 400, 'invalid_cursor');
    // The cursor is still good where it was issued, and the refusals changed nothing.
    expect((await page(ws.id, `?limit=5&cursor=${encodeURIComponent(valid)}`)).data).toHaveLength(2);
    expectError(await w.app.call('GET', logPath('ws_unknown', '?limit=2')), 404, 'not_found');
    const unauthorized = await request(`${service.internalUrl}${logPath(ws.id, `?cursor=${encodeURIComponent(valid)}`)}`);
    expectError(unauthorized, 401, 'unauthorized');
  });
});
