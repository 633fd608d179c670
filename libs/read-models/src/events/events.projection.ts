import {
  envelopeOf, envelopeEventName, NO_CONTEXT, type EnvelopeContext, type EnvelopeSourceType, type Mode, type ResultState, type WebhookEnvelope, type WebhookEventName,
} from '#domain';
import { ordered, type Projection } from '../shared/projection.js';
import type { RecordedDomainEvent } from '../shared/recorded-domain-event.js';
import { APP_URL_MARK, markedLinkJson } from '../shared/served-json.js';

/**
 * The events feed (GET /v1/events): one row per event that has an envelope, holding that envelope
 * as it was made, in the log's order. A row is keyed by what its event is about, not by the event
 * id, so that the deletion of a test candidate names every row about them from its own data:
 *
 * | key | listed event | also kept there before it is listed |
 * |---|---|---|
 * | `created:{candidateId}` | candidateCreated | |
 * | `invited:{invitationId}` | candidateInvited | |
 * | `started:{candidateId}:{assessmentId}` | assessmentStarted | |
 * | `completed:{resultId}` | testCompleted | |
 * | `unlocked:{resultId}` | resultUnlocked | the result as finished |
 * | `finished:{candidateId}:{assessmentId}` | assessmentCompleted | the assessment's results so far |
 *
 * Each key has at most one event (a candidate is created once, a result finished and unlocked once,
 * an assessment started and completed once per candidate). A row whose envelope is made never
 * changes again: the testCompleted envelope of a result keeps its locked result after the unlock,
 * as delivered. A deleted test candidate's rows go (their candidate rows by the ids the deletion
 * lists, their invitations by the withdrawal or removal recorded with it). A row listed in the
 * feed has `seq`; a row that only keeps what a later envelope needs has `seq: null` and is never listed.
 */
export interface EventFeedDocument {
  id: string;
  workspaceId: string;
  mode: Mode;
  /** The event's position in the log as 20 digits (text order is log order); null while not listed. */
  seq: string | null;
  eventId: string | null;
  event: WebhookEventName | null;
  createdAt: string | null;
  /** As webhooks carry it, its links on APP_URL_MARK (filled in when served). */
  envelope: WebhookEnvelope | null;
  /** `unlocked:` before the unlock: the result as finished. */
  result?: ResultState;
  /** `finished:` before the completion: the assessment's results so far, by test slug (as the candidate's fold). */
  results?: Record<string, ResultState>;
}

/** The recorded domain events that become envelopes. */
type EnvelopeSourceEvent = Extract<RecordedDomainEvent, { type: EnvelopeSourceType }>;

/** Positions as text that sorts like the number (ESDB commit positions fit in 20 digits). */
export const feedSeq = (position: bigint): string => position.toString().padStart(20, '0');

const pending = (data: { workspaceId: string; mode: Mode }, id: string): EventFeedDocument => ({
  id, workspaceId: data.workspaceId, mode: data.mode, seq: null, eventId: null, event: null, createdAt: null, envelope: null,
});

/** The row of an event made listed; null when the event has no envelope. */
const listed = (event: EnvelopeSourceEvent, id: string, context: EnvelopeContext): EventFeedDocument | null => {
  const envelope = envelopeOf(event, APP_URL_MARK, context);
  if (envelope === null) return null;
  return {
    id, workspaceId: event.data.workspaceId, mode: event.data.mode, seq: feedSeq(event.position), eventId: event.id,
    event: envelopeEventName(event), createdAt: envelope.createdAt, envelope,
  };
};

const resultOf = (event: Extract<RecordedDomainEvent, { type: 'TestCompleted' }>): ResultState => {
  const { resultId, test, completedAt, scores } = event.data;
  return { resultId, test, completedAt, scores, unlockedAt: null };
};

/** The app links of an envelope, which served JSON carries on APP_URL_MARK. */
const linkOf = (envelope: WebhookEnvelope): string | null => {
  const data = envelope.data as { invitation?: { invitationUrl?: string }; reportUrl?: string };
  return data.invitation?.invitationUrl ?? data.reportUrl ?? null;
};

