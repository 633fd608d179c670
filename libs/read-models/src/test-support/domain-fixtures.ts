import type { DomainEvent, DomainEventType, EventOfType } from '#domain';
import type { Mode, ResultScores, TestRef } from '#domain';

/** A fixed, readable clock for fixtures: `at(90)` is 90 minutes after the epoch of the tests. */
export const at = (minutes: number): string => new Date(Date.UTC(2026, 9, 1, 9, 0, 0) + minutes * 60_000).toISOString();

export const event = <T extends DomainEventType>(type: T, data: EventOfType<T>['data']): DomainEvent =>
  ({ type, data }) as DomainEvent;

export interface FixtureCandidate {
  id: string;
  workspaceId: string;
  mode: Mode;
  email: string;
  firstName: string;
  surname: string;
}

export interface FixtureAssessment {
  id: string;
  workspaceId: string;
  name: string;
  tests: TestRef[];
}

export const library = (slug: string): TestRef => ({ slug, name: `Test ${slug}`, type: 'library' });

export const scoresOf = (scorePercentage: number): ResultScores => ({
  scorePercentage, speedCompleted: 600, questionsAnswered: 20, questionsCorrect: 15, questionsIncorrect: 5, questionsTotal: 20,
  result: 'pass', scores: { openness: 0.5 },
});

const ref = (c: FixtureCandidate) => ({ id: c.id, email: c.email, firstName: c.firstName, surname: c.surname });
const scope = (c: FixtureCandidate, a: FixtureAssessment) => ({
  candidateId: c.id, workspaceId: c.workspaceId, mode: c.mode, assessmentId: a.id, candidate: ref(c), assessmentName: a.name,
});

export const candidate = (workspaceId: string, id: string, mode: Mode = 'live', email = `${id}@example.com`): FixtureCandidate =>
  ({ id, workspaceId, mode, email, firstName: `First ${id}`, surname: `Last ${id}` });

export const assessment = (workspaceId: string, id: string, slugs: string[] = ['numerical', 'verbal']): FixtureAssessment =>
  ({ id, workspaceId, name: `Assessment ${id}`, tests: slugs.map(library) });

export const workspaceCreated = (workspaceId: string, time: string, freeAllowance = 0): DomainEvent =>
  event('WorkspaceCreated', { workspaceId, name: `Workspace ${workspaceId}`, freeAllowance, createdAt: time });

export const assessmentCreated = (a: FixtureAssessment, time: string): DomainEvent =>
  event('AssessmentCreated', { assessmentId: a.id, workspaceId: a.workspaceId, name: a.name, tests: a.tests, deadline: null, inviteToken: `tok-${a.id}`, createdAt: time });

export const candidateCreated = (c: FixtureCandidate, time: string): DomainEvent =>
  event('CandidateCreated', { candidateId: c.id, workspaceId: c.workspaceId, mode: c.mode, email: c.email, firstName: c.firstName, surname: c.surname, createdAt: time });

/** Registration as the domain records it: the candidate stream and the assessment stream. */
export const registered = (c: FixtureCandidate, a: FixtureAssessment, time: string): DomainEvent[] => [
  event('CandidateRegistered', { candidateId: c.id, workspaceId: c.workspaceId, mode: c.mode, assessmentId: a.id, assessmentName: a.name, tests: a.tests, invitationId: null, registeredAt: time }),
  event('AssessmentCandidateAdded', { assessmentId: a.id, workspaceId: a.workspaceId, candidateId: c.id, email: c.email, mode: c.mode, invitationId: null, addedAt: time }),
];

export const started = (c: FixtureCandidate, a: FixtureAssessment, time: string): DomainEvent =>
  event('AssessmentStarted', { ...scope(c, a), startedAt: time });

export const testCompleted = (c: FixtureCandidate, a: FixtureAssessment, resultId: string, test: TestRef, time: string, score = 75): DomainEvent =>
  event('TestCompleted', { ...scope(c, a), resultId, test, completedAt: time, scores: scoresOf(score) });

export const assessmentCompleted = (c: FixtureCandidate, a: FixtureAssessment, time: string): DomainEvent =>
  event('AssessmentCompleted', { ...scope(c, a), completedAt: time });

export const unlocked = (c: FixtureCandidate, a: FixtureAssessment, resultId: string, time: string, charged = false): DomainEvent =>
  event('ResultUnlocked', { ...scope(c, a), resultId, unlockedAt: time, charged });

/** Deletion as the domain records it: the candidate is dropped and leaves each assessment. */
export const deleted = (c: FixtureCandidate, assessments: FixtureAssessment[], resultIds: string[], time: string): DomainEvent[] => [
  event('CandidateDeleted', { candidateId: c.id, workspaceId: c.workspaceId, mode: c.mode, email: c.email, assessmentIds: assessments.map((a) => a.id), resultIds, deletedAt: time }),
  ...assessments.map((a) => event('AssessmentCandidateRemoved', { assessmentId: a.id, workspaceId: a.workspaceId, candidateId: c.id, email: c.email, mode: c.mode, invitationId: null, removedAt: time })),
];

/** A candidate who registers, starts, finishes every test of `a` and has them all unlocked. */
export const fullJourney = (c: FixtureCandidate, a: FixtureAssessment, start: number, resultPrefix = `${c.id}-${a.id}`): DomainEvent[] => [
  ...registered(c, a, at(start)),
  started(c, a, at(start + 1)),
  ...a.tests.map((test, i) => testCompleted(c, a, `${resultPrefix}-r${i}`, test, at(start + 2 + i), 60 + i)),
  assessmentCompleted(c, a, at(start + 1 + a.tests.length)),
  ...a.tests.map((_, i) => unlocked(c, a, `${resultPrefix}-r${i}`, at(start + 10 + i))),
];
