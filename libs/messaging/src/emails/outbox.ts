import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import { type PreparedStatement, preparedStatement, sqlLiteral } from '#event-store';
import { isoTime, qualified } from '../shared/sql.js';
import type { RenderedEmail } from './invitation-email.js';

export interface OutboxEmail {
  id: string;
  to: string;
  subject: string;
  text: string;
  sentAt: string;
}

export interface StoredEmail extends OutboxEmail {
  html: string;
  eventId: string;
  /** When SMTP accepted it; null when SMTP is not configured or has not accepted it yet. */
  smtpAcceptedAt: string | null;
}

export const OUTBOX_TABLE = 'email_outbox';

/** One e-mail per event: the id is derived from the event id, like the job's. */
export const emailId = (eventId: string): string => `eml_${createHash('sha256').update(eventId).digest('hex').slice(0, 32)}`;

type Row = Record<string, unknown>;

const emailOf = (row: Row): StoredEmail => ({
  id: String(row.id),
  to: String(row.recipient),
  subject: String(row.subject),
  text: String(row.body_text),
  sentAt: isoTime(row.sent_at),
  html: String(row.body_html),
  eventId: String(row.event_id),
  smtpAcceptedAt: row.smtp_accepted_at ? isoTime(row.smtp_accepted_at) : null,
});

export type NewEmail = { eventId: string; to: string; sentAt: string } & RenderedEmail;

/** An e-mail's values as SQL literals, in the order of the outbox's insert. */
const literalRow = (input: NewEmail): string =>
  [emailId(input.eventId), input.eventId, input.to, input.subject, input.text, input.html, input.sentAt].map(sqlLiteral).join(', ');

const listed = ({ id, to, subject, text, sentAt }: StoredEmail): OutboxEmail => ({ id, to, subject, text, sentAt });

const COLUMNS = 'id, recipient, subject, body_text, body_html, sent_at, event_id, smtp_accepted_at';

/** The outbox of the internal application: every e-mail the service sends, SMTP or not. One statement per call (two when `record` meets an existing row). */
export class EmailOutbox {
  private readonly table: string;
  /** recordManySql's statement for a single e-mail, prepared once per connection (recordOneSetup). */
  private readonly recordOne: PreparedStatement;

  constructor(private readonly pool: Pool, schema: string) {
    this.table = qualified(schema, OUTBOX_TABLE);
    this.recordOne = preparedStatement('email_outbox_record_one', `INSERT INTO ${this.table} (id, event_id, recipient, subject, body_text, body_html, sent_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (event_id) DO NOTHING`, ['text', 'text', 'text', 'text', 'text', 'text', 'timestamptz']);
  }

  /** A deleted person's e-mails (by the events that made them) read as `erased` from now on: recipient and bodies. */
  async redact(eventIds: readonly string[], erased: string): Promise<void> {
    if (eventIds.length === 0) return;
    await this.pool.query(`UPDATE ${this.table} SET recipient = $2, body_text = $2, body_html = $2 WHERE event_id = ANY($1)`, [[...eventIds], erased]);
  }

  /** Idempotent on the event id: the first record wins, a second run returns it unchanged. */
  async record(input: NewEmail): Promise<StoredEmail> {
    const inserted = await this.pool.query(
      `INSERT INTO ${this.table} (id, event_id, recipient, subject, body_text, body_html, sent_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (event_id) DO NOTHING RETURNING ${COLUMNS}`,
      [emailId(input.eventId), input.eventId, input.to, input.subject, input.text, input.html, input.sentAt],
    );
    const row = inserted.rows[0] as Row | undefined;
    if (row) return emailOf(row);
    const existing = await this.pool.query(`SELECT ${COLUMNS} FROM ${this.table} WHERE event_id = $1`, [input.eventId]);
    const existingRow = existing.rows[0] as Row | undefined;
    if (!existingRow) throw new Error(`e-mail of event ${input.eventId} vanished while it was being recorded`);
    return emailOf(existingRow);
  }

  /** Many at once, one statement: idempotent on the event id like `record` (the first record wins). */
  async recordMany(inputs: readonly NewEmail[]): Promise<void> {
    if (inputs.length > 0) await this.pool.query(this.insertSql(inputs.map(literalRow)));
  }

  /**
   * `recordMany` as one literal statement, for a caller that runs it inside a transaction of its
   * own (the inline outbox, in the append transaction); null when there is nothing to record.
   */
  recordManySql(inputs: readonly NewEmail[]): string | null {
    const values = inputs.map(literalRow);
    if (values.length === 0) return null;
    // One e-mail (the usual append): the statement recordOneSetup prepared on the connection.
    return values.length === 1 ? `EXECUTE ${this.recordOne.name}(${values[0] ?? ''})` : this.insertSql(values);
  }

  private insertSql(values: readonly string[]): string {
    return `INSERT INTO ${this.table} (id, event_id, recipient, subject, body_text, body_html, sent_at) VALUES ${values.map((row) => `(${row})`).join(', ')} ON CONFLICT (event_id) DO NOTHING`;
  }

  /** The PREPARE behind recordManySql's single e-mail, to run once on each connection that uses it. */
  get recordOneSetup(): string {
    return this.recordOne.prepare;
  }

  async markSmtpAccepted(id: string, at: string): Promise<void> {
    await this.pool.query(`UPDATE ${this.table} SET smtp_accepted_at = $2 WHERE id = $1 AND smtp_accepted_at IS NULL`, [id, at]);
  }

  /** The latest e-mails to anyone, newest first: the internal pages' outbox before it is filtered by address. */
  async listRecent(limit: number): Promise<OutboxEmail[]> {
    const result = await this.pool.query(`SELECT ${COLUMNS} FROM ${this.table} ORDER BY seq DESC LIMIT $1`, [limit]);
    return (result.rows as Row[]).map(emailOf).map(listed);
  }

  /** Newest first. Addresses are stored as the domain wrote them (trimmed, lower case). */
  async listEmails(to: string): Promise<OutboxEmail[]> {
    const result = await this.pool.query(
      `SELECT ${COLUMNS} FROM ${this.table} WHERE recipient = $1 ORDER BY sent_at DESC, seq DESC LIMIT 1000`,
      [to.trim().toLowerCase()],
    );
    return (result.rows as Row[]).map(emailOf).map(listed);
  }
}
