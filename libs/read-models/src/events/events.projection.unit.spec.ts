import type { DomainEvent } from '#domain';
import type { RecordedDomainEvent } from '../shared/recorded-domain-event.js';
import { recorded } from '../test-support/recorded.js';
import { assessment, at, candidate, candidateCreated, deleted, event, fullJourney, registered, started, testCompleted, unlocked } from '../test-support/domain-fixtures.js';
import { busyWorkspace } from '../test-support/scenario.js';
import { APP_URL_MARK, fillAppUrl } from '../shared/served-json.js';
import { eventsProjection, feedSeq, servedEnvelopeJson, type EventFeedDocument } from './events.projection.js';

/** The feed's documents after the events, as the runner would leave them (evolved in order, by id). */
const projectRecorded = (events: readonly RecordedDomainEvent[]): Map<string, EventFeedDocument> => {
  const docs = new Map<string, EventFeedDocument>();
  for (const recordedEvent of events) {
    if (!(eventsProjection.eventTypes as readonly string[]).includes(recordedEvent.type)) continue;
    for (const id of new Set(eventsProjection.documentIds(recordedEvent))) {
      const next = eventsProjection.evolve(docs.get(id) ?? null, recordedEvent, id);
      if (next === null) docs.delete(id);
      else docs.set(id, next);
    }
  }
  return docs;
};
const project = (events: readonly DomainEvent[]) => projectRecorded(recorded(events));

/** The listed rows in the feed's order. */
const feed = (docs: Map<string, EventFeedDocument>): EventFeedDocument[] =>
  [...docs.values()].filter((doc) => doc.seq !== null).sort((a, b) => ((a.seq ?? '') < (b.seq ?? '') ? -1 : 1));

const ws = 'w1';
const a1 = assessment(ws, 'a1');
const invitation = (email: string, id: string, mode: 'live' | 'sandbox' = 'sandbox') => event('CandidateInvited', {
  assessmentId: a1.id, workspaceId: ws, assessmentName: a1.name, deadline: null, invitationId: id, invitationToken: `tok-${id}`,
  mode, email, firstName: 'In', surname: 'Vited', invitedAt: at(0),
});

