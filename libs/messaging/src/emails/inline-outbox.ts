import type { CandidateInvited } from '#domain';
import type { InlineProjector, InlineStep, RecordedEvent } from '#event-store';
import { invitationEmail, invitationEmailJob } from './email-jobs.js';
import type { EmailOutbox } from './outbox.js';

export const INLINE_OUTBOX = 'email-outbox';

/**
 * The e-mail outbox written in the append transaction (transactional outbox): an invitation's
 * e-mail exists the moment the invitation commits, so a write need not wait for the dispatcher to
 * show it. The row is the one the dispatcher records from the log (same id, derived from the event
 * id; the first record wins), so the dispatcher, which still follows the log to hand e-mails to
 * SMTP where one is configured, finds it made and records nothing twice.
 */
export const createInlineOutbox = ({ outbox, appUrl, onRecorded }: {
  outbox: EmailOutbox;
  appUrl: string;
  /** After the commit: the events whose e-mails it recorded (the dispatcher of this process then need not). */
  onRecorded?: (eventIds: readonly string[]) => void;
}): InlineProjector => ({
  name: INLINE_OUTBOX,
  setup: [outbox.recordOneSetup],
  prepare: (): InlineStep => ({
    statements: [],
    finish: (_rows, _head, recorded: readonly RecordedEvent[]) => {
      const emails = recorded.filter((event) => event.type === 'CandidateInvited')
        .map((event) => invitationEmail(invitationEmailJob(event.id, event.data as CandidateInvited['data'], appUrl), event.metadata.time));
      const statement = outbox.recordManySql(emails);
      if (statement === null) return { statements: [] };
      return { statements: [statement], ...(onRecorded === undefined ? {} : { onCommitted: () => onRecorded(emails.map((email) => email.eventId)) }) };
    },
  }),
});
