export interface ApiCredential {
  key: string;
  secret: string;
}

// One scheme word, one run of spaces, one token: anything else (extra parts, tabs) is malformed.
const AUTHORIZATION_PATTERN = /^([A-Za-z]+) +([^\s]+)$/;
// Standard alphabet; padding optional because some clients drop it.
const BASE64_PATTERN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads `Bearer <key>:<secret>` or `Basic <base64 of key:secret>` (API document 5.1). Returns null
 * for anything malformed so the caller answers every credential problem the same way.
 */
export const parseAuthorization = (header: string | undefined): ApiCredential | null => {
  if (typeof header !== 'string') return null;
  const match = AUTHORIZATION_PATTERN.exec(header.trim());
  if (!match) return null;
  const [, scheme = '', token = ''] = match;
  switch (scheme.toLowerCase()) {
    case 'bearer':
      return splitCredential(token);
    case 'basic': {
      const decoded = decodeBase64(token);
      return decoded === null ? null : splitCredential(decoded);
    }
    default:
      return null;
  }
};

// The key never contains a colon, the secret might: only the first colon separates them.
const splitCredential = (value: string): ApiCredential | null => {
  const colon = value.indexOf(':');
  if (colon <= 0) return null;
  const key = value.slice(0, colon);
  const secret = value.slice(colon + 1);
  if (secret.length === 0) return null;
  return { key, secret };
};

// Buffer.from(…, 'base64') silently skips invalid characters, so the alphabet is checked first.
const decodeBase64 = (token: string): string | null => {
  if (token.length === 0 || !BASE64_PATTERN.test(token)) return null;
  try {
    return strictUtf8.decode(Buffer.from(token, 'base64'));
  } catch {
    return null;
  }
};
