import { createHmac } from 'node:crypto';
import { parseSignatureHeader, signWebhook, verifyWebhookSignature } from './signing.js';

const body = JSON.stringify({ id: 'evt_1', event: 'candidateCreated', data: { candidate: { id: 'cand_1' } } });
const timestamp = 1_790_000_000;

describe('signWebhook', () => {
  it('signs `<t>.<raw body>` with HMAC-SHA256 and the secret', () => {
    const expected = createHmac('sha256', 'whsec_new').update(`${timestamp}.${body}`).digest('hex');
    expect(signWebhook({ body, secrets: ['whsec_new'], timestamp })).toBe(`t=${timestamp},v1=${expected}`);
  });

  it('carries both signatures after a rotation, the new secret first', () => {
    const header = signWebhook({ body, secrets: ['whsec_new', 'whsec_old'], timestamp });
    const parsed = parseSignatureHeader(header);
    expect(parsed?.signatures).toHaveLength(2);
    expect(header.split(',')[1]).toBe(`v1=${createHmac('sha256', 'whsec_new').update(`${timestamp}.${body}`).digest('hex')}`);
    expect(verifyWebhookSignature(header, body, 'whsec_new', 300, timestamp)).toBe(true);
    expect(verifyWebhookSignature(header, body, 'whsec_old', 300, timestamp)).toBe(true);
    expect(verifyWebhookSignature(header, body, 'whsec_other', 300, timestamp)).toBe(false);
  });

  it('refuses to sign without a secret or with a fractional timestamp', () => {
    expect(() => signWebhook({ body, secrets: [], timestamp })).toThrow();
    expect(() => signWebhook({ body, secrets: ['s'], timestamp: 1.5 })).toThrow();
  });
});

describe('verifyWebhookSignature', () => {
  const header = signWebhook({ body, secrets: ['whsec_new'], timestamp });

  it('accepts the exact body within the tolerance', () => {
    expect(verifyWebhookSignature(header, body, 'whsec_new', 300, timestamp + 299)).toBe(true);
  });

  it('refuses a changed body, an old timestamp and a malformed header', () => {
    expect(verifyWebhookSignature(header, `${body} `, 'whsec_new', 300, timestamp)).toBe(false);
    expect(verifyWebhookSignature(header, body, 'whsec_new', 300, timestamp + 301)).toBe(false);
    expect(verifyWebhookSignature('t=abc,v1=00', body, 'whsec_new', 300, timestamp)).toBe(false);
    expect(verifyWebhookSignature(header.replace(/^t=\d+/, `t=${timestamp + 1}`), body, 'whsec_new', 300, timestamp)).toBe(false);
  });
});
