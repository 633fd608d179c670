import {
  countApiKeys, countAssessments, countCandidates, listWorkspaces, type WorkspaceDocument,
} from '#read-models';
import { decodePageCursor, encodePageCursor } from '../shared/page-cursor.js';
import type { DocumentStore } from '#read-models';

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

export const workspaceSummaries = async (documents: DocumentStore, after: string): Promise<{ summaries: WorkspaceSummary[]; next: string | null }> => {
  const page = await listWorkspaces(documents, { limit: PAGE_SIZE, after: decodePageCursor(after) });
  const summaries = await Promise.all(page.items.map((workspace) => summarize(documents, workspace)));
  return { summaries, next: encodePageCursor(page.next) };
};
