import type { ResultState } from '../candidates/candidate.state.js';
import type { DomainEvent } from '../events.js';
import { invitationUrl, reportUrl } from '../shared/links.js';
import type { CandidateRef, WebhookEventName } from '../shared/types.js';
import { candidateRefView, completionUpdatedAt, toResultView, type CompletionView, type ResultView } from './result-view.js';

/*
 * The envelope of an event, as webhooks carry it and the events feed lists it: ONE function for both,
 * so the feed shows exactly what was (or would be) delivered. What it shows beyond its event is
 * handed in: by the dispatcher from the candidate folded up to it, by the feed from the events before.
 */

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
  /** The domain event id: the same across retries, resends and the feed, so receivers can de-duplicate. */
  id: string;
  event: WebhookEventName;
  /** Domain time of the event. */
  createdAt: string;
  workspaceId: string;
  data: WebhookData;
  sandbox?: true;
}

export type EnvelopeSourceType = 'CandidateCreated' | 'CandidateInvited' | 'AssessmentStarted' | 'TestCompleted' | 'AssessmentCompleted' | 'ResultUnlocked';

/** What an envelope reads of a recorded event: the event store's recorded events have these fields and more. */
type AsRecorded<E> = E extends { type: infer T extends string; data: infer D extends object } ? { id: string; type: T; data: D; metadata: { time: string } } : never;

/** The recorded domain events that become envelopes. */
export type EnvelopeSource = AsRecorded<Extract<DomainEvent, { type: EnvelopeSourceType }>>;

// A record rather than a list: a new source event that is not named here fails to compile.
const EVENT_NAME_OF: Record<EnvelopeSourceType, WebhookEventName> = {
  CandidateCreated: 'candidateCreated',
  CandidateInvited: 'candidateInvited',
  AssessmentStarted: 'assessmentStarted',
  TestCompleted: 'testCompleted',
  AssessmentCompleted: 'assessmentCompleted',
  ResultUnlocked: 'resultUnlocked',
};

export const isEnvelopeSource = <E extends { type: string }>(event: E): event is Extract<E, { type: EnvelopeSourceType }> =>
  Object.hasOwn(EVENT_NAME_OF, event.type);

export const envelopeEventName = (event: { type: EnvelopeSourceType }): WebhookEventName => EVENT_NAME_OF[event.type];

/** Webhooks and the feed show results through the same lock rule as every API answer (`toResultView`). */
export const resultView = (state: ResultState): ResultView =>
  toResultView({
    id: state.resultId, testSlug: state.test.slug, testName: state.test.name, testType: state.test.type,
    completedAt: state.completedAt, unlockedAt: state.unlockedAt, scores: state.scores,
  });

/** Results in the order they were finished (ties by id), so a payload never depends on map order. */
export const resultViews = (results: Iterable<ResultState>): ResultView[] =>
  [...results]
    .map(resultView)
    .sort((a, b) => (a.completedAt === b.completedAt ? (a.id < b.id ? -1 : 1) : a.completedAt < b.completedAt ? -1 : 1));

export const completionView = (input: {
  appUrl: string;
  candidate: CandidateRef;
  assessment: { id: string; name: string };
  completedAt: string;
  results: ResultView[];
}): CompletionView => ({
  id: `${input.candidate.id}:${input.assessment.id}`,
  candidate: candidateRefView(input.candidate),
  assessment: { id: input.assessment.id, name: input.assessment.name },
  completedAt: input.completedAt,
  // As the results stood at the event: an envelope never changes once made.
  updatedAt: completionUpdatedAt(input.completedAt, input.results),
  unlocked: input.results.length > 0 && input.results.every((result) => result.unlocked),
  results: input.results,
  reportUrl: reportUrl(input.appUrl, input.candidate.id),
});

/** What an envelope shows beyond its own event, as it stood right after the event. */
export interface EnvelopeContext {
  /** ResultUnlocked: the unlocked result (null: unknown, and the event has no envelope). */
  unlocked: ResultState | null;
  /** AssessmentCompleted: every result of the candidate's assessment. */
  results: Iterable<ResultState>;
}

export const NO_CONTEXT: EnvelopeContext = { unlocked: null, results: [] };

const dataOf = (event: EnvelopeSource, appUrl: string, context: EnvelopeContext): WebhookData | null => {
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
      // Nested objects rebuilt in the API document's field order: data read back from jsonb has its own.
      return { candidate: candidateRefView(event.data.candidate), assessment: { id: event.data.assessmentId, name: event.data.assessmentName }, startedAt: event.data.startedAt };
    case 'TestCompleted': {
      // A result is locked when it is finished (a result unlocks once, after it is finished).
      const { resultId, test, completedAt, scores } = event.data;
      return { candidate: candidateRefView(event.data.candidate), assessment: { id: event.data.assessmentId, name: event.data.assessmentName }, result: resultView({ resultId, test, completedAt, scores, unlockedAt: null }) };
    }
    case 'ResultUnlocked':
      return context.unlocked === null ? null : { candidate: candidateRefView(event.data.candidate), assessment: { id: event.data.assessmentId, name: event.data.assessmentName }, result: resultView(context.unlocked) };
    case 'AssessmentCompleted':
      return completionView({
        appUrl: appUrl.replace(/\/+$/, ""), candidate: event.data.candidate, assessment: { id: event.data.assessmentId, name: event.data.assessmentName },
        completedAt: event.data.completedAt, results: resultViews(context.results),
      });
  }
};

/** A pure function of the event, APP_URL and `context`; null for an unlock of an unknown result. */
export const envelopeOf = (event: EnvelopeSource, appUrl: string, context: EnvelopeContext): WebhookEnvelope | null => {
  const data = dataOf(event, appUrl, context);
  if (data === null) return null;
  const envelope: WebhookEnvelope = { id: event.id, event: envelopeEventName(event), createdAt: event.metadata.time, workspaceId: event.data.workspaceId, data };
  if (event.data.mode === 'sandbox') envelope.sandbox = true;
  return envelope;
};

