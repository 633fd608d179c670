import {
  candidateStream, evolveCandidate, initialCandidateState, invitationUrl,
  type CandidateEvent, type CandidateRef, type CandidateState, type WebhookEventName,
} from '#domain';
import type { EventStore, RecordedEvent } from '#event-store';
import { completionView, resultView, resultViews, type CompletionView, type ResultView } from './result-views.js';
import { needsCandidateState, webhookEventName, type WebhookSourceEvent } from './webhook-events.js';

export interface InvitationView {
  email: string;
  firstName: string;
  surname: string;
  status: 'invited';
  reason: null;
  candidateId: null;
  invitationUrl: string;
}

type AssessmentView = { id: string; name: string };

export type WebhookData =
  | { candidate: CandidateRef }
  | { assessment: AssessmentView; invitation: InvitationView }
  | { candidate: CandidateRef; assessment: AssessmentView; startedAt: string }
  | { candidate: CandidateRef; assessment: AssessmentView; result: ResultView }
  | CompletionView;

export interface WebhookEnvelope {
  /** The domain event id: the same across retries and resends, so receivers can de-duplicate. */
  id: string;
  event: WebhookEventName;
  /** Domain time of the event. */
  createdAt: string;
  workspaceId: string;
  data: WebhookData;
  sandbox?: true;
}

export { invitationUrl };

const dataOf = (event: WebhookSourceEvent, appUrl: string, candidate: CandidateState | null): WebhookData | null => {
  switch (event.type) {
    case 'CandidateCreated': {
      const { candidateId: id, email, firstName, surname } = event.data;
      return { candidate: { id, email, firstName, surname } };
    }
    case 'CandidateInvited': {
      const { assessmentId, assessmentName, email, firstName, surname, invitationToken } = event.data;
      return {
        assessment: { id: assessmentId, name: assessmentName },
        invitation: { email, firstName, surname, status: 'invited', reason: null, candidateId: null, invitationUrl: invitationUrl(appUrl, assessmentId, invitationToken) },
      };
    }
    case 'AssessmentStarted':
      return { candidate: event.data.candidate, assessment: { id: event.data.assessmentId, name: event.data.assessmentName }, startedAt: event.data.startedAt };
    default:
      return resultData(event, appUrl, candidate);
  }
};

const resultData = (
  event: Extract<WebhookSourceEvent, { type: 'TestCompleted' | 'AssessmentCompleted' | 'ResultUnlocked' }>,
  appUrl: string,
  candidate: CandidateState | null,
): WebhookData | null => {
  const { assessmentId, assessmentName } = event.data;
  const assessment = { id: assessmentId, name: assessmentName };
  const entry = candidate?.status === 'none' ? undefined : candidate?.assessments[assessmentId];
  switch (event.type) {
    case 'TestCompleted': {
      const folded = entry?.results[event.data.test.slug];
      // A result is locked when it is finished; the event alone is enough if the fold misses it.
      const state = folded?.resultId === event.data.resultId ? folded : { ...event.data, unlockedAt: null };
      return { candidate: event.data.candidate, assessment, result: resultView(state) };
    }
    case 'ResultUnlocked': {
      const state = entry ? Object.values(entry.results).find((result) => result.resultId === event.data.resultId) : undefined;
      return state ? { candidate: event.data.candidate, assessment, result: resultView(state) } : null;
    }
    case 'AssessmentCompleted':
      return completionView({ appUrl: appUrl.replace(/\/+$/, ''), candidate: event.data.candidate, assessment, completedAt: event.data.completedAt, results: entry ? resultViews(entry) : [] });
  }
};

/**
 * The webhook envelope of a recorded event: a pure function of the event and, for events that show
 * results, of the candidate folded up to that event. Null when the event cannot be shown.
 */
export const toWebhookEnvelope = (
  event: WebhookSourceEvent,
  context: { appUrl: string; candidate: CandidateState | null },
): WebhookEnvelope | null => {
  const data = dataOf(event, context.appUrl, context.candidate);
  if (data === null) return null;
  const envelope: WebhookEnvelope = { id: event.id, event: webhookEventName(event), createdAt: event.metadata.time, workspaceId: event.data.workspaceId, data };
  return event.data.mode === 'sandbox' ? { ...envelope, sandbox: true } : envelope;
};

const CANDIDATE_EVENT_TYPES = new Set<string>([
  'CandidateCreated', 'CandidateRegistered', 'AssessmentStarted', 'TestCompleted', 'AssessmentCompleted', 'ResultUnlocked', 'CandidateDeleted',
]);

/** The candidate as it stood right after the event at `revision`: later unlocks never leak into older payloads. */
export const candidateStateAt = async (store: Pick<EventStore, 'readStream'>, candidateId: string, revision: number): Promise<CandidateState> => {
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
