import { escapeHtml, renderInvitationEmail } from './invitation-email.js';

const input = {
  to: 'ada@example.com',
  firstName: 'Ada <script>',
  assessmentName: 'Backend "senior" & <b>lead</b>',
  deadline: '2026-12-31',
  invitationUrl: 'http://localhost:3100/invitations/asm_1/tok_1?x=1&y=2',
};

describe('renderInvitationEmail', () => {
  const email = renderInvitationEmail(input);

  it('puts the personal link in the text', () => {
    expect(email.text).toContain(input.invitationUrl);
    expect(email.text).toContain('2026-12-31');
    expect(email.subject).toContain('Backend "senior" & <b>lead</b>');
  });

  it('escapes the sender-supplied text in the HTML', () => {
    expect(email.html).not.toContain('<script>');
    expect(email.html).not.toContain('<b>lead</b>');
    expect(email.html).toContain('Ada &lt;script&gt;');
    expect(email.html).toContain('Backend &quot;senior&quot; &amp; &lt;b&gt;lead&lt;/b&gt;');
    expect(email.html).toContain('href="http://localhost:3100/invitations/asm_1/tok_1?x=1&amp;y=2"');
  });

  it('keeps the subject on one line and greets nameless people plainly', () => {
    const plain = renderInvitationEmail({ ...input, firstName: '', assessmentName: 'Line\r\nBcc: evil@example.com', deadline: null });
    expect(plain.subject).not.toMatch(/[\r\n]/);
    expect(plain.text.startsWith('Hello,')).toBe(true);
    expect(plain.text).not.toContain('complete it by');
  });

  it('escapes every HTML-special character', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});
