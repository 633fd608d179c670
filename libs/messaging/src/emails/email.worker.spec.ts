import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { EMAIL_QUEUE, type EmailJob } from '../shared/queues.js';
import { TestClock, waitFor } from '../test-support/clock.js';
import { createTestDatabase, type TestDatabase } from '../test-support/postgres.js';
import { connectRedis, deleteKeys, uniquePrefix } from '../test-support/redis.js';
import { startSmtpServer, type TestSmtpServer } from '../test-support/smtp.js';
import { enqueueInvitationEmails } from './email-jobs.js';
import type { Worker } from 'bullmq';
import { createEmailWorker } from './email.worker.js';
import { EmailOutbox } from './outbox.js';
import { migrateMessagingTables } from '../shared/messaging.migrations.js';

/** Quoted-printable soft line breaks and escapes, so the test reads the text as a mail client would. */
const decodeQuotedPrintable = (raw: string): string =>
  raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));

describe('invitation e-mail worker', () => {
  let db: TestDatabase;
  let outbox: EmailOutbox;
  let redis: Redis;
  let prefix: string;
  let queue: Queue<EmailJob>;
  let smtp: TestSmtpServer | null = null;
  let worker: Worker | null = null;

  beforeAll(async () => {
    db = await createTestDatabase('email_worker');
    outbox = new EmailOutbox(db.pool, db.schema);
    await migrateMessagingTables(db.pool, db.schema);
    redis = connectRedis();
  });
  beforeEach(() => {
    prefix = uniquePrefix('email');
    queue = new Queue<EmailJob>(EMAIL_QUEUE, { connection: redis, prefix });
  });
  afterEach(async () => {
    await worker?.close();
    await smtp?.close();
    await queue.close();
    await deleteKeys(redis, prefix);
    worker = null;
    smtp = null;
  });
  afterAll(async () => {
    await Promise.all([redis, ...workerConnections].map((connection) => connection.quit()));
    await db.drop();
  });

  // Each worker gets its own connection: BullMQ blocks on it while it waits for jobs.
  const workerConnections: Redis[] = [];
  const startWorker = async (smtpUrl: string | null): Promise<Worker> => {
    const connection = connectRedis();
    workerConnections.push(connection);
    worker = createEmailWorker({ connection, prefix, outbox, clock: new TestClock(), smtpUrl, backoffMs: 20 });
    await worker.waitUntilReady();
    return worker;
  };

  const invitation = (to: string): EmailJob => ({
    eventId: randomUUID(), to, firstName: 'Ada', assessmentName: 'Backend <engineer>', deadline: '2026-12-31',
    invitationUrl: `http://localhost:3100/invitations/asm_1/${randomUUID()}`,
  });

  it('records the e-mail in the outbox and sends it over SMTP once, however often the event is enqueued', async () => {
    smtp = await startSmtpServer();
    const job = invitation(`ada-${randomUUID().slice(0, 6)}@example.com`);
    await enqueueInvitationEmails(queue, [job]);
    await enqueueInvitationEmails(queue, [job]);
    await startWorker(smtp.url);
    const emails = await waitFor(async () => ((await outbox.listEmails(job.to)).length > 0 ? outbox.listEmails(job.to) : null), 10_000, 'the outbox');
    await waitFor(async () => smtp?.messages.length === 1, 10_000, 'the SMTP message');
    expect(emails).toHaveLength(1);
    expect(emails[0]?.text).toContain(job.invitationUrl);
    const message = smtp.messages[0];
    expect(message?.to).toStrictEqual([job.to]);
    expect(decodeQuotedPrintable(message?.raw ?? '')).toContain(job.invitationUrl);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(smtp.messages).toHaveLength(1);
  });

  it('retries when the SMTP server refuses, keeping one outbox row', async () => {
    smtp = await startSmtpServer({ rejectFirst: 2 });
    const job = invitation(`grace-${randomUUID().slice(0, 6)}@example.com`);
    await startWorker(smtp.url);
    await enqueueInvitationEmails(queue, [job]);
    await waitFor(async () => smtp?.messages.length === 1, 10_000, 'the SMTP message');
    expect(smtp.rejected).toBe(2);
    expect(await outbox.listEmails(job.to)).toHaveLength(1);
  });

  it('without SMTP the e-mail is kept in the outbox only', async () => {
    const job = invitation(`alan-${randomUUID().slice(0, 6)}@example.com`);
    await startWorker(null);
    await enqueueInvitationEmails(queue, [job]);
    const [email] = await waitFor(async () => ((await outbox.listEmails(job.to)).length > 0 ? outbox.listEmails(job.to) : null), 10_000, 'the outbox');
    expect(email).toMatchObject({ to: job.to, sentAt: await new TestClock().now() });
    expect(email?.subject).toContain('Backend <engineer>');
  });
});
