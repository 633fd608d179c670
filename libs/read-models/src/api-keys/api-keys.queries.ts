import type { DocumentStore } from '../shared/document-store.port.js';
import { apiKeysProjection, type ApiKeyDocument } from './api-keys.projection.js';

export const getApiKey = (store: DocumentStore, apiKeyId: string): Promise<ApiKeyDocument | null> =>
  store.get<ApiKeyDocument>(apiKeysProjection.name, apiKeyId);

export const findApiKeyByKey = async (store: DocumentStore, key: string): Promise<ApiKeyDocument | null> => {
  const [found] = await store.find<ApiKeyDocument>(apiKeysProjection.name, {
    where: [{ field: 'key', op: 'eq', value: key }],
    orderBy: [],
    limit: 1,
  });
  return found ?? null;
};

/** A workspace's keys, oldest first (a workspace holds a handful). The secret is only ever a hash here. */
export const listApiKeysOfWorkspace = (store: DocumentStore, workspaceId: string): Promise<ApiKeyDocument[]> =>
  store.find<ApiKeyDocument>(apiKeysProjection.name, {
    where: [{ field: 'workspaceId', op: 'eq', value: workspaceId }],
    orderBy: [{ field: 'issuedAt', direction: 'asc' }, { field: 'id', direction: 'asc' }],
    limit: 200,
  });

export const countApiKeys = (store: DocumentStore, workspaceId: string): Promise<number> =>
  store.count(apiKeysProjection.name, [{ field: 'workspaceId', op: 'eq', value: workspaceId }]);
