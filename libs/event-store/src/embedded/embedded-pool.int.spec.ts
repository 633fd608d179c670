import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import type { NewEvent } from '../event-store.port.js';
import { createEmbeddedEventStore, type EmbeddedEventStore } from './embedded-event-store.js';

const event = (index: number): NewEvent => {
  const id = randomUUID();
  return { id, type: 'Probed', data: { index }, metadata: { correlationId: id, causationId: null, actor: 'system', requestId: id, time: '2024-01-01T00:00:00.000Z' } };
};

describe('the one embedded connection survives failing statements', () => {
  let dataDir = '';
  let embedded: EmbeddedEventStore;
  let connections = 0;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'es-pool-'));
    embedded = await createEmbeddedEventStore({ dataDir, logger: pino({ level: 'silent' }) });
    embedded.database.pool.on('connect', () => { connections += 1; });
    await embedded.database.pool.query('SELECT 1');
  }, 60_000);

  afterAll(async () => {
    await embedded.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('a U+0000 parameter fails alone: concurrent reads and appends all succeed on the same connection', async () => {
    const before = connections;
    // Straight to the pool: the store, the log's only writer here, answers a read of a stream it never wrote without a statement.
    const bad = Array.from({ length: 10 }, () => embedded.database.pool.query('SELECT $1::text AS id', ['nul-\u0000-stream']).then(() => 'accepted', () => 'refused'));
    const reads = Array.from({ length: 40 }, (_, index) => embedded.database.pool.query('SELECT $1::int AS n', [index]).then((result) => Number(result.rows[0]?.n)));
    const appends = Array.from({ length: 20 }, (_, index) => embedded.store.appendToStream(`pool-${index}`, [event(index)], { expectedRevision: 'no_stream' }));

    const [outcomes, numbers, appended] = await Promise.all([Promise.all(bad), Promise.all(reads), Promise.allSettled(appends)]);

    expect(outcomes).toEqual(new Array(10).fill('refused'));
    expect(numbers).toEqual(Array.from({ length: 40 }, (_, index) => index));
    expect(appended.filter((result) => result.status === 'rejected')).toEqual([]);
    // The connection was never dropped and replaced.
    expect(connections).toBe(before);
  }, 60_000);
  it('a replacement connection prepares its named statements again: PGlite\'s one session does not keep the old ones in its way', async () => {
    await embedded.store.appendToStream('named-1', [event(1)], { expectedRevision: 'no_stream' });
    expect(await embedded.store.readStream('named-1')).toHaveLength(1);
    const before = connections;
    // Drop the connection (pg-pool destroys a client released with an error); the next use opens another.
    const client = await embedded.database.pool.connect();
    client.release(new Error('dropped on purpose'));
    // Let the server (one connection at a time) see the old socket go before the next one comes.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await embedded.store.appendToStream('named-1', [event(2)], { expectedRevision: 0 });
    expect((await embedded.store.readStream('named-1')).map((recorded) => recorded.revision)).toEqual([0, 1]);
    expect(connections).toBe(before + 1);
  }, 60_000);
});
