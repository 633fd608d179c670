import type { Mode } from '#domain';
import { ordered, type Projection } from '../shared/projection.js';

export interface ApiKeyDocument {
  id: string;
  workspaceId: string;
  mode: Mode;
  key: string;
  /** sha256 (hex) of the secret. */
  secretHash: string;
  issuedAt: string;
}

export const apiKeysProjection: Projection<ApiKeyDocument> = {
  name: 'api-keys',
  indexes: [ordered(['key', 'asc'])],
  // API processes cache keys; a regenerated key must be refused at once by every one of them.
  announceChanges: true,
  eventTypes: ['ApiKeyIssued', 'ApiKeyRegenerated'],
  documentIds: (event) => ('apiKeyId' in event.data ? [event.data.apiKeyId] : []),
  evolve(document, event) {
    switch (event.type) {
      case 'ApiKeyIssued': {
        const { apiKeyId, workspaceId, mode, key, secretHash, issuedAt } = event.data;
        return { id: apiKeyId, workspaceId, mode, key, secretHash, issuedAt };
      }
      case 'ApiKeyRegenerated':
        // Replaced in place: a lookup by the previous key finds nothing from this event on.
        return document === null ? null : { ...document, key: event.data.key, secretHash: event.data.secretHash };
      default:
        return document;
    }
  },
};
