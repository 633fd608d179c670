import { inviteUrl } from '#domain';
import type { Mode, TestRef } from '#domain';
import type { AssessmentDocument } from './assessments.projection.js';

/** API 2.3 Assessment. */
export interface AssessmentView {
  id: string;
  name: string;
  status: 'active' | 'archived';
  createdAt: string;
  deadline: string | null;
  tests: TestRef[];
  candidateCount: number;
  inviteUrl: string;
}

export { inviteUrl };

/** `candidateCount` is the count of the reading key's mode; open sign-up is always on, so `inviteUrl` is never null. */
export const toAssessmentView = (doc: AssessmentDocument, mode: Mode, appUrl: string): AssessmentView => ({
  id: doc.id,
  name: doc.name,
  status: doc.status,
  createdAt: doc.createdAt,
  deadline: doc.deadline,
  tests: doc.tests.map((test) => ({ slug: test.slug, name: test.name, type: test.type })),
  candidateCount: doc.candidateCount[mode],
  inviteUrl: inviteUrl(appUrl, doc.id, doc.inviteToken),
});
