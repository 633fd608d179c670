import type { DocumentStore } from '../shared/document-store.port.js';
import { billingProjection, type BillingDocument } from './billing.projection.js';

export const getBilling = (store: DocumentStore, workspaceId: string): Promise<BillingDocument | null> =>
  store.get<BillingDocument>(billingProjection.name, workspaceId);
