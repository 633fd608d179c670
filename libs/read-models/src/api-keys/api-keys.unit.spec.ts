import { at, event } from '../test-support/domain-fixtures.js';
import { project } from '../test-support/recorded.js';
import { apiKeysProjection, type ApiKeyDocument } from './api-keys.projection.js';

describe('api-keys projection', () => {
  const issued = event('ApiKeyIssued', { workspaceId: 'w1', apiKeyId: 'k1', mode: 'sandbox', key: 'SBXold', secretHash: 'h1', issuedAt: at(0) });

  it('records an issued key', () => {
    expect(project<ApiKeyDocument>(apiKeysProjection, [issued], 'k1')).toEqual({
      id: 'k1', workspaceId: 'w1', mode: 'sandbox', key: 'SBXold', secretHash: 'h1', issuedAt: at(0),
    });
  });

  it('replaces key and hash in place when regenerated', () => {
    const regenerated = event('ApiKeyRegenerated', { workspaceId: 'w1', apiKeyId: 'k1', mode: 'sandbox', previousKey: 'SBXold', key: 'SBXnew', secretHash: 'h2', regeneratedAt: at(5) });
    expect(project<ApiKeyDocument>(apiKeysProjection, [issued, regenerated], 'k1')).toEqual({
      id: 'k1', workspaceId: 'w1', mode: 'sandbox', key: 'SBXnew', secretHash: 'h2', issuedAt: at(0),
    });
  });
});
