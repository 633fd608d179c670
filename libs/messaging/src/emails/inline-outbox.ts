import type { CandidateInvited } from '#domain';
import type { InlineProjector, InlineStep, RecordedEvent } from '#event-store';
import { qualified } from '../shared/sql.js';
import type { EmailJob } from '../shared/queues.js';
import { invitationUrl } from '../webhooks/envelopes.js';
import { renderInvitationEmail } from './invitation-email.js';
import { OUTBOX_TABLE, emailId } from './outbox.js';

export const INLINE_OUTBOX = 'email-outbox';

/** The invitation e-mail an event asks for: the same job, whoever makes it (the dispatcher, the inline outbox). */
export const invitationEmailJob = (eventId: string, data: CandidateInvited['data'], appUrl: string): EmailJob => {
  const { email, firstName, assessmentName, deadline, assessmentId, invitationToken } = data;
  return { eventId, to: email, firstName, assessmentName, deadline, invitationUrl: invitationUrl(appUrl, assessmentId, invitationToken) };
};

/**
 * The e-mail outbox written in the append transaction (transactional outbox): an invitation's
 * e-mail exists the moment the invitation commits, so a write need not wait for the dispatcher to
 * show it. The row is the one the dispatcher records from the log (same id, derived from the event
 * id; the first record wins), so the dispatcher, which still follows the log to hand e-mails to
 * SMTP where one is configured, finds it made and records nothing twice.
 */
export const createInlineOutbox = ({ schema, appUrl }: { schema: string; appUrl: string }): InlineProjector => {
  const table = qualified(schema, OUTBOX_TABLE);
  return {
    name: INLINE_OUTBOX,
    prepare: (_events, literal): InlineStep => ({
      statements: [],
      finish: (_rows, _head, recorded: readonly RecordedEvent[]) => {
        const values = recorded.filter((event) => event.type === 'CandidateInvited').map((event) => {
          const job = invitationEmailJob(event.id, event.data as CandidateInvited['data'], appUrl);
          const email = renderInvitationEmail(job);
          return `(${[emailId(event.id), event.id, job.to, email.subject, email.text, email.html, event.metadata.time].map(literal).join(', ')})`;
        });
        if (values.length === 0) return { statements: [] };
        return {
          statements: [`INSERT INTO ${table} (id, event_id, recipient, subject, body_text, body_html, sent_at) VALUES ${values.join(', ')} ON CONFLICT (event_id) DO NOTHING`],
        };
      },
    }),
  };
};
