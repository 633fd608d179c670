import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '#event-store';
import type { CollectionDefinition } from '../shared/projection.js';
import { documentStoreContract } from '../testing/document-store.contract.js';
import { createPostgresDocumentStore } from './postgres-document.store.js';

// The same adapter on the embedded PGlite the service uses by default: one connection in the pool.
documentStoreContract('embedded PGlite', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'rm-pglite-'));
  const database = await startEmbeddedDatabase({ dataDir, logger: pino({ level: 'silent' }) });
  return {
    store: createPostgresDocumentStore({ pool: database.pool, schema: 'read_models', deployment: 'single-process' }),
    close: async () => {
      await database.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
});

describe('served pages kept by the embedded store', () => {
  let dataDir: string;
  let database: EmbeddedDatabase;
  const notes: CollectionDefinition = { name: 'notes', indexes: [], served: (doc) => JSON.stringify(doc) };
  const query = { where: [], orderBy: [{ field: 'id', direction: 'asc' }] as const, limit: 10 };
  const note = (id: string, text: string) => ({ collection: 'notes', id, doc: { id, text } });

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'rm-pglite-pages-'));
    database = await startEmbeddedDatabase({ dataDir, logger: pino({ level: 'silent' }) });
  }, 60_000);
  afterAll(async () => {
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('answers a page read again from memory, and a write through another store on the same pool at the next read', async () => {
    const reader = createPostgresDocumentStore({ pool: database.pool, schema: 'pages', deployment: 'single-process' });
    const writer = createPostgresDocumentStore({ pool: database.pool, schema: 'pages', deployment: 'single-process' });
    await reader.prepare([notes], { fresh: true });
    await writer.prepare([notes]);
    await writer.applyBatch([], [note('a', 'first')], 1n);
    const texts = async () => (await reader.findServed('notes', query, () => 'not stored')).map(({ json }) => json);
    expect(await texts()).toEqual(['{"id":"a","text":"first"}']);
    // The second read costs no statement: a row changed behind the store's back (never done by the service) stays unseen.
    await database.pool.query(`UPDATE pages.rm_notes SET json = '{"behind":true}'`);
    expect(await texts()).toEqual(['{"id":"a","text":"first"}']);
    await writer.applyBatch([], [note('b', 'second')], 2n);
    expect(await texts()).toEqual(['{"behind":true}', '{"id":"b","text":"second"}']);
    await writer.applyBatch([], [{ collection: 'notes', id: 'a', doc: null }], 3n);
    expect(await texts()).toEqual(['{"id":"b","text":"second"}']);
    await reader.close();
    await writer.close();
  });

  it('keeps nothing when told not to', async () => {
    const store = createPostgresDocumentStore({ pool: database.pool, schema: 'pages_off', deployment: 'single-process', cacheServedPages: false });
    await store.prepare([notes], { fresh: true });
    await store.applyBatch([], [note('a', 'first')], 1n);
    expect((await store.findServed('notes', query, () => 'not stored')).map(({ json }) => json)).toEqual(['{"id":"a","text":"first"}']);
    await database.pool.query(`UPDATE pages_off.rm_notes SET json = '{"behind":true}'`);
    expect((await store.findServed('notes', query, () => 'not stored')).map(({ json }) => json)).toEqual(['{"behind":true}']);
    await store.close();
  });
});
