import {
  countApiKeys, countAssessments, countCandidates, listWorkspaces, type WorkspaceDocument,
} from '../../../../../libs/read-models/src/index.js';
import type { DocumentStore } from '../../../../../libs/read-models/src/shared/document-store.port.js';

export interface WorkspaceSummary {
  workspace: WorkspaceDocument;
  assessments: number;
  liveCandidates: number;
  testCandidates: number;
  apiKeys: number;
}

export const summarize = async (documents: DocumentStore, workspace: WorkspaceDocument): Promise<WorkspaceSummary> => {
  const [assessments, liveCandidates, testCandidates, apiKeys] = await Promise.all([
    countAssessments(documents, workspace.id),
    countCandidates(documents, { workspaceId: workspace.id, mode: 'live' }),
    countCandidates(documents, { workspaceId: workspace.id, mode: 'sandbox' }),
    countApiKeys(documents, workspace.id),
  ]);
  return { workspace, assessments, liveCandidates, testCandidates, apiKeys };
};

const PAGE_SIZE = 25;

/** `after` is the opaque `next` of the previous page (createdAt and id, base64url JSON). */
export const workspaceSummaries = async (documents: DocumentStore, after: string): Promise<{ summaries: WorkspaceSummary[]; next: string | null }> => {
  let cursor: string[] | undefined;
  try {
    const parsed: unknown = after ? JSON.parse(Buffer.from(after, 'base64url').toString('utf8')) : undefined;
    cursor = Array.isArray(parsed) && parsed.length === 2 && parsed.every((part) => typeof part === 'string') ? parsed : undefined;
  } catch {
    cursor = undefined;
  }
  const page = await listWorkspaces(documents, { limit: PAGE_SIZE, after: cursor });
  const summaries = await Promise.all(page.items.map((workspace) => summarize(documents, workspace)));
  return { summaries, next: page.next ? Buffer.from(JSON.stringify(page.next)).toString('base64url') : null };
};
