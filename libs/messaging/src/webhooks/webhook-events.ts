import type {
  AssessmentCompleted, AssessmentStarted, CandidateCreated, CandidateInvited, ResultUnlocked, TestCompleted, WebhookEventName,
} from '#domain';
import type { RecordedEvent } from '#event-store';

type Recorded<E> = E extends { type: infer T extends string; data: infer D extends object } ? RecordedEvent<T, D> : never;

/** The recorded domain events that become webhooks, each with its data typed. */
export type WebhookSourceEvent = Recorded<CandidateCreated | CandidateInvited | AssessmentStarted | TestCompleted | AssessmentCompleted | ResultUnlocked>;

// A record rather than a list: a new webhook source event that is not named here fails to compile.
const WEBHOOK_EVENT_OF: Record<WebhookSourceEvent['type'], WebhookEventName> = {
  CandidateCreated: 'candidateCreated',
  CandidateInvited: 'candidateInvited',
  AssessmentStarted: 'assessmentStarted',
  TestCompleted: 'testCompleted',
  AssessmentCompleted: 'assessmentCompleted',
  ResultUnlocked: 'resultUnlocked',
};

/** The store hands over untyped events; only the domain appends, so the type name is enough to trust the data. */
export const asWebhookSourceEvent = (event: RecordedEvent): WebhookSourceEvent | null =>
  Object.hasOwn(WEBHOOK_EVENT_OF, event.type) ? (event as WebhookSourceEvent) : null;

export const webhookEventName = (event: WebhookSourceEvent): WebhookEventName => WEBHOOK_EVENT_OF[event.type];

/** Events whose payload shows results: they need the candidate as it stood at the event. */
export const needsCandidateState = (event: WebhookSourceEvent): event is Extract<WebhookSourceEvent, { type: 'TestCompleted' | 'AssessmentCompleted' | 'ResultUnlocked' }> =>
  event.type === 'TestCompleted' || event.type === 'AssessmentCompleted' || event.type === 'ResultUnlocked';
