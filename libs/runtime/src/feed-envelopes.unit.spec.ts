import { evolveCandidate, initialCandidateState, type CandidateEvent, type CandidateState } from '#domain';
import { APP_URL_MARK, eventsProjection, type EventFeedDocument } from '#read-models';
import { recorded } from '#read-models/test-support/recorded.js';
import { busyWorkspace } from '#read-models/test-support/scenario.js';
import { asWebhookSourceEvent, toWebhookEnvelope } from '#messaging';

const CANDIDATE_TYPES = new Set(['CandidateCreated', 'CandidateRegistered', 'AssessmentStarted', 'TestCompleted', 'AssessmentCompleted', 'ResultUnlocked', 'CandidateDeleted']);

/**
 * The events feed and the webhooks make their envelopes from different context (the feed from what
 * its projection kept, the dispatcher from the candidate folded up to the event) through one
 * function: for a workspace with every kind of event, both give the same envelope for every event.
 * It lives here because it needs both peers (read-models and messaging), which import none of each other.
 */
describe('the feed\'s envelopes and the webhooks\' envelopes', () => {
  it('are equal for every event of a busy workspace, but those of the deleted test candidate, which the feed no longer lists', () => {
    const events = recorded([...busyWorkspace('w1', 9), ...busyWorkspace('w2', 4)]);
    const candidates = new Map<string, CandidateState>();
    const webhooks = new Map<string, unknown>();
    const docs = new Map<string, EventFeedDocument>();
    for (const event of events) {
      if (CANDIDATE_TYPES.has(event.type)) {
        const candidateId = String((event.data as { candidateId: string }).candidateId);
        candidates.set(candidateId, evolveCandidate(candidates.get(candidateId) ?? initialCandidateState(), { type: event.type, data: event.data } as CandidateEvent));
      }
      const source = asWebhookSourceEvent(event);
      if (source !== null) {
        const candidate = 'candidateId' in source.data ? candidates.get(source.data.candidateId) ?? null : null;
        const envelope = toWebhookEnvelope(source, { appUrl: APP_URL_MARK, candidate });
        if (envelope !== null) webhooks.set(envelope.id, envelope);
      }
      if (!(eventsProjection.eventTypes as readonly string[]).includes(event.type)) continue;
      for (const id of new Set(eventsProjection.documentIds(event))) {
        const next = eventsProjection.evolve(docs.get(id) ?? null, event, id);
        if (next === null) docs.delete(id);
        else docs.set(id, next);
      }
    }
    const listed = [...docs.values()].filter((doc) => doc.envelope !== null);
    expect(listed.length).toBeGreaterThan(60);
    for (const doc of listed) expect(doc.envelope).toStrictEqual(webhooks.get(doc.eventId ?? ''));
    // What the feed does not list is exactly what is about the deleted test candidates.
    const missing = [...webhooks.entries()].filter(([id]) => !listed.some((doc) => doc.eventId === id)).map(([, envelope]) => JSON.stringify(envelope));
    expect(missing.length).toBeGreaterThan(0);
    for (const text of missing) expect(text).toMatch(/w[12]-c3|pending-0@/);
  });
});
