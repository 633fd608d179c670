import {
  candidateStream, envelopeOf, evolveCandidate, initialCandidateState, invitationUrl, NO_CONTEXT,
  type CandidateEvent, type CandidateState, type EnvelopeContext, type WebhookEnvelope,
} from '#domain';
import type { EventStore, RecordedEvent } from '#event-store';
import { needsCandidateState, type WebhookSourceEvent } from './webhook-events.js';

export type { InvitationView, WebhookData, WebhookEnvelope } from '#domain';
export { invitationUrl };

/** What a result-showing envelope needs, from the candidate folded up to its event. */
const contextOf = (event: WebhookSourceEvent, candidate: CandidateState | null): EnvelopeContext => {
  if (!needsCandidateState(event)) return NO_CONTEXT;
  const entry = candidate === null || candidate.status === 'none' ? undefined : candidate.assessments[event.data.assessmentId];
  if (entry === undefined) return NO_CONTEXT;
  const results = Object.values(entry.results);
  const unlocked = event.type === 'ResultUnlocked' ? results.find((result) => result.resultId === event.data.resultId) ?? null : null;
  return { unlocked, results };
};

/**
 * The webhook envelope of a recorded event: a pure function of the event and, for events that show
 * results, of the candidate folded up to that event. Null when the event cannot be shown. The
 * envelope itself is the domain's (`envelopeOf`), which the events feed lists too.
 */
export const toWebhookEnvelope = (
  event: WebhookSourceEvent,
  context: { appUrl: string; candidate: CandidateState | null },
): WebhookEnvelope | null => envelopeOf(event, context.appUrl, contextOf(event, context.candidate));

const CANDIDATE_EVENT_TYPES = new Set<string>([
  'CandidateCreated', 'CandidateRegistered', 'AssessmentStarted', 'TestCompleted', 'AssessmentCompleted', 'ResultUnlocked', 'CandidateDeleted',
]);

/** The candidate as it stood right after the event at `revision`: later unlocks never leak into older payloads. */
const candidateStateAt = async (store: Pick<EventStore, 'readStream'>, candidateId: string, revision: number): Promise<CandidateState> => {
  const events: RecordedEvent[] = await store.readStream(candidateStream(candidateId));
  return events
    .filter((event) => event.revision <= revision && CANDIDATE_EVENT_TYPES.has(event.type))
    .reduce((state, event) => evolveCandidate(state, { type: event.type, data: event.data } as CandidateEvent), initialCandidateState());
};

export const buildWebhookEnvelope = async (
  store: Pick<EventStore, 'readStream'>,
  event: WebhookSourceEvent,
  appUrl: string,
): Promise<WebhookEnvelope | null> => {
  const candidate = needsCandidateState(event) ? await candidateStateAt(store, event.data.candidateId, event.revision) : null;
  return toWebhookEnvelope(event, { appUrl, candidate });
};
