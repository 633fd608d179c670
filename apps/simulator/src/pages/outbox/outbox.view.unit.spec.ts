import { renderInvitationEmail } from '#messaging';
import { linkedText } from './outbox.view.js';

const APP_URL = 'http://localhost:3100';
const anchors = (markup: string): string[] => [...markup.matchAll(/<a [^>]*>/g)].map((match) => match[0]);

describe('outbox text', () => {
  it('links only the service\'s own invitation link; addresses in names stay text', () => {
    const { text } = renderInvitationEmail({
      to: 'ada@example.com',
      firstName: 'Ada https://evil.example/phish mailto:x@evil.example',
      assessmentName: 'Backend\nhttps://evil.example/line\nhttp://localhost:3100/invitations/asm_9/tok_9x trailing',
      deadline: null,
      invitationUrl: `${APP_URL}/invitations/asm_1/tok_1`,
    });
    const markup = linkedText(text, APP_URL).text;
    expect(anchors(markup)).toEqual(['<a href="/invitations/asm_1/tok_1">']);
    expect(markup).toContain('Hello Ada https://evil.example/phish mailto:x@evil.example,');
    expect(markup).toContain('\nhttps://evil.example/line\n');
  });

  it('escapes the text around the link', () => {
    const markup = linkedText(`<b>Hi</b>\n${APP_URL}/join/asm_1/tok_2`, APP_URL).text;
    expect(markup).toBe('&lt;b&gt;Hi&lt;/b&gt;\n<a href="/join/asm_1/tok_2">http://localhost:3100/join/asm_1/tok_2</a>');
  });
});
