import { type RecordedEvent, LogVerifier, type IntegrityOptions, type LogSource, linkedBatches } from '#event-store';
import {
  type AssessmentEvent, type CandidateEmailEvent, type CandidateEvent, type DomainEvent, type WorkspaceEvent, evolveAssessment, evolveCandidate,
  evolveCandidateEmail, evolveWorkspace, initialAssessmentState, initialCandidateEmailState, initialCandidateState, initialWorkspaceState,
  isKnownEventType,
} from '#domain';

export interface VerifyReport {
  events: number;
  streams: number;
  seals: number;
  unsealedEvents: number;
  unlinkedEvents: number;
  /** In the order found: the first one is the first broken link. */
  problems: string[];
}

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
 * Replays the log in global order and checks positions, gapless revisions, known types, metadata,
 * each stream's hash chain, the seals, the global links (nothing removed, inserted or moved) and that
 * every stream folds through its decider's evolve.
 */
export const verifyLog = async (source: LogSource, integrity: IntegrityOptions, onProgress: (done: number) => void): Promise<VerifyReport> => {
  const verifier = new LogVerifier(integrity);
  for (const seal of await source.seals()) verifier.addSeal(seal);
  const problems: string[] = [];
  const byStream = new Map<string, RecordedEvent[]>();
  let events = 0;
  for await (const { events: batch, links } of linkedBatches(source)) {
    verifier.addLinks(links);
    for (const event of batch) {
      verifier.add(event);
      if (!isKnownEventType(event.type)) problems.push(`${event.streamId} revision ${event.revision}: unknown event type ${event.type}`);
      const { correlationId, actor, requestId, time } = event.metadata;
      if (!correlationId || !actor || !requestId || !time || Number.isNaN(Date.parse(time))) problems.push(`${event.streamId} revision ${event.revision}: incomplete metadata`);
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
  const report = verifier.finish();
  return { events, streams: report.streams, seals: report.seals, unsealedEvents: report.unsealedEvents, unlinkedEvents: report.unlinkedEvents, problems: [...report.findings, ...problems] };
};
