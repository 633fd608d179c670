import { SANDBOX_LIMIT, SANDBOX_WINDOW_DAYS, placesLeft } from '#domain';
import type { DocumentStore } from '../shared/document-store.port.js';
import { findPage, type Page } from '../shared/page.js';
import { workspacesProjection, type WorkspaceDocument } from './workspaces.projection.js';

export const getWorkspace = (store: DocumentStore, workspaceId: string): Promise<WorkspaceDocument | null> =>
  store.get<WorkspaceDocument>(workspacesProjection.name, workspaceId);

/** Test candidates still creatable at `now`: the domain's rule, on the read model's copy of the places used. */
export const sandboxRemaining = (workspace: WorkspaceDocument, now: Date): number => placesLeft(workspace.sandboxUsage, now.toISOString());

/** API 2.1 `sandbox` object. */
export const sandboxAllowance = (workspace: WorkspaceDocument, now: Date): { limit: number; windowDays: number; remaining: number } => ({
  limit: SANDBOX_LIMIT,
  windowDays: SANDBOX_WINDOW_DAYS,
  remaining: sandboxRemaining(workspace, now),
});

/** For the internal application's list: newest first, keyset-paged on [createdAt, id]. */
export const listWorkspaces = (store: DocumentStore, options: { limit: number; after?: readonly string[] }): Promise<Page<WorkspaceDocument>> =>
  findPage<WorkspaceDocument>(
    store,
    workspacesProjection.name,
    { where: [], orderBy: [{ field: 'createdAt', direction: 'desc' }, { field: 'id', direction: 'desc' }], after: options.after, limit: options.limit },
    (doc) => [doc.createdAt, doc.id],
  );
