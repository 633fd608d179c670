import { randomUUID } from 'node:crypto';
import type { CandidateEvent, CandidateInvited, DomainEvent, Mode, ResultScores, TestRef } from '#domain';
import type { EventMetadata, NewEvent, RecordedEvent } from '#event-store';

export const metadataAt = (time: string): EventMetadata => ({ correlationId: randomUUID(), causationId: null, actor: 'internal', requestId: randomUUID(), time });

/** A domain event as the store records it; for pure mapping tests that need no store. */
export const recordedEvent = (event: DomainEvent, at: { streamId: string; revision: number; position: bigint; time: string; id?: string }): RecordedEvent => ({
  id: at.id ?? randomUUID(),
  streamId: at.streamId,
  revision: at.revision,
  position: at.position,
  type: event.type,
  data: event.data,
  metadata: metadataAt(at.time),
  recordedAt: at.time,
});

export const newEvent = (event: DomainEvent, time: string): NewEvent => ({ id: randomUUID(), type: event.type, data: event.data, metadata: metadataAt(time) });

export const TESTS: TestRef[] = [
  { slug: 'numerical-reasoning', name: 'Numerical reasoning', type: 'library' },
  { slug: 'big-five', name: 'Big Five personality', type: 'library' },
];

export const SCORES: ResultScores = {
  scorePercentage: 82.5, speedCompleted: 640, questionsAnswered: 20, questionsCorrect: 16, questionsIncorrect: 4, questionsTotal: 24,
  result: 'strong', scores: { openness: 71 },
};

/** The life of one candidate on one two-test assessment, as the domain records it. */
export const candidateStory = (input: { workspaceId: string; mode: Mode; candidateId?: string; assessmentId?: string }) => {
  const candidateId = input.candidateId ?? `cand_${randomUUID().slice(0, 8)}`;
  const assessmentId = input.assessmentId ?? `asm_${randomUUID().slice(0, 8)}`;
  const { workspaceId, mode } = input;
  const candidate = { id: candidateId, email: `${candidateId}@example.com`, firstName: 'Ada', surname: 'Lovelace' };
  const assessmentName = 'Backend engineer';
  const base = { candidateId, workspaceId, mode, assessmentId, candidate, assessmentName };
  const events = {
    invited: (at: string, token = 'tok_abc'): CandidateInvited => ({
      type: 'CandidateInvited',
      data: { assessmentId, workspaceId, assessmentName, deadline: '2026-12-31', invitationId: `inv_${candidateId}`, invitationToken: token, mode, email: candidate.email, firstName: 'Ada', surname: 'Lovelace', invitedAt: at },
    }),
    created: (at: string): CandidateEvent => ({ type: 'CandidateCreated', data: { candidateId, workspaceId, mode, email: candidate.email, firstName: 'Ada', surname: 'Lovelace', createdAt: at } }),
    registered: (at: string): CandidateEvent => ({ type: 'CandidateRegistered', data: { candidateId, workspaceId, mode, assessmentId, assessmentName, tests: TESTS, invitationId: null, registeredAt: at } }),
    started: (at: string): CandidateEvent => ({ type: 'AssessmentStarted', data: { ...base, startedAt: at } }),
    testCompleted: (at: string, test: TestRef, resultId: string): CandidateEvent => ({ type: 'TestCompleted', data: { ...base, resultId, test, completedAt: at, scores: SCORES } }),
    assessmentCompleted: (at: string): CandidateEvent => ({ type: 'AssessmentCompleted', data: { ...base, completedAt: at } }),
    unlocked: (at: string, resultId: string): CandidateEvent => ({ type: 'ResultUnlocked', data: { ...base, resultId, unlockedAt: at, charged: false } }),
  };
  return { candidateId, assessmentId, workspaceId, candidate, assessmentName, events };
};
