import { at, event } from '../test-support/domain-fixtures.js';
import { createHarness, type Harness } from '../test-support/harness.js';
import { apiKeysProjection } from './api-keys.projection.js';
import { findApiKeyByKey, getApiKey } from './api-keys.queries.js';

describe('api-keys read model (PostgreSQL)', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await createHarness('rm_api_keys', [apiKeysProjection]);
    await harness.append([
      event('ApiKeyIssued', { workspaceId: 'w1', apiKeyId: 'k1', mode: 'live', key: 'live-old', secretHash: 'h1', issuedAt: at(0) }),
      event('ApiKeyIssued', { workspaceId: 'w1', apiKeyId: 'k2', mode: 'sandbox', key: 'SBXkey', secretHash: 'h2', issuedAt: at(1) }),
      event('ApiKeyRegenerated', { workspaceId: 'w1', apiKeyId: 'k1', mode: 'live', previousKey: 'live-old', key: 'live-new', secretHash: 'h3', regeneratedAt: at(2) }),
    ]);
    await harness.project();
  });
  afterAll(() => harness.close());

  it('finds a key by its public part; a regenerated key stops at once', async () => {
    expect(await findApiKeyByKey(harness.documentStore, 'live-old')).toBeNull();
    expect(await findApiKeyByKey(harness.documentStore, 'live-new')).toEqual({ id: 'k1', workspaceId: 'w1', mode: 'live', key: 'live-new', secretHash: 'h3', issuedAt: at(0) });
    expect(await findApiKeyByKey(harness.documentStore, 'SBXkey')).toMatchObject({ id: 'k2', mode: 'sandbox' });
    expect(await getApiKey(harness.documentStore, 'k2')).toMatchObject({ key: 'SBXkey' });
    expect(await getApiKey(harness.documentStore, 'k9')).toBeNull();
  });

  it('changes nothing when the events are replayed', async () => {
    const before = await harness.all('api-keys');
    await harness.project({ startAfter: null });
    expect(await harness.all('api-keys')).toEqual(before);
  });
});
