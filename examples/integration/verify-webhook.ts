import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Envelope } from './client.js';

/** Deliveries older than this are refused, so a captured delivery cannot be replayed later. */
export const TOLERANCE_SECONDS = 300;

/**
 * Checks `X-Webhook-Signature: t=<Unix seconds>,v1=<hex>[,v1=<hex>]`: HMAC-SHA256 with the webhook
 * secret over `<t>.<raw body>`, compared in constant time. Just after a secret rotation the header
 * carries two `v1` (new and old secret): any match is enough. Use the raw body exactly as received,
 * before any JSON parsing. Returns the envelope, or null when the delivery must be refused.
 */
export const verifyWebhook = (
  rawBody: string,
  signatureHeader: string | undefined,
  secret: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): Envelope | null => {
  if (!signatureHeader) return null;
  const parts = signatureHeader.split(',').map((part) => part.split('=', 2) as [string, string | undefined]);
  const timestamp = parts.find(([name]) => name === 't')?.[1];
  const signatures = parts.filter(([name]) => name === 'v1').map(([, value]) => value ?? '');
  if (!timestamp || !/^\d+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > TOLERANCE_SECONDS) return null;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest();
  const matches = signatures.some((hex) => /^[0-9a-f]{64}$/.test(hex) && timingSafeEqual(Buffer.from(hex, 'hex'), expected));
  return matches ? (JSON.parse(rawBody) as Envelope) : null;
};
