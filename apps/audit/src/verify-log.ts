import type { EventStore, RecordedEvent } from '../../../libs/event-store/src/event-store.port.js';
import {
  type AssessmentEvent, type CandidateEmailEvent, type CandidateEvent, type DomainEvent, type WorkspaceEvent, evolveAssessment, evolveCandidate,
  evolveCandidateEmail, evolveWorkspace, initialAssessmentState, initialCandidateEmailState, initialCandidateState, initialWorkspaceState,
} from '../../../libs/domain/src/index.js';
import { isDomainEventType } from '../../../libs/read-models/src/shared/recorded-domain-event.js';

export interface VerifyReport {
  events: number;
  streams: number;
  problems: string[];
}

const isKnownType = (type: string): boolean => isDomainEventType(type) || type === 'SimulatedClockAdvanced';

/** Folds one stream with its aggregate's evolve: a log the deciders cannot replay is a finding. */
export const foldStream = (streamId: string, events: readonly RecordedEvent[]): unknown => {
  const domain = events.map((event) => ({ type: event.type, data: event.data }) as DomainEvent);
  if (streamId.startsWith('workspace-')) return (domain as WorkspaceEvent[]).reduce(evolveWorkspace, initialWorkspaceState());
  if (streamId.startsWith('assessment-')) return (domain as AssessmentEvent[]).reduce(evolveAssessment, initialAssessmentState());
  if (streamId.startsWith('candidate-email-')) return (domain as CandidateEmailEvent[]).reduce(evolveCandidateEmail, initialCandidateEmailState());
  if (streamId.startsWith('candidate-')) return (domain as CandidateEvent[]).reduce(evolveCandidate, initialCandidateState());
  return events.at(-1)?.data ?? null;
};

/**
 * Replays the whole log in global order and checks what auditors rely on: positions strictly
 * increase, each stream's revisions run 0, 1, 2… without a gap, every event is of a known type and
 * carries its metadata, and every stream folds through its decider's evolve.
 */
export const verifyLog = async (store: EventStore, onProgress: (done: number) => void): Promise<VerifyReport> => {
  const problems: string[] = [];
  const nextRevision = new Map<string, number>();
  const byStream = new Map<string, RecordedEvent[]>();
  let after: bigint | null = null;
  let events = 0;
  for (;;) {
    const batch = await store.readAll({ after, maxCount: 1000 });
    if (batch.length === 0) break;
    for (const event of batch) {
      if (after !== null && event.position <= after) problems.push(`position ${event.position} does not increase after ${after}`);
      after = event.position;
      const expected = nextRevision.get(event.streamId) ?? 0;
      if (event.revision !== expected) problems.push(`${event.streamId}: revision ${event.revision} where ${expected} was expected`);
      nextRevision.set(event.streamId, event.revision + 1);
      if (!isKnownType(event.type)) problems.push(`${event.streamId}@${event.revision}: unknown event type ${event.type}`);
      const { correlationId, actor, requestId, time } = event.metadata;
      if (!correlationId || !actor || !requestId || !time || Number.isNaN(Date.parse(time))) problems.push(`${event.streamId}@${event.revision}: incomplete metadata`);
      const list = byStream.get(event.streamId) ?? [];
      list.push(event);
      byStream.set(event.streamId, list);
      events += 1;
    }
    onProgress(events);
  }
  for (const [streamId, streamEvents] of byStream) {
    try {
      foldStream(streamId, streamEvents);
    } catch (error) {
      problems.push(`${streamId}: does not fold: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { events, streams: byStream.size, problems };
};
