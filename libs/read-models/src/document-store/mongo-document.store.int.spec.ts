import { describe } from '@jest/globals';
import { MongoClient } from 'mongodb';
import { uniqueSchema } from '../test-support/postgres.js';
import { documentStoreContract } from '../testing/document-store.contract.js';
import { createMongoDocumentStore } from './mongo-document.store.js';

const url = process.env['MONGODB_URL'] ?? '';
// MongoDB cannot run on every machine: without a server the contract is reported as skipped, never as passed.
const describeWithServer = url === '' ? describe.skip : describe;
if (url === '') {
  process.stderr.write('MongoDB read-store suite skipped: set MONGODB_URL (e.g. mongodb://127.0.0.1:27017) to run it\n');
}

describeWithServer('MongoDB adapter (MONGODB_URL)', () => {
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
});
