import { notFound, parseLink } from '#domain';
import { type AssessmentDocument, type CandidateDocument, type DocumentStore, assessmentsProjection, candidatesProjection, getWorkspace } from '#read-models';

/*
 * The commands refuse an unknown id (404) before they judge a body; the DTOs judge bodies before a
 * command runs. These lookups, on the query side, keep the order clients have always been answered
 * in: an unknown id before a bad body. They answer what the command would (same code and message);
 * the command still decides on its own streams.
 */

export const requireKnownWorkspace = async (documents: DocumentStore, workspaceId: string): Promise<void> => {
  if (!(await getWorkspace(documents, workspaceId))) throw notFound('workspace');
};

export const requireKnownAssessment = async (documents: DocumentStore, assessmentId: string): Promise<AssessmentDocument> => {
  const assessment = await documents.get<AssessmentDocument>(assessmentsProjection.name, assessmentId);
  if (!assessment) throw notFound('assessment');
  return assessment;
};

/** As CompleteTest: the candidate, then the assessment in the candidate's workspace. */
export const requireKnownCandidateAndAssessment = async (documents: DocumentStore, candidateId: string, assessmentId: string): Promise<void> => {
  const candidate = await documents.get<CandidateDocument>(candidatesProjection.name, candidateId);
  if (!candidate) throw notFound('candidate');
  const assessment = await documents.get<AssessmentDocument>(assessmentsProjection.name, assessmentId);
  if (!assessment || assessment.workspaceId !== candidate.workspaceId) throw notFound('assessment');
};

/** As RegisterCandidate on a sign-up: a link the service issued, of a known assessment, with its token. */
export const requireKnownSignUpLink = async (documents: DocumentStore, inviteUrl: string, appUrl: string): Promise<void> => {
  const link = parseLink(inviteUrl, 'invite', appUrl);
  if (!link) throw notFound('invite link');
  const assessment = await requireKnownAssessment(documents, link.assessmentId);
  if (assessment.inviteToken !== link.token) throw notFound('invite link');
};