describe('the events feed projection', () => {
  it('lists one envelope per event that webhooks show, in the log\'s order, and keeps nothing else listed', () => {
    const c = candidate(ws, 'c1');
    const rows = feed(project([invitation(c.email, 'i1', 'live'), candidateCreated(c, at(1)), ...fullJourney(c, a1, 2)]));
    expect(rows.map((row) => row.event)).toStrictEqual([
      'candidateInvited', 'candidateCreated', 'assessmentStarted', 'testCompleted', 'testCompleted', 'assessmentCompleted', 'resultUnlocked', 'resultUnlocked',
    ]);
    expect(rows.map((row) => row.seq)).toStrictEqual([...rows.map((row) => row.seq)].sort());
    for (const row of rows) {
      expect(row.envelope?.id).toBe(row.eventId);
      expect(row.createdAt).toBe(row.envelope?.createdAt);
      expect(row.result).toBeUndefined();
      expect(row.results).toBeUndefined();
    }
  });

  it('keeps the testCompleted and assessmentCompleted envelopes locked after the unlocks, as delivered', () => {
    const c = candidate(ws, 'c1');
    const rows = feed(project([candidateCreated(c, at(1)), ...fullJourney(c, a1, 2)]));
    const tests = rows.filter((row) => row.event === 'testCompleted');
    for (const row of tests) expect(row.envelope?.data).toMatchObject({ result: { unlocked: false, scorePercentage: null } });
    // fullJourney(c, a1, 2): finished at minute 5, unlocked at 12 and 13; the envelope keeps the updatedAt it was made with.
    expect(rows.find((row) => row.event === 'assessmentCompleted')?.envelope?.data).toMatchObject({
      completedAt: at(5), updatedAt: at(5), unlocked: false, results: [{ unlocked: false }, { unlocked: false }],
    });
    const unlocks = rows.filter((row) => row.event === 'resultUnlocked').map((row) => row.envelope?.data);
    expect(unlocks).toMatchObject([{ result: { id: 'c1-a1-r0', unlocked: true, scorePercentage: 60 } }, { result: { id: 'c1-a1-r1', unlocked: true, scorePercentage: 61 } }]);
  });

  it('shows at the completion the results as they stood then: one unlocked before it shows unlocked', () => {
    const c = candidate(ws, 'c1');
    const [t0, t1] = a1.tests as [typeof a1.tests[number], typeof a1.tests[number]];
    const rows = feed(project([
      candidateCreated(c, at(1)), ...registered(c, a1, at(2)), started(c, a1, at(3)),
      testCompleted(c, a1, 'r0', t0, at(4), 70), unlocked(c, a1, 'r0', at(5)), testCompleted(c, a1, 'r1', t1, at(6), 80),
      event('AssessmentCompleted', { candidateId: c.id, workspaceId: ws, mode: 'live', assessmentId: a1.id, candidate: { id: c.id, email: c.email, firstName: c.firstName, surname: c.surname }, assessmentName: a1.name, completedAt: at(6) }),
    ]));
    const completion = rows.find((row) => row.event === 'assessmentCompleted')?.envelope?.data;
    expect(completion).toMatchObject({
      completedAt: at(6), updatedAt: at(6), unlocked: false, results: [{ id: 'r0', unlocked: true, scorePercentage: 70 }, { id: 'r1', unlocked: false, scorePercentage: null }],
    });
  });

  it('drops every row of a deleted test candidate, their invitations (used and withdrawn) included', () => {
    const gone = candidate(ws, 'gone', 'sandbox');
    const kept = candidate(ws, 'kept', 'sandbox');
    const a2 = assessment(ws, 'a2');
    const docs = project([
      invitation(gone.email, 'i-gone'), candidateCreated(gone, at(1)), ...fullJourney(gone, a1, 2),
      invitation(gone.email, 'i-gone-pending'),
      invitation(kept.email, 'i-kept'), candidateCreated(kept, at(20)), ...fullJourney(kept, a1, 21),
      ...deleted(gone, [a1], ['gone-a1-r0', 'gone-a1-r1'], at(40)).map((e) =>
        (e.type === 'AssessmentCandidateRemoved' ? { ...e, data: { ...e.data, invitationId: 'i-gone' } } : e) as DomainEvent),
      event('InvitationWithdrawn', { assessmentId: a2.id, workspaceId: ws, email: gone.email, invitationId: 'i-gone-pending', withdrawnAt: at(40) }),
    ]);
    const text = JSON.stringify([...docs.values()]);
    expect(text).not.toContain('gone');
    expect(feed(docs)).toHaveLength(8);
    expect(feed(docs).every((row) => JSON.stringify(row).includes('kept'))).toBe(true);
  });

  it('lists no unlock of a result it never saw finished (as webhooks skip it)', () => {
    const c = candidate(ws, 'c1');
    expect(feed(project([candidateCreated(c, at(1)), unlocked(c, a1, 'unknown', at(2))])).map((row) => row.event)).toStrictEqual(['candidateCreated']);
  });

  it('never changes a row once listed: every row listed after any prefix of the log is the same at its end, or gone with a deletion', () => {
    const events = recorded(busyWorkspace('w1', 8));
    const fold = (upTo: number) => projectRecorded(events.slice(0, upTo));
    const end = fold(events.length);
    let compared = 0;
    for (let upTo = 1; upTo < events.length; upTo += 1) {
      for (const row of feed(fold(upTo))) {
        const last = end.get(row.id);
        if (last === undefined) continue;
        expect(last).toStrictEqual(row);
        compared += 1;
      }
    }
    expect(compared).toBeGreaterThan(500);
  });

  it('serves the envelope with its app link on the marker, filled in as APP_URL when served', () => {
    const c = candidate(ws, 'c1');
    const rows = feed(project([invitation(c.email, 'i1', 'live'), candidateCreated(c, at(1)), ...fullJourney(c, a1, 2)]));
    for (const row of rows) {
      const envelope = row.envelope;
      if (envelope === null) throw new Error('listed without an envelope');
      const served = servedEnvelopeJson(envelope);
      const filled = JSON.parse(fillAppUrl(served, 'https://app.example.com/x')) as { data: { invitation?: { invitationUrl: string }; reportUrl?: string } };
      const link = filled.data.invitation?.invitationUrl ?? filled.data.reportUrl;
      if (link !== undefined) expect(link.startsWith('https://app.example.com/x/')).toBe(true);
      expect(fillAppUrl(served, 'https://app.example.com/x')).not.toContain(APP_URL_MARK);
    }
    expect(feedSeq(12n)).toBe('00000000000000000012');
    expect(feedSeq(18_446_744_073_709_551_615n)).toHaveLength(20);
  });
});
