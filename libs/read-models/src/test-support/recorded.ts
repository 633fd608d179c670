import { randomUUID } from 'node:crypto';
import type { DomainEvent } from '#domain';
import { assessmentStream, candidateEmailStream, candidateStream, workspaceStream } from '#domain';
import type { NewEvent } from '#event-store';
import type { AnyProjection } from '../shared/projection.js';
import { handles } from '../shared/projection.js';
import type { RecordedDomainEvent } from '../shared/recorded-domain-event.js';

/** The stream the domain records each event in (internal-app.md, audit view). */
export const streamOf = (event: DomainEvent): string => {
  switch (event.type) {
    case 'AssessmentCreated': case 'CandidateInvited': case 'AssessmentTestAdded': case 'AssessmentClosed':
    case 'AssessmentCandidateAdded': case 'AssessmentCandidateRemoved':
      return assessmentStream(event.data.assessmentId);
    case 'CandidateCreated': case 'CandidateRegistered': case 'AssessmentStarted': case 'TestCompleted':
    case 'AssessmentCompleted': case 'ResultUnlocked': case 'CandidateDeleted':
      return candidateStream(event.data.candidateId);
    case 'CandidateEmailClaimed': case 'CandidateEmailReleased':
      return candidateEmailStream(event.data.workspaceId, event.data.email);
    default:
      return workspaceStream(event.data.workspaceId);
  }
};

/** Events as the store would hand them over, positions 1, 2, 3… for pure tests. */
export const recorded = (events: readonly DomainEvent[], firstPosition = 1n): RecordedDomainEvent[] =>
  events.map((event, i) => ({
    id: randomUUID(),
    streamId: streamOf(event),
    revision: i,
    position: firstPosition + BigInt(i),
    type: event.type,
    data: event.data,
    metadata: { correlationId: 'test', causationId: null, actor: 'system', requestId: 'test', time: '2026-10-01T09:00:00.000Z' },
    recordedAt: '2026-10-01T09:00:00.000Z',
  }) as RecordedDomainEvent);

export const toNewEvent = (event: DomainEvent): NewEvent => ({
  id: randomUUID(),
  type: event.type,
  data: { ...event.data },
  metadata: { correlationId: randomUUID(), causationId: null, actor: 'system', requestId: randomUUID(), time: '2026-10-01T09:00:00.000Z' },
});

/** Folds events into one document the way the runner does, without a store. */
export const project = <Doc extends object>(projection: AnyProjection, events: readonly DomainEvent[], documentId: string): Doc | null => {
  let doc: object | null = null;
  for (const event of recorded(events)) {
    if (handles(projection, event.type) && projection.documentIds(event).includes(documentId)) doc = projection.evolve(doc, event, documentId);
  }
  return doc as Doc | null;
};
