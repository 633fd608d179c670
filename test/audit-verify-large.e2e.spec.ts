import { jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import pg from 'pg';
import { createPostgresEventStore } from '#event-store/postgres/postgres-event-store.js';
import { GENESIS_HASH, eventHash, integrityKeys } from '#event-store';
import { freshDatabase } from './support/processes.js';

jest.setTimeout(600_000);

const AUDIT_ENTRY = resolve('dist/apps/audit/src/main.js');
const EVENTS = 100_000;
const PER_STREAM = 10;
const BATCH = 5_000;

const audit = (env: Record<string, string>, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolveRun) => {
    execFile(process.execPath, [AUDIT_ENTRY, ...args], { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, timeout: 480_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolveRun({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }));
  });

/**
 * An untouched log of 100k events, written straight into the table with the hashes the service would
 * have stamped (appending them one request at a time would take minutes), sealed and verified by the
 * command line with its progress bar; then one byte changed in the middle is found.
 */
describe('audit verify on a large log (e2e, PostgreSQL)', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let pool: pg.Pool;
  const secret = `large-${randomUUID()}`;

  beforeAll(async () => {
    database = await freshDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
    await (await createPostgresEventStore({ pool, listen: false })).close();
    const { eventKey } = integrityKeys(secret);
    const base = Date.parse('2026-01-01T00:00:00.000Z');
    const previous = new Map<string, string>();
    for (let start = 0; start < EVENTS; start += BATCH) {
      const columns: string[][] = [[], [], [], [], [], [], [], []];
      for (let index = start; index < start + BATCH; index += 1) {
        const streamId = `load-${Math.floor(index / PER_STREAM) % (EVENTS / PER_STREAM)}`;
        const revision = index % PER_STREAM;
        const id = randomUUID();
        const time = new Date(base + index * 1000).toISOString();
        const data = { offsetSeconds: index, note: `event ${index}` };
        const metadata = { correlationId: id, causationId: null, actor: 'system', requestId: `req-${index}`, time };
        const hash = eventHash(eventKey, previous.get(streamId) ?? GENESIS_HASH, { id, streamId, revision, type: 'SimulatedClockAdvanced', data, metadata, recordedAt: time });
        previous.set(streamId, hash);
        [id, streamId, String(revision), 'SimulatedClockAdvanced', JSON.stringify(data), JSON.stringify(metadata), time, hash].forEach((value, column) => columns[column]?.push(value));
      }
      await pool.query(
        `INSERT INTO public.events (id, stream_id, revision, type, data, metadata, recorded_at, hash)
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::text[], $5::jsonb[], $6::jsonb[], $7::timestamptz[], $8::text[])`,
        columns,
      );
    }
  });

  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  it('verifies 100k untouched events with a progress bar, and finds one edited event among them', async () => {
    const env = { EVENT_STORE_URL: database.url, SERVICE_SECRET: secret };
    const sealed = await audit(env, ['seal']);
    expect(sealed.code).toBe(0);
    expect(JSON.parse(sealed.stdout)).toMatchObject({ sequence: 1, eventCount: EVENTS });

    const verified = await audit(env, ['verify']);
    expect(verified.stdout).toContain(`${EVENTS} events in ${EVENTS / PER_STREAM} streams, 1 seals, 0 events after the last seal, 0 after the last link, 0 anchors, 0 problems`);
    expect(verified.stderr).toMatch(new RegExp(`verify \\[#{30}\\] 100\\.0% ${EVENTS}/${EVENTS} events`));
    expect(verified.code).toBe(0);

    await pool.query(`UPDATE public.events SET data = jsonb_set(data, '{note}', '"edited"') WHERE stream_id = 'load-4321' AND revision = 7`);
    const caught = await audit(env, ['verify']);
    expect(caught.code).toBe(1);
    expect(caught.stdout).toMatch(/first broken link: load-4321 revision 7 \(position \d+\): broken link/);
  });
});
