import { jest } from '@jest/globals';
import { startService, type RunningService } from './support/service.js';
import { decodeHeader, eventually, mimeParts, sleep, startSmtpReceiver, type ReceivedMail, type SmtpReceiver } from './support/messaging-receivers.js';
import { ISO_TIME, uniqueEmail, world } from './support/messaging-world.js';

jest.setTimeout(60_000);

const inDays = (days: number): string => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/**
 * Invitation e-mails end to end: the outbox of the internal application (read-your-writes after the
 * invitation request) and a real SMTP server started here (SMTP_URL).
 */
describe('invitation e-mails (e2e)', () => {
  let service: RunningService;
  let smtp: SmtpReceiver;
  let w: ReturnType<typeof world>;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    service = await startService({ SMTP_URL: smtp.url });
    w = world(service);
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await smtp?.close();
  });

  const mailsTo = (address: string): ReceivedMail[] => smtp.messages.filter((message) => message.to.includes(address));

  /** The text and HTML bodies and the subject of one SMTP message. */
  const readMail = (message: ReceivedMail) => {
    const { headers, parts } = mimeParts(message.raw);
    const text = parts.find((part) => /^text\/plain/i.test(part.headers['content-type'] ?? 'text/plain'));
    const html = parts.find((part) => /^text\/html/i.test(part.headers['content-type'] ?? ''));
    return { subject: decodeHeader(headers.subject ?? ''), to: headers.to ?? '', text: text?.body ?? null, html: html?.body ?? null };
  };

  it('sends one invitation e-mail per invited entry, readable in the outbox as soon as the request answers', async () => {
    const ws = await w.workspace();
    const deadline = inDays(30);
    const assessment = await w.assessment(ws.live, { name: 'Data Engineer', deadline });
    const people = [uniqueEmail('first'), uniqueEmail('second'), uniqueEmail('third')];
    const invited = await w.invite(ws.live, assessment.id, people.map((email, index) => ({ email: index === 0 ? ` ${email.toUpperCase()} ` : email, firstName: `P${index}` })));
    expect(invited.body.meta).toMatchObject({ invited: 3, alreadyInvited: 0, failed: 0 });
    // No waiting: the outbox is read right after the 200.
    const outboxes = await Promise.all(people.map((email) => w.emails(email)));
    people.forEach((email, index) => {
      const entry = invited.body.data[index];
      expect(entry.email).toBe(email);
      expect(outboxes[index]).toStrictEqual([{ id: expect.any(String), to: email, subject: expect.any(String), text: expect.any(String), sentAt: expect.stringMatching(ISO_TIME) }]);
      const [mail] = outboxes[index]!;
      expect(mail!.text).toContain(entry.invitationUrl);
      expect(mail!.text).toContain('Data Engineer');
      expect(mail!.text).toContain(deadline);
      expect(mail!.subject).toContain('Data Engineer');
    });
    expect(new Set(outboxes.map((list) => list[0]!.id)).size).toBe(3);
    // Nothing for an address nobody invited.
    expect(await w.emails(uniqueEmail('nobody'))).toStrictEqual([]);
  });

  it('has every e-mail of a large invitation in the outbox when the request answers (read-your-writes)', async () => {
    const ws = await w.workspace();
    const assessment = await w.assessment(ws.live);
    const people = Array.from({ length: 100 }, (_, index) => uniqueEmail(`batch-${index}`));
    const invited = await w.invite(ws.live, assessment.id, people.map((email) => ({ email })));
    expect(invited.body.meta).toMatchObject({ invited: 100 });
    // Read at once, the last invited first: before a queue worker could have caught up with 100 jobs.
    const outboxes: Awaited<ReturnType<typeof w.emails>>[] = [];
    for (let index = people.length - 1; index >= 0; index -= 1) outboxes[index] = await w.emails(people[index]!);
    const missing = people.filter((_, index) => outboxes[index]!.length !== 1);
    expect(missing).toStrictEqual([]);
    outboxes.forEach((list, index) => expect(list[0]!.text).toContain(invited.body.data[index].invitationUrl));
  });

  it('lists the e-mails of one address newest first', async () => {
    const ws = await w.workspace();
    const email = uniqueEmail('twice');
    const older = await w.assessment(ws.live, { name: 'Older assessment' });
    const newer = await w.assessment(ws.live, { name: 'Newer assessment' });
    const first = (await w.invite(ws.live, older.id, [{ email }])).body.data[0];
    const second = (await w.invite(ws.live, newer.id, [{ email }])).body.data[0];
    const mails = await w.emails(email);
    expect(mails).toHaveLength(2);
    expect(mails[0]!.text).toContain(second.invitationUrl);
    expect(mails[0]!.text).toContain('Newer assessment');
    expect(mails[1]!.text).toContain(first.invitationUrl);
    expect(Date.parse(mails[0]!.sentAt)).toBeGreaterThanOrEqual(Date.parse(mails[1]!.sentAt));
  });

  it('sends nothing more for an idempotent replay, an already invited address, a candidate or a failed entry', async () => {
    const ws = await w.workspace();
    const assessment = await w.assessment(ws.live);
    const fresh = uniqueEmail('fresh');
    const key = `idem-${Math.random().toString(36).slice(2)}`;
    const body = [{ email: fresh, firstName: 'Fresh' }];
    const original = await w.invite(ws.live, assessment.id, body, { 'Idempotency-Key': key });
    expect(original.body.data[0].status).toBe('invited');
    expect(await w.emails(fresh)).toHaveLength(1);

    const replay = await w.invite(ws.live, assessment.id, body, { 'Idempotency-Key': key });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toStrictEqual(original.body);

    // Already invited, with and without a key; the same address twice in one request.
    const again = await w.invite(ws.live, assessment.id, [{ email: fresh }, { email: fresh }]);
    expect(again.body.data.map((entry: { status: string }) => entry.status)).toStrictEqual(['already_invited', 'already_invited']);
    const twiceInOne = uniqueEmail('dup');
    const dup = await w.invite(ws.live, assessment.id, [{ email: twiceInOne }, { email: twiceInOne.toUpperCase() }]);
    expect(dup.body.data.map((entry: { status: string }) => entry.status)).toStrictEqual(['invited', 'already_invited']);

    // Already a candidate.
    const candidateEmail = uniqueEmail('candidate');
    await w.register({ inviteUrl: assessment.inviteUrl, email: candidateEmail });
    const asCandidate = await w.invite(ws.live, assessment.id, [{ email: candidateEmail }]);
    expect(asCandidate.body.data[0]).toMatchObject({ status: 'already_invited', reason: 'already_candidate' });

    // Failed entries: a valid address with a bad name, a test candidate invited with the live key, a live candidate with the sandbox key.
    const badName = uniqueEmail('badname');
    const testCandidate = uniqueEmail('test-candidate');
    const other = await w.assessment(ws.sandbox);
    await w.register({ invitationUrl: (await w.invite(ws.sandbox, other.id, [{ email: testCandidate }])).body.data[0].invitationUrl });
    const failed = await w.invite(ws.live, assessment.id, [{ email: badName, firstName: 42 }, { email: testCandidate }, { email: 'not-an-address' }]);
    expect(failed.body.data.map((entry: { reason: string }) => entry.reason)).toStrictEqual(['invalid_name', 'sandbox_candidate', 'invalid_email']);
    const liveFromSandbox = await w.invite(ws.sandbox, assessment.id, [{ email: candidateEmail }]);
    expect(liveFromSandbox.body.data[0]).toMatchObject({ status: 'failed', reason: 'live_candidate' });

    await sleep(300);
    expect(await w.emails(fresh)).toHaveLength(1);
    expect(await w.emails(twiceInOne)).toHaveLength(1);
    expect(await w.emails(candidateEmail)).toStrictEqual([]);
    expect(await w.emails(badName)).toStrictEqual([]);
    expect(await w.emails(testCandidate)).toHaveLength(1); // its own sandbox invitation only
    expect(await w.emails('not-an-address')).toStrictEqual([]);
    // Nor over SMTP.
    await eventually(async () => mailsTo(fresh).length + mailsTo(twiceInOne).length, (count) => count >= 2, 10_000, 'SMTP messages');
    await sleep(300);
    expect(mailsTo(fresh)).toHaveLength(1);
    expect(mailsTo(twiceInOne)).toHaveLength(1);
    expect(mailsTo(candidateEmail)).toHaveLength(0);
    expect(mailsTo(badName)).toHaveLength(0);
    expect(mailsTo(testCandidate)).toHaveLength(1);
  });

  it('delivers the invitation over SMTP with a text and an HTML part: link, assessment name and deadline', async () => {
    const ws = await w.workspace();
    const deadline = inDays(14);
    const name = 'R&D <Lead> "Platform" Engineer';
    const withDeadline = await w.assessment(ws.live, { name, deadline });
    const withoutDeadline = await w.assessment(ws.sandbox, { name: 'Support Specialist' });
    const email = uniqueEmail('smtp');
    const live = (await w.invite(ws.live, withDeadline.id, [{ email, firstName: 'Linus', surname: 'T' }])).body.data[0];
    // A sandbox invitation sends the real e-mail too (4.4 (2)).
    const sandbox = (await w.invite(ws.sandbox, withoutDeadline.id, [{ email: uniqueEmail('smtp-sandbox') }])).body.data[0];

    await eventually(async () => mailsTo(email).length + mailsTo(sandbox.email).length, (count) => count >= 2, 15_000, 'SMTP delivery');
    const [message] = mailsTo(email);
    expect(message!.to).toStrictEqual([email]);
    const mail = readMail(message!);
    const [outbox] = await w.emails(email);
    expect(mail.subject).toBe(outbox!.subject);
    expect(mail.subject).toContain(name);
    expect(mail.to).toContain(email);
    expect(mail.text?.replace(/\r\n/g, '\n').trim()).toBe(outbox!.text.trim());
    expect(mail.html?.replace(/\r\n/g, '\n').trim()).toMatch(/^<!doctype html><html><body>\n[\s\S]*\n<\/body><\/html>$/);
    expect(mail.text).toContain(live.invitationUrl);
    expect(mail.text).toContain(name);
    expect(mail.text).toContain(deadline);
    expect(mail.html).toContain(`href="${live.invitationUrl}"`);
    expect(mail.html).toContain('R&amp;D &lt;Lead&gt; &quot;Platform&quot; Engineer');
    expect(mail.html).not.toContain('<Lead>');
    expect(mail.html).toContain(deadline);

    const other = readMail(mailsTo(sandbox.email)[0]!);
    expect(other.text).toContain(sandbox.invitationUrl);
    expect(other.text).toContain('Support Specialist');
    expect(other.html).toContain(sandbox.invitationUrl);
    expect(other.text).not.toMatch(/\d{4}-\d{2}-\d{2}/);
    await sleep(300);
    expect(mailsTo(email)).toHaveLength(1);
  });
});
