import { createHmac, timingSafeEqual } from 'node:crypto';

export interface SignWebhookInput {
  body: string;
  /** The current secret first, then the previous one while it is within 24 hours of a rotation. */
  secrets: readonly string[];
  /** Unix seconds. */
  timestamp: number;
}

const hmacHex = (secret: string, timestamp: number, body: string): string =>
  createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');

/** `t=<unix seconds>,v1=<hex>[,v1=<hex>]`: HMAC-SHA256 over `<t>.<raw body>`, one v1 per secret. */
export const signWebhook = ({ body, secrets, timestamp }: SignWebhookInput): string => {
  if (secrets.length === 0) throw new Error('a webhook needs at least one signing secret');
  if (!Number.isInteger(timestamp) || timestamp < 0) throw new Error('timestamp must be whole Unix seconds');
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${hmacHex(secret, timestamp, body)}`)].join(',');
};

export const parseSignatureHeader = (header: string): { timestamp: number; signatures: string[] } | null => {
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [name, value, ...rest] = part.trim().split('=');
    if (value === undefined || rest.length > 0) return null;
    if (name === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (name === 'v1' && /^[0-9a-f]{64}$/.test(value)) signatures.push(value);
  }
  return timestamp === null || signatures.length === 0 ? null : { timestamp, signatures };
};

/**
 * What an integrator runs on receipt: true when one of the v1 signatures matches the secret and the
 * timestamp is within the tolerance of now (a replayed old request is refused). Constant-time compare.
 */
export const verifyWebhookSignature = (
  header: string,
  body: string,
  secret: string,
  toleranceSeconds: number,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): boolean => {
  const parsed = parseSignatureHeader(header);
  if (!parsed || Math.abs(nowSeconds - parsed.timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(hmacHex(secret, parsed.timestamp, body), 'hex');
  // Every candidate is compared, matched or not, so the time taken does not tell which one matched.
  let matched = false;
  for (const signature of parsed.signatures) {
    const given = Buffer.from(signature, 'hex');
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  return matched;
};
