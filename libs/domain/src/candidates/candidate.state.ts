import type { CandidateEmailEvent, CandidateEvent } from '../events.js';
import type { CandidateRef, Mode, ResultScores, TestRef } from '../shared/types.js';

export interface ResultState {
  resultId: string;
  test: TestRef;
  completedAt: string;
  scores: ResultScores;
  unlockedAt: string | null;
}

export interface CandidateAssessmentState {
  assessmentId: string;
  name: string;
  registeredAt: string;
  startedAt: string | null;
  completedAt: string | null;
  /** By test slug. */
  results: Record<string, ResultState>;
}

export type CandidateState =
  | { status: 'none' }
  | {
      status: 'active' | 'deleted';
      id: string;
      workspaceId: string;
      mode: Mode;
      email: string;
      firstName: string;
      surname: string;
      assessments: Record<string, CandidateAssessmentState>;
    };

export type ExistingCandidate = Exclude<CandidateState, { status: 'none' }>;

export const initialCandidateState = (): CandidateState => ({ status: 'none' });

const updateAssessment = (
  state: ExistingCandidate,
  assessmentId: string,
  change: (entry: CandidateAssessmentState) => CandidateAssessmentState,
): CandidateState => {
  const entry = state.assessments[assessmentId];
  return entry ? { ...state, assessments: { ...state.assessments, [assessmentId]: change(entry) } } : state;
};

export const evolveCandidate = (state: CandidateState, event: CandidateEvent): CandidateState => {
  if (event.type === 'CandidateCreated') {
    const { candidateId, workspaceId, mode, email, firstName, surname } = event.data;
    return { status: 'active', id: candidateId, workspaceId, mode, email, firstName, surname, assessments: {} };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'CandidateRegistered': {
      const { assessmentId, assessmentName, registeredAt } = event.data;
      const entry: CandidateAssessmentState = { assessmentId, name: assessmentName, registeredAt, startedAt: null, completedAt: null, results: {} };
      return { ...state, assessments: { ...state.assessments, [assessmentId]: entry } };
    }
    case 'AssessmentStarted':
      return updateAssessment(state, event.data.assessmentId, (entry) => ({ ...entry, startedAt: event.data.startedAt }));
    case 'TestCompleted': {
      const { resultId, test, completedAt, scores } = event.data;
      return updateAssessment(state, event.data.assessmentId, (entry) => ({
        ...entry,
        results: { ...entry.results, [test.slug]: { resultId, test, completedAt, scores, unlockedAt: null } },
      }));
    }
    case 'AssessmentCompleted':
      return updateAssessment(state, event.data.assessmentId, (entry) => ({ ...entry, completedAt: event.data.completedAt }));
    case 'ResultUnlocked':
      return updateAssessment(state, event.data.assessmentId, (entry) => {
        const result = Object.values(entry.results).find((candidate) => candidate.resultId === event.data.resultId);
        return result ? { ...entry, results: { ...entry.results, [result.test.slug]: { ...result, unlockedAt: event.data.unlockedAt } } } : entry;
      });
    case 'CandidateDeleted':
      return { ...state, status: 'deleted' };
    default:
      return state;
  }
};

export const candidateRef = (candidate: ExistingCandidate): CandidateRef => ({
  id: candidate.id, email: candidate.email, firstName: candidate.firstName, surname: candidate.surname,
});

export const findResult = (candidate: ExistingCandidate, resultId: string): { assessmentId: string; result: ResultState } | undefined => {
  for (const entry of Object.values(candidate.assessments)) {
    const result = Object.values(entry.results).find((candidateResult) => candidateResult.resultId === resultId);
    if (result) return { assessmentId: entry.assessmentId, result };
  }
  return undefined;
};

/** The address registry: which candidate, if any, holds an address in a workspace. */
export type CandidateEmailState = { claim: { candidateId: string; mode: Mode } | null };

export const initialCandidateEmailState = (): CandidateEmailState => ({ claim: null });

export const evolveCandidateEmail = (state: CandidateEmailState, event: CandidateEmailEvent): CandidateEmailState => {
  switch (event.type) {
    case 'CandidateEmailClaimed':
      return { claim: { candidateId: event.data.candidateId, mode: event.data.mode } };
    case 'CandidateEmailReleased':
      return state.claim?.candidateId === event.data.candidateId ? { claim: null } : state;
    default:
      return state;
  }
};
