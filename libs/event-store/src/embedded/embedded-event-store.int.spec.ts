import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { runEventStoreContract } from '../event-store.contract.js';
import { newEvent } from '../contract/contract-support.js';
import { createEmbeddedEventStore } from './embedded-event-store.js';

runEventStoreContract('embedded PGlite', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'es-contract-'));
  const embedded = await createEmbeddedEventStore({ dataDir, logger: pino({ level: 'warn' }) });
  return {
    store: embedded.store,
    close: async () => {
      await embedded.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
});

describe('embedded PGlite, the log\'s only writer', () => {
  it('knows the streams written before a restart and reads any other stream without a statement', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'es-known-'));
    try {
      const first = await createEmbeddedEventStore({ dataDir, logger: pino({ level: 'warn' }) });
      await first.store.appendToStream('known-1', [newEvent('Started')], { expectedRevision: 'no_stream' });
      await first.stop();

      const embedded = await createEmbeddedEventStore({ dataDir, logger: pino({ level: 'warn' }) });
      try {
        const pool = embedded.database.pool;
        const query = pool.query.bind(pool);
        let statements = 0;
        pool.query = ((...args: Parameters<typeof query>) => { statements += 1; return query(...args); }) as typeof pool.query;
        expect((await embedded.store.readStream('known-1')).map((event) => event.type)).toEqual(['Started']);
        expect(statements).toBe(1);
        expect(await embedded.store.readStream('never-written')).toEqual([]);
        expect(await embedded.store.readStreams(['never-written', 'also-not'])).toEqual(new Map([['never-written', []], ['also-not', []]]));
        expect(statements).toBe(1);
        // A stream it appends to is read from the database from then on.
        await embedded.store.appendToStream('never-written', [newEvent('Started')], { expectedRevision: 'no_stream' });
        expect((await embedded.store.readStream('never-written')).map((event) => event.revision)).toEqual([0]);
      } finally {
        await embedded.stop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
