import type pg from 'pg';
import type { ReceivedWebhook } from '../../support/messaging-receivers.js';
import type { Findings } from './findings.js';
import { ERASED, type LogFacts } from './log.js';

export const WEBHOOK_SOURCES: ReadonlySet<string> = new Set(['CandidateCreated', 'CandidateInvited', 'AssessmentStarted', 'TestCompleted', 'AssessmentCompleted', 'ResultUnlocked']);

/** The log's events that become webhooks (every workspace subscribes to all six). */
export const webhookEventIds = (facts: LogFacts): Set<string> =>
  new Set(facts.events.filter((event) => WEBHOOK_SOURCES.has(event.type)).map((event) => event.id));

/** Every such event reached the receiver at least once, as its own envelope; duplicates are counted and reported, not failed. */
export const checkWebhooks = (facts: LogFacts, received: ReceivedWebhook[], findings: Findings): void => {
  const events = new Map(facts.events.filter((event) => WEBHOOK_SOURCES.has(event.type)).map((event) => [event.id, event]));
  const workspaceIds = new Set(facts.events.map((event) => event.data.workspaceId as string));
  const counts = new Map<string, number>();
  for (const request of received) {
    const envelope = request.body as { id?: string; workspaceId?: string; sandbox?: boolean; event?: string };
    if (!workspaceIds.has(envelope.workspaceId ?? '')) continue;
    const id = envelope.id ?? '';
    counts.set(id, (counts.get(id) ?? 0) + 1);
    const event = events.get(id);
    if (!findings.expect(event !== undefined, 'webhooks carry events of the log', () => `envelope ${id} (${envelope.event}) is no webhook event of the log`)) continue;
    const sandbox = event?.data.mode === 'sandbox';
    findings.expect((envelope.sandbox === true) === sandbox && (sandbox || !('sandbox' in envelope)), 'test candidates\' envelopes carry sandbox: true, live ones none', () =>
      `envelope ${id} (${envelope.event}) sandbox ${envelope.sandbox} for a ${event?.data.mode} event`);
  }
  const missing = [...events.values()].filter((event) => !counts.has(event.id));
  for (const event of missing) findings.add('every event\'s webhook is delivered', `${event.type} ${event.id} on ${event.streamId} never arrived`);
  const duplicates = [...counts.values()].filter((count) => count > 1);
  findings.note(`webhooks: ${events.size} events, ${[...counts.values()].reduce((sum, count) => sum + count, 0)} deliveries received, `
    + `${duplicates.length} events delivered more than once (${duplicates.reduce((sum, count) => sum + count - 1, 0)} extra deliveries), ${missing.length} missing`);
};

/** The delivery log of each workspace shows every delivery succeeded (none pending, none failed). */
export const checkDeliveryLog = (workspaceId: string, deliveries: { status: string; eventId: string; lastError: string | null }[], findings: Findings): void => {
  for (const delivery of deliveries) {
    findings.expect(delivery.status === 'succeeded', 'every webhook delivery succeeds', () => `${workspaceId}: ${delivery.eventId} ${delivery.status} (${delivery.lastError})`);
  }
};

/**
 * One invitation e-mail per invitation of the log, in the outbox table: to the invited address,
 * with the personal link, or redacted to `[erased]` with the person; and none that no invitation made.
 */
export const checkEmails = async (db: pg.Client, facts: LogFacts, appUrl: string, addresses: string[], findings: Findings): Promise<void> => {
  const invitations = [...facts.invitations.values()];
  const rows = (await db.query<{ event_id: string; recipient: string; body_text: string }>(
    'SELECT event_id, recipient, body_text FROM messaging.email_outbox WHERE event_id = ANY($1) OR recipient = ANY($2)',
    [invitations.map((invitation) => invitation.eventId), addresses],
  )).rows;
  const byEvent = new Map<string, typeof rows>();
  for (const row of rows) byEvent.set(row.event_id, [...(byEvent.get(row.event_id) ?? []), row]);
  const eventIds = new Set(invitations.map((invitation) => invitation.eventId));
  for (const row of rows) {
    findings.expect(eventIds.has(row.event_id), 'every e-mail comes from an invitation of the log', () => `outbox row of event ${row.event_id} to ${row.recipient}`);
  }
  for (const invitation of invitations) {
    const emails = byEvent.get(invitation.eventId) ?? [];
    if (!findings.expect(emails.length === 1, 'one e-mail per invitation', () => `${invitation.email} on ${invitation.assessmentId}: ${emails.length} outbox rows`)) continue;
    const [email] = emails;
    const link = `${appUrl}/invitations/${invitation.assessmentId}/${invitation.token}`;
    // A standing invitation that reads erased is reported by checkStandingInvitationsReadable; its e-mail rightly went out.
    if (invitation.email === ERASED && invitation.endedBy === null) continue;
    const erased = invitation.email === ERASED;
    findings.expect(
      erased ? email?.recipient === ERASED : email?.recipient === invitation.email && email.body_text.includes(link),
      'each invitation e-mail goes to its address with its link (redacted with an erased person)',
      () => `${invitation.email} on ${invitation.assessmentId}: outbox row to ${email?.recipient}${erased ? '' : `, link ${email?.body_text.includes(link) ? 'present' : 'absent'}`}`,
    );
  }
};
