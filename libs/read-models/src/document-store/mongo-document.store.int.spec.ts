import { MongoClient } from 'mongodb';
import { uniqueSchema } from '../test-support/postgres.js';
import { documentStoreContract } from './document-store.contract.js';
import { createMongoDocumentStore } from './mongo-document.store.js';

// MongoDB cannot run on every machine: without a server the same contract cannot run, and one test says so.
const url = process.env['MONGODB_URL'];

if (url === undefined) {
  describe('DocumentStore contract (MongoDB)', () => {
    it('needs MONGODB_URL', () => {
      process.stderr.write('MongoDB read-store suite skipped: set MONGODB_URL to run it\n');
      expect(process.env['MONGODB_URL']).toBeUndefined();
    });
  });
} else {
  documentStoreContract('MongoDB', async () => {
    const database = uniqueSchema('rm_contract');
    const store = createMongoDocumentStore({ url, database });
    return {
      store,
      close: async () => {
        await store.close();
        const admin = new MongoClient(url);
        try {
          await admin.db(database).dropDatabase();
        } finally {
          await admin.close();
        }
      },
    };
  }, { changeFeed: false });
}
