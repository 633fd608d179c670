import type { CandidateEvent } from '../events.js';
import type { ExistingAssessment } from '../assessments/assessment.state.js';
import { DomainError, invalidState, notFound } from '../shared/errors.js';
import type { ResultScores } from '../shared/types.js';
import { isPastDeadline } from '../shared/validation.js';
import { type CandidateAssessmentState, type CandidateState, type ExistingCandidate, candidateRef } from './candidate.state.js';

export type ProgressStatus = 'not_started' | 'in_progress' | 'completed';

export const progressOf = (entry: CandidateAssessmentState): ProgressStatus =>
  entry.completedAt ? 'completed' : entry.startedAt || Object.keys(entry.results).length > 0 ? 'in_progress' : 'not_started';

export const requireCandidate = (state: CandidateState): ExistingCandidate => {
  if (state.status !== 'active') throw notFound('candidate');
  return state;
};

const requireRegistration = (candidate: ExistingCandidate, assessment: ExistingAssessment): CandidateAssessmentState => {
  if (candidate.status !== 'active') throw notFound('candidate');
  const entry = candidate.assessments[assessment.id];
  if (!entry || assessment.workspaceId !== candidate.workspaceId) throw invalidState('the candidate is not registered on this assessment');
  if (assessment.status === 'archived') throw invalidState('the assessment is closed');
  return entry;
};

const startedEvent = (candidate: ExistingCandidate, assessment: ExistingAssessment, now: string): CandidateEvent => ({
  type: 'AssessmentStarted',
  data: {
    candidateId: candidate.id, workspaceId: candidate.workspaceId, mode: candidate.mode, assessmentId: assessment.id,
    candidate: candidateRef(candidate), assessmentName: assessment.name, startedAt: now,
  },
});

/** Starting twice changes nothing; past the deadline nobody who has not started may start. */
export const decideStart = (candidate: ExistingCandidate, assessment: ExistingAssessment, now: string): CandidateEvent[] => {
  const entry = requireRegistration(candidate, assessment);
  if (progressOf(entry) !== 'not_started') return [];
  if (isPastDeadline(assessment.deadline, now)) throw invalidState('the assessment is past its deadline');
  return [startedEvent(candidate, assessment, now)];
};

export const decideCompleteTest = (input: {
  candidate: ExistingCandidate;
  assessment: ExistingAssessment;
  slug: string;
  scores: ResultScores;
  resultId: string;
  now: string;
}): { events: CandidateEvent[]; resultId: string; assessmentCompleted: boolean } => {
  const { candidate, assessment, slug, scores, resultId, now } = input;
  const entry = requireRegistration(candidate, assessment);
  const test = assessment.tests.find((candidateTest) => candidateTest.slug === slug);
  if (!test) throw invalidState('the test is not part of this assessment');
  if (entry.results[slug]) throw new DomainError('already_completed', 'the test was already finished');
  const notStarted = progressOf(entry) === 'not_started';
  if (notStarted && isPastDeadline(assessment.deadline, now)) throw invalidState('the assessment is past its deadline');

  const base = { candidateId: candidate.id, workspaceId: candidate.workspaceId, mode: candidate.mode, assessmentId: assessment.id, candidate: candidateRef(candidate), assessmentName: assessment.name };
  // Finishing a test without an explicit start still starts the assessment: the webhook stream stays complete.
  const events: CandidateEvent[] = notStarted ? [startedEvent(candidate, assessment, now)] : [];
  events.push({ type: 'TestCompleted', data: { ...base, resultId, test, completedAt: now, scores } });
  const finished = new Set([...Object.keys(entry.results), slug]);
  const assessmentCompleted = !entry.completedAt && assessment.tests.every((assessmentTest) => finished.has(assessmentTest.slug));
  if (assessmentCompleted) events.push({ type: 'AssessmentCompleted', data: { ...base, completedAt: now } });
  return { events, resultId, assessmentCompleted };
};
