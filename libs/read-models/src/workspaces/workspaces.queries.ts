import { SANDBOX_LIMIT, SANDBOX_WINDOW_DAYS } from '../../../domain/src/workspaces/workspace.decider.js';
import type { DocumentStore } from '../shared/document-store.port.js';
import { workspacesProjection, type WorkspaceDocument } from './workspaces.projection.js';

const DAY_MS = 86_400_000;

export const getWorkspace = (store: DocumentStore, workspaceId: string): Promise<WorkspaceDocument | null> =>
  store.get<WorkspaceDocument>(workspacesProjection.name, workspaceId);

/** Test candidates still creatable at `now`: same window rule as the domain's `sandboxPlacesLeft`. */
export const sandboxRemaining = (workspace: WorkspaceDocument, now: Date): number => {
  const windowStart = now.getTime() - SANDBOX_WINDOW_DAYS * DAY_MS;
  const used = workspace.sandboxUsage
    .filter((use) => Date.parse(use.usedAt) > windowStart)
    .reduce((sum, use) => sum + use.count, 0);
  return Math.max(0, SANDBOX_LIMIT - used);
};

/** API 2.1 `sandbox` object. */
export const sandboxAllowance = (workspace: WorkspaceDocument, now: Date): { limit: number; windowDays: number; remaining: number } => ({
  limit: SANDBOX_LIMIT,
  windowDays: SANDBOX_WINDOW_DAYS,
  remaining: sandboxRemaining(workspace, now),
});
