import { getCandidate, toCandidateView, type CandidateDocument, type CandidateView, type DocumentStore } from '#read-models';

/**
 * What `GET /v1/candidates/{id}` answers a key of the candidate's own workspace and mode: the same
 * read-model query and view as the public route, so the simulator shows exactly what an integrator sees.
 */
export const publicCandidateAnswer = async (documents: DocumentStore, appUrl: string, candidate: CandidateDocument): Promise<{ data: CandidateView } | null> => {
  const doc = await getCandidate(documents, candidate.workspaceId, candidate.mode, candidate.id);
  return doc ? { data: toCandidateView(doc, appUrl) } : null;
};
