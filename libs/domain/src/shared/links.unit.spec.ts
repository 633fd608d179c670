import { invitationUrl, inviteUrl, parseLink } from './links.js';

const APP_URL = 'http://localhost:3100';

describe('parseLink', () => {
  it('reads back the links the service issues', () => {
    expect(parseLink(invitationUrl(APP_URL, 'asm_1', 'tok_1'), 'invitation', APP_URL)).toEqual({ assessmentId: 'asm_1', token: 'tok_1' });
    expect(parseLink(inviteUrl(APP_URL, 'asm_1', 'tok_2'), 'invite', APP_URL)).toEqual({ assessmentId: 'asm_1', token: 'tok_2' });
    expect(parseLink(invitationUrl('https://app.example.com/hiring', 'asm_1', 'tok_1'), 'invitation', 'https://app.example.com/hiring')).toEqual({ assessmentId: 'asm_1', token: 'tok_1' });
  });

  it.each([
    ['another host', 'http://evil.example/invitations/asm_1/tok_1'],
    ['another port', 'http://localhost:3101/invitations/asm_1/tok_1'],
    ['another scheme', 'https://localhost:3100/invitations/asm_1/tok_1'],
    ['a path under another prefix', 'http://localhost:3100/x/invitations/asm_1/tok_1'],
    ['the other kind of link', 'http://localhost:3100/join/asm_1/tok_1'],
    ['a U+0000 in the assessment id', 'http://localhost:3100/invitations/%00/x'],
    ['a U+0000 in the token', 'http://localhost:3100/invitations/asm_1/a%00b'],
    ['a control character', 'http://localhost:3100/invitations/asm_1/a%0Ab'],
    ['malformed percent-encoding', 'http://localhost:3100/invitations/asm_1/%E0%A4%A'],
    ['an unpaired surrogate', 'http://localhost:3100/invitations/asm_1/%ED%A0%80'],
  ])('is not one of ours: %s', (_label, link) => {
    expect(parseLink(link, 'invitation', APP_URL)).toBeNull();
  });

  it('is not a URL at all', () => {
    expect(parseLink('asm_1/tok_1', 'invitation', APP_URL)).toBeUndefined();
  });
});
