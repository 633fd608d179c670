import { randomUUID } from 'node:crypto';
import { DispatchCheckpoints } from '../dispatch/dispatch-checkpoints.js';
import { EmailOutbox, emailId } from '../emails/outbox.js';
import { startTestPglite } from '../test-support/pglite.js';
import { createTestDatabase, type TestDatabase } from '../test-support/postgres.js';
import { DeliveryLog, type NewDelivery } from '../webhooks/delivery-log.js';
import { migrateMessagingTables } from './messaging.migrations.js';

const t = (day: number, minute = 0): string => new Date(Date.UTC(2026, 10, day, 9, minute)).toISOString();

// The service runs these stores on a PostgreSQL server or on embedded PGlite behind a one-connection pool.
describe.each([
  ['PostgreSQL', () => createTestDatabase('stores')],
  ['embedded PGlite', startTestPglite],
])('messaging stores on %s', (_backend, open) => {
  let db: TestDatabase;
  let log: DeliveryLog;
  let outbox: EmailOutbox;
  let checkpoints: DispatchCheckpoints;

  beforeAll(async () => {
    db = await open();
    log = new DeliveryLog(db.pool, db.schema);
    outbox = new EmailOutbox(db.pool, db.schema);
    checkpoints = new DispatchCheckpoints(db.pool, db.schema);
    // Twice: a second process starting against the same schema changes nothing.
    for (let round = 0; round < 2; round += 1) {
      await Promise.all([1, 2, 3].map(() => migrateMessagingTables(db.pool, db.schema)));
    }
  }, 30_000);
  afterAll(async () => db.drop());

  const newDelivery = (workspaceId: string, overrides: Partial<NewDelivery> = {}): NewDelivery => ({
    id: `whd_${randomUUID()}`, workspaceId, eventId: randomUUID(), event: 'candidateCreated', url: 'https://hooks.example.com/in',
    body: '{"id":"x","event":"candidateCreated","createdAt":"2026-11-01T09:00:00.000Z","workspaceId":"w","data":{"z":1,"a":2}}',
    sandbox: false, createdAt: t(1), ...overrides,
  });

  it('inserts a delivery once and keeps the envelope bytes exactly', async () => {
    const input = newDelivery('ws_a');
    const first = await log.insertIfAbsent(input);
    const second = await log.insertIfAbsent({ ...input, createdAt: t(2) });
    expect(first.created).toBe(true);
    expect(second).toMatchObject({ created: false, delivery: { createdAt: t(1), status: 'pending', attempts: 0, attemptLog: [] } });
    expect(second.delivery.body).toBe(input.body);
  });

  it('appends attempts oldest first, and only while the delivery is pending', async () => {
    const { delivery } = await log.insertIfAbsent(newDelivery('ws_b'));
    expect(await log.recordAttempt(delivery.id, { at: t(1, 1), responseStatus: 500, durationMs: 12, error: 'http_500' }, 'pending')).toBe(true);
    expect(await log.recordAttempt(delivery.id, { at: t(1, 2), responseStatus: 200, durationMs: 8, error: null }, 'succeeded')).toBe(true);
    expect(await log.get(delivery.id)).toMatchObject({
      status: 'succeeded', attempts: 2, lastResponseStatus: 200, lastError: null, updatedAt: t(1, 2),
      attemptLog: [{ at: t(1, 1), responseStatus: 500, durationMs: 12, error: 'http_500' }, { at: t(1, 2), responseStatus: 200, durationMs: 8, error: null }],
    });
    expect(await log.recordAttempt(delivery.id, { at: t(1, 3), responseStatus: 200, durationMs: 1, error: null }, 'succeeded')).toBe(false);
    await log.failWithoutAttempt(delivery.id, t(1, 4), 'endpoint_disabled');
    expect((await log.get(delivery.id))?.status).toBe('succeeded');
  });

  it('ends a delivery without an attempt: endpoint_disabled only when nothing was sent', async () => {
    const never = (await log.insertIfAbsent(newDelivery('ws_c'))).delivery;
    const tried = (await log.insertIfAbsent(newDelivery('ws_c'))).delivery;
    await log.recordAttempt(tried.id, { at: t(1, 1), responseStatus: null, durationMs: 3, error: 'connection_failed' }, 'pending');
    await log.failWithoutAttempt(never.id, t(1, 2), 'endpoint_disabled');
    await log.failWithoutAttempt(tried.id, t(1, 2), 'endpoint_disabled');
    expect(await log.get(never.id)).toMatchObject({ status: 'failed', attempts: 0, lastError: 'endpoint_disabled' });
    expect(await log.get(tried.id)).toMatchObject({ status: 'failed', attempts: 1, lastError: 'connection_failed' });
  });

  it('lists a workspace newest first, ties in insertion order, and purges by age', async () => {
    const older = await log.insertIfAbsent(newDelivery('ws_d', { createdAt: t(1) }));
    const tieFirst = await log.insertIfAbsent(newDelivery('ws_d', { createdAt: t(3) }));
    const tieSecond = await log.insertIfAbsent(newDelivery('ws_d', { createdAt: t(3) }));
    await log.insertIfAbsent(newDelivery('ws_other', { createdAt: t(1) }));
    const listed = await log.listDeliveries('ws_d');
    expect(listed.map(({ id }) => id)).toStrictEqual([tieSecond.delivery.id, tieFirst.delivery.id, older.delivery.id]);
    expect(listed[0]).not.toHaveProperty('body');
    expect(listed[0]?.envelope).toMatchObject({ data: { z: 1, a: 2 } });
    expect(await log.purgeOlderThan(t(2))).toBeGreaterThanOrEqual(2);
    expect((await log.listDeliveries('ws_d')).map(({ id }) => id)).toStrictEqual([tieSecond.delivery.id, tieFirst.delivery.id]);
    expect(await log.listDeliveries('ws_other')).toStrictEqual([]);
  });

  it('pages a workspace in the list order, ties in insertion order, each row once, and ends with no next place', async () => {
    // The tied rows' sequence numbers cross a power of ten (…998, …999, 1000…): as text they would sort otherwise.
    const table = `${db.schema}.webhook_deliveries`;
    const { rows: [{ max }] } = await db.pool.query(`SELECT coalesce(max(seq), 0)::bigint AS max FROM ${table}`);
    const boundary = 10 ** String(Number(max) + 4).length;
    await db.pool.query(`SELECT setval(pg_get_serial_sequence('${table}', 'seq'), $1)`, [boundary - 4]);
    for (const day of [1, 4, 4, 4, 2, 4, 3]) await log.insertIfAbsent(newDelivery('ws_pages', { createdAt: t(day) }));
    await log.insertIfAbsent(newDelivery('ws_pages_other', { createdAt: t(4) }));
    const listed = (await log.listDeliveries('ws_pages')).map(({ id }) => id);
    expect(listed).toHaveLength(7);
    const paged: string[] = [];
    let page = await log.pageDeliveries('ws_pages', { limit: 2 });
    const sizes = [page.rows.length];
    paged.push(...page.rows.map(({ id }) => id));
    while (page.next) {
      page = await log.pageDeliveries('ws_pages', { limit: 2, after: page.next });
      sizes.push(page.rows.length);
      paged.push(...page.rows.map(({ id }) => id));
    }
    expect(sizes).toStrictEqual([2, 2, 2, 1]);
    expect(paged).toStrictEqual(listed);
    // Exactly a page left: the page before it says so, the last one has no next place.
    const firstSix = await log.pageDeliveries('ws_pages', { limit: 6 });
    expect(firstSix.next).not.toBeNull();
    const rest = await log.pageDeliveries('ws_pages', { limit: 1, ...(firstSix.next ? { after: firstSix.next } : {}) });
    expect(rest).toStrictEqual({ rows: [expect.objectContaining({ id: listed[6] })], next: null });
    const whole = await log.pageDeliveries('ws_pages', { limit: 7 });
    expect({ ids: whole.rows.map(({ id }) => id), next: whole.next }).toStrictEqual({ ids: listed, next: null });
    expect(whole.rows[0]).not.toHaveProperty('body');
  });

  it('measures the failing streak of an address since its last success and since it was enabled', async () => {
    const url = 'https://hooks.example.com/streak';
    const attempt = async (day: number, error: string | null): Promise<void> => {
      const { delivery } = await log.insertIfAbsent(newDelivery('ws_e', { url, createdAt: t(day) }));
      await log.recordAttempt(delivery.id, { at: t(day), responseStatus: error ? 500 : 200, durationMs: 5, error }, error ? 'pending' : 'succeeded');
    };
    expect(await log.addressHealth('ws_e', url)).toStrictEqual({ lastSuccessAt: null, failingSince: null });
    await attempt(2, 'http_500');
    await attempt(3, null);
    expect(await log.addressHealth('ws_e', url)).toStrictEqual({ lastSuccessAt: t(3), failingSince: null });
    await attempt(4, 'http_500');
    await attempt(6, 'http_500');
    expect(await log.addressHealth('ws_e', url)).toStrictEqual({ lastSuccessAt: t(3), failingSince: t(4) });
    expect(await log.addressHealth('ws_e', url, t(5))).toStrictEqual({ lastSuccessAt: t(3), failingSince: t(6) });
  });

  it('keeps one e-mail per event in the outbox, listed newest first by recipient', async () => {
    const eventId = randomUUID();
    const mail = { to: 'ada@example.com', subject: 'Invitation', text: 'Hello http://x', html: '<p>Hello</p>' };
    const first = await outbox.record({ ...mail, eventId, sentAt: t(1) });
    const again = await outbox.record({ ...mail, eventId, sentAt: t(2), subject: 'changed' });
    const later = await outbox.record({ ...mail, eventId: randomUUID(), sentAt: t(3) });
    expect(first.id).toBe(emailId(eventId));
    expect(again).toStrictEqual(first);
    expect(await outbox.listEmails(' ADA@example.com ')).toStrictEqual([
      { id: later.id, to: 'ada@example.com', subject: 'Invitation', text: 'Hello http://x', sentAt: t(3) },
      { id: first.id, to: 'ada@example.com', subject: 'Invitation', text: 'Hello http://x', sentAt: t(1) },
    ]);
    await outbox.markSmtpAccepted(first.id, t(4));
    expect((await outbox.record({ ...mail, eventId, sentAt: t(5) })).smtpAcceptedAt).toBe(t(4));
  });

  it('keeps the dispatch checkpoint per name and never moves it back', async () => {
    expect(await checkpoints.read('dispatch-a')).toBeNull();
    await checkpoints.save('dispatch-a', 9_007_199_254_740_993n);
    await checkpoints.save('dispatch-a', 5n);
    await checkpoints.save('dispatch-b', 7n);
    expect(await checkpoints.read('dispatch-a')).toBe(9_007_199_254_740_993n);
    expect(await checkpoints.read('dispatch-b')).toBe(7n);
  });
});