/** The envelope's JSON as served, its link's marker left raw for `fillAppUrl`. */
export const servedEnvelopeJson = (envelope: WebhookEnvelope): string => {
  const json = JSON.stringify(envelope);
  const link = linkOf(envelope);
  // The link's JSON text is a whole string value: nothing else in the envelope can equal it but the link itself.
  return link === null || !link.startsWith(APP_URL_MARK) ? json : json.split(JSON.stringify(link)).join(markedLinkJson(link));
};

export const eventsProjection: Projection<EventFeedDocument> = {
  name: 'events',
  indexes: [
    // createdAt last, not for order: the 30-day cutoff and `since` are checked on the index entries,
    // so a page passes the rows of older events without reading each one's document (still one
    // entry each: a first page behind 125k such rows took 14 ms instead of 170).
    // `event` likewise, for the `type` filter.
    ordered(['workspaceId', 'asc'], ['mode', 'asc'], ['seq', 'asc'], ['id', 'asc'], ['createdAt', 'asc'], ['event', 'asc']),
    ordered(['eventId', 'asc']),
  ],
  eventTypes: [
    'CandidateCreated', 'CandidateInvited', 'AssessmentStarted', 'TestCompleted', 'AssessmentCompleted', 'ResultUnlocked',
    'CandidateDeleted', 'InvitationWithdrawn', 'AssessmentCandidateRemoved',
  ],
  documentIds(event) {
    switch (event.type) {
      case 'CandidateCreated':
        return [`created:${event.data.candidateId}`];
      case 'CandidateInvited':
      case 'InvitationWithdrawn':
        return [`invited:${event.data.invitationId}`];
      case 'AssessmentCandidateRemoved':
        return event.data.invitationId === null ? [] : [`invited:${event.data.invitationId}`];
      case 'AssessmentStarted':
        return [`started:${event.data.candidateId}:${event.data.assessmentId}`];
      case 'TestCompleted':
        return [`completed:${event.data.resultId}`, `unlocked:${event.data.resultId}`, `finished:${event.data.candidateId}:${event.data.assessmentId}`];
      case 'ResultUnlocked':
        return [`unlocked:${event.data.resultId}`, `finished:${event.data.candidateId}:${event.data.assessmentId}`];
      case 'AssessmentCompleted':
        return [`finished:${event.data.candidateId}:${event.data.assessmentId}`];
      case 'CandidateDeleted': {
        const { candidateId, assessmentIds, resultIds } = event.data;
        return [
          `created:${candidateId}`,
          ...assessmentIds.flatMap((assessmentId) => [`started:${candidateId}:${assessmentId}`, `finished:${candidateId}:${assessmentId}`]),
          ...resultIds.flatMap((resultId) => [`completed:${resultId}`, `unlocked:${resultId}`]),
        ];
      }
      default:
        return [];
    }
  },
  evolve(document, event, id) {
    // A listed row is made once and never changes; only a deletion takes it away.
    const open = document === null || document.seq === null;
    switch (event.type) {
      case 'CandidateCreated':
      case 'CandidateInvited':
      case 'AssessmentStarted':
        return open ? listed(event, id, NO_CONTEXT) : document;
      case 'AssessmentCompleted':
        return open ? listed(event, id, { unlocked: null, results: Object.values(document?.results ?? {}) }) : document;
      case 'TestCompleted': {
        if (!open) return document;
        if (id.startsWith('completed:')) return listed(event, id, NO_CONTEXT);
        const result = resultOf(event);
        if (id.startsWith('unlocked:')) return document ?? { ...pending(event.data, id), result };
        const doc = document ?? pending(event.data, id);
        return { ...doc, results: { ...doc.results, [result.test.slug]: result } };
      }
      case 'ResultUnlocked': {
        if (!open || document === null) return document;
        const { resultId, unlockedAt } = event.data;
        if (id.startsWith('unlocked:')) {
          const result = document.result;
          return result === undefined ? document : (listed(event, id, { unlocked: { ...result, unlockedAt }, results: [] }) ?? document);
        }
        const results = Object.fromEntries(Object.entries(document.results ?? {}).map(([slug, result]) =>
          [slug, result.resultId === resultId && result.unlockedAt === null ? { ...result, unlockedAt } : result]));
        return { ...document, results };
      }
      case 'CandidateDeleted':
      case 'InvitationWithdrawn':
      case 'AssessmentCandidateRemoved':
        return null;
      default:
        return document;
    }
  },
  served: (doc) => (doc.envelope === null ? '' : servedEnvelopeJson(doc.envelope)),
};
