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
