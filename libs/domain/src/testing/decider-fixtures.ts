import type {
  AssessmentCandidateAdded, AssessmentCreated, CandidateCreated, CandidateEmailClaimed, CandidateInvited, CandidateRegistered,
  TestCompleted, WorkspaceCreated,
} from '../events.js';
import { CATALOGUE } from '../catalogue/catalogue.data.js';
import { type Decider, fold } from '../shared/decider.js';
import { DomainError, type DomainErrorCode } from '../shared/errors.js';
import type { Mode, ResultScores, TestRef } from '../shared/types.js';

/**
 * Support for the `*.decider.spec.ts` files: given events, when a command, then events or a refusal.
 * It uses no test framework so that it compiles with the library (the build has no Jest types).
 */

export interface Refusal {
  code: DomainErrorCode;
}

/**
 * A refusal keeps only its stable part, the `code`, so that `toEqual` can compare it exactly. The
 * domain knows no HTTP: the status each code is answered with is libs/http's table, and its own
 * specs pin it for every code (libs/http/src/errors/error-codes.unit.spec.ts).
 */
export type Decision<T> = { value: T } | { error: Refusal };

export const attempt = <T>(call: () => T): Decision<T> => {
  try {
    return { value: call() };
  } catch (error) {
    if (error instanceof DomainError) return { error: { code: error.code } };
    throw error;
  }
};

export const refused = (code: DomainErrorCode): { error: Refusal } => ({ error: { code } });

export const given = <Command, State, Event>(decider: Decider<Command, State, Event>, events: readonly Event[]) => {
  const state = fold(decider, events);
  return {
    state,
    when: (command: Command): { events: Event[] } | { error: Refusal } => {
      const decision = attempt(() => decider.decide(command, state));
      return 'value' in decision ? { events: decision.value } : decision;
    },
  };
};

/** Narrows a folded state to an aggregate that exists; a test set up wrongly fails loudly here. */
export const existing = <State extends { status: string }>(state: State): Exclude<State, { status: 'none' }> => {
  if (state.status === 'none') throw new Error('the given events do not create the aggregate');
  return state as Exclude<State, { status: 'none' }>;
};

// ---- fixtures --------------------------------------------------------------------------------
// One fixed clock: 2026-10-20 10:00 UTC. `at` moves it, so every time in a test is explicit.

export const NOW = '2026-10-20T10:00:00.000Z';
export const TODAY = '2026-10-20';
export const at = (offsetMs: number, from: string = NOW): string => new Date(Date.parse(from) + offsetMs).toISOString();
export const DAY_MS = 86_400_000;

export const WORKSPACE_ID = 'ws-1';
export const ASSESSMENT_ID = 'as-1';
export const INVITE_TOKEN = 'invite-token-1';

export const libraryTest = (slug: string): TestRef => {
  const test = CATALOGUE.find((entry) => entry.slug === slug);
  if (!test) throw new Error(`no catalogue test ${slug}`);
  return { slug: test.slug, name: test.name, type: 'library' };
};

export const workspaceCreated = (data: Partial<WorkspaceCreated['data']> = {}): WorkspaceCreated => ({
  type: 'WorkspaceCreated',
  data: { workspaceId: WORKSPACE_ID, name: 'Acme', freeAllowance: 0, createdAt: at(-90 * DAY_MS), ...data },
});

export const assessmentCreated = (data: Partial<AssessmentCreated['data']> = {}): AssessmentCreated => ({
  type: 'AssessmentCreated',
  data: {
    assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, name: 'Backend engineer',
    tests: [libraryTest('numerical-reasoning'), libraryTest('verbal-reasoning')], deadline: null,
    inviteToken: INVITE_TOKEN, createdAt: at(-10 * DAY_MS), ...data,
  },
});

export const candidateInvited = (email: string, mode: Mode, n: number, data: Partial<CandidateInvited['data']> = {}): CandidateInvited => ({
  type: 'CandidateInvited',
  data: {
    assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, assessmentName: 'Backend engineer', deadline: null,
    invitationId: `inv-${n}`, invitationToken: `tok-${n}`, mode, email, firstName: '', surname: '', invitedAt: at(-DAY_MS), ...data,
  },
});

export const candidateAdded = (email: string, mode: Mode, candidateId: string, invitationId: string | null = null): AssessmentCandidateAdded => ({
  type: 'AssessmentCandidateAdded',
  data: { assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, candidateId, email, mode, invitationId, addedAt: at(-DAY_MS) },
});

export const candidateCreated = (candidateId: string, email: string, mode: Mode): CandidateCreated => ({
  type: 'CandidateCreated',
  data: { candidateId, workspaceId: WORKSPACE_ID, mode, email, firstName: 'Ann', surname: 'Lee', createdAt: at(-DAY_MS) },
});

export const emailClaimed = (candidateId: string, email: string, mode: Mode): CandidateEmailClaimed => ({
  type: 'CandidateEmailClaimed',
  data: { workspaceId: WORKSPACE_ID, email, candidateId, mode, claimedAt: at(-DAY_MS) },
});

export const candidateRegistered = (candidateId: string, mode: Mode, data: Partial<CandidateRegistered['data']> = {}): CandidateRegistered => ({
  type: 'CandidateRegistered',
  data: {
    candidateId, workspaceId: WORKSPACE_ID, mode, assessmentId: ASSESSMENT_ID, assessmentName: 'Backend engineer',
    tests: [libraryTest('numerical-reasoning'), libraryTest('verbal-reasoning')], invitationId: null, registeredAt: at(-DAY_MS), ...data,
  },
});

export const SCORES: ResultScores = {
  scorePercentage: 72.5, speedCompleted: 900, questionsAnswered: 18, questionsCorrect: 13, questionsIncorrect: 5, questionsTotal: 18,
  result: null, scores: null,
};

export const testCompleted = (candidateId: string, mode: Mode, slug: string, resultId: string, completedAt = at(-3_600_000)): TestCompleted => ({
  type: 'TestCompleted',
  data: {
    candidateId, workspaceId: WORKSPACE_ID, mode, assessmentId: ASSESSMENT_ID, resultId,
    candidate: { id: candidateId, email: 'ann@example.com', firstName: 'Ann', surname: 'Lee' },
    assessmentName: 'Backend engineer', test: libraryTest(slug), completedAt, scores: SCORES,
  },
});
