import { randomUUID } from 'node:crypto';
import { jest } from '@jest/globals';
import { startTestPglite } from '../test-support/pglite.js';
import { createTestDatabase, type TestDatabase } from '../test-support/postgres.js';
import { DeliveryLog, type AttemptRecord, type StoredDelivery } from './delivery-log.js';
import { migrateMessagingTables } from '../shared/messaging.migrations.js';

const at = (second: number): string => new Date(Date.UTC(2026, 10, 2, 9, 0, second)).toISOString();
const attempt = (second: number, responseStatus: number | null, error: string | null): AttemptRecord =>
  ({ at: at(second), responseStatus, durationMs: second, error });

// The worker's reads and attempt writes of concurrent jobs go to the server as one statement each.
describe.each([
  ['PostgreSQL', () => createTestDatabase('delivery_log_batches')],
  ['embedded PGlite', startTestPglite],
])('delivery log batches on %s', (_backend, open) => {
  let db: TestDatabase;
  let log: DeliveryLog;

  beforeAll(async () => {
    db = await open();
    log = new DeliveryLog(db.pool, db.schema);
    await migrateMessagingTables(db.pool, db.schema);
  }, 30_000);
  afterAll(async () => db.drop());
  afterEach(() => jest.restoreAllMocks());

  const created = async (count: number): Promise<StoredDelivery[]> => {
    const workspaceId = `ws_${randomUUID().slice(0, 8)}`;
    const rows: StoredDelivery[] = [];
    for (let index = 0; index < count; index += 1) {
      const eventId = randomUUID();
      rows.push((await log.insertIfAbsent({
        id: `whd_${randomUUID()}`, workspaceId, eventId, event: 'candidateCreated', url: 'https://hooks.example.com/in',
        body: JSON.stringify({ id: eventId, event: 'candidateCreated', index }), sandbox: false, createdAt: at(0),
      })).delivery);
    }
    return rows;
  };
  const statementsDuring = async <T>(work: () => Promise<T>): Promise<{ result: T; statements: number }> => {
    const query = jest.spyOn(db.pool, 'query');
    const result = await work();
    const statements = query.mock.calls.length;
    query.mockRestore();
    return { result, statements };
  };

  it('answers concurrent reads with one statement, each caller its own row (or null)', async () => {
    const rows = await created(40);
    const ids = [...rows.map(({ id }) => id), 'whd_missing', rows[0]?.id ?? ''];
    const { result, statements } = await statementsDuring(() => Promise.all(ids.map((id) => log.get(id))));
    expect(statements).toBe(1);
    expect(result.map((delivery) => delivery?.id ?? null)).toStrictEqual([...rows.map(({ id }) => id), null, rows[0]?.id]);
    expect(result[7]).toStrictEqual(rows[7]);
  });

  it('records the attempts of concurrent jobs with one statement, each caller told whether its row was pending', async () => {
    const rows = await created(30);
    const [finished, ...pending] = rows;
    if (!finished) throw new Error('no rows');
    expect(await log.recordAttempt(finished.id, attempt(1, 200, null), 'succeeded')).toBe(true);
    const { result, statements } = await statementsDuring(() => Promise.all([
      log.recordAttempt(finished.id, attempt(2, 200, null), 'succeeded'),
      ...pending.map((row, index) => log.recordAttempt(row.id, attempt(2, index % 2 ? 500 : 200, index % 2 ? 'http_500' : null), index % 2 ? 'pending' : 'succeeded')),
    ]));
    expect(statements).toBe(1);
    expect(result).toStrictEqual([false, ...pending.map(() => true)]);
    const stored = await Promise.all(rows.map(({ id }) => log.get(id)));
    expect(stored[0]).toMatchObject({ status: 'succeeded', attempts: 1, attemptLog: [attempt(1, 200, null)] });
    pending.forEach((_row, index) => expect(stored[index + 1]).toMatchObject({
      status: index % 2 ? 'pending' : 'succeeded', attempts: 1, lastResponseStatus: index % 2 ? 500 : 200, lastError: index % 2 ? 'http_500' : null,
      updatedAt: at(2), attemptLog: [attempt(2, index % 2 ? 500 : 200, index % 2 ? 'http_500' : null)],
    }));
  });

  it('keeps attempts of one delivery made together in call order, one statement each', async () => {
    const [row, other] = await created(2);
    if (!row || !other) throw new Error('no rows');
    const { result, statements } = await statementsDuring(() => Promise.all([
      log.recordAttempt(row.id, attempt(3, 500, 'http_500'), 'pending'),
      log.recordAttempt(other.id, attempt(3, 200, null), 'succeeded'),
      log.recordAttempt(row.id, attempt(4, null, 'timeout'), 'pending'),
      log.recordAttempt(row.id, attempt(5, 200, null), 'succeeded'),
      log.recordAttempt(row.id, attempt(6, 200, null), 'succeeded'),
    ]));
    expect(result).toStrictEqual([true, true, true, true, false]);
    expect(statements).toBe(4);
    expect(await log.get(row.id)).toMatchObject({
      status: 'succeeded', attempts: 3, lastResponseStatus: 200, lastError: null, updatedAt: at(5),
      attemptLog: [attempt(3, 500, 'http_500'), attempt(4, null, 'timeout'), attempt(5, 200, null)],
    });
    expect(await log.get(other.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it('fails only the caller whose input the server refuses; the others of its batch are answered', async () => {
    const rows = await created(6);
    const writes = rows.map((row, index) =>
      log.recordAttempt(row.id, index === 2 ? { ...attempt(7, 200, null), at: 'not a time' } : attempt(7, 200, null), 'succeeded'));
    const reads = [rows[0]?.id ?? '', 'whd_\u0000', rows[1]?.id ?? ''].map((id) => log.get(id));
    const settled = await Promise.allSettled([...writes, ...reads]);
    expect(settled.map(({ status }) => status)).toStrictEqual([
      'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled',
      'fulfilled', 'rejected', 'fulfilled',
    ]);
    expect(settled.slice(0, 6).map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : 'refused'))).toStrictEqual([true, true, 'refused', true, true, true]);
    const stored = await Promise.all(rows.map(({ id }) => log.get(id)));
    expect(stored.map((delivery) => delivery?.attempts)).toStrictEqual([1, 1, 0, 1, 1, 1]);
    expect(stored[2]).toMatchObject({ status: 'pending', attemptLog: [] });
  });
});
