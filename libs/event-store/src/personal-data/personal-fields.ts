import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** What a person's field reads as once their key is destroyed: in history, as-of, a rebuild. */
export const ERASED = '[erased]';

const PERSONAL_FIELDS = ['email', 'firstName', 'surname'] as const;
const PREFIX = 'pii1.';

type Data = Record<string, unknown>;

const isRecord = (value: unknown): value is Data => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The person an event speaks about: its workspace and address (top level, or its `candidate`). */
export const personOf = (data: Data): { workspaceId: string; email: string } | null => {
  const email = typeof data.email === 'string' ? data.email : isRecord(data.candidate) && typeof data.candidate.email === 'string' ? data.candidate.email : null;
  return typeof data.workspaceId === 'string' && email !== null ? { workspaceId: data.workspaceId, email } : null;
};

const encryptValue = (value: string, keyId: string, key: Buffer): string => {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(keyId));
  const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return `${PREFIX}${[keyId, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.')}`;
};

const decryptValue = (value: string, keys: ReadonlyMap<string, Buffer | null>): string => {
  const [keyId, iv, tag, body] = value.slice(PREFIX.length).split('.');
  const key = keyId === undefined ? undefined : keys.get(keyId);
  if (!key || iv === undefined || tag === undefined || body === undefined) return ERASED;
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(keyId ?? ''));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
};

const mapFields = (data: Data, map: (value: string) => string): Data => {
  let copy: Data | null = null;
  for (const field of PERSONAL_FIELDS) {
    const value = data[field];
    if (typeof value === 'string') (copy ??= { ...data })[field] = map(value);
  }
  const candidate = data.candidate;
  if (isRecord(candidate)) {
    const mapped = mapFields(candidate, map);
    if (mapped !== candidate) (copy ??= { ...data }).candidate = mapped;
  }
  return copy ?? data;
};

export const encryptPersonalFields = (data: Data, keyId: string, key: Buffer): Data => mapFields(data, (value) => encryptValue(value, keyId, key));

/** The same data with every sealed field opened, or ERASED where its key is gone. */
export const decryptPersonalFields = (data: Data, keys: ReadonlyMap<string, Buffer | null>): Data =>
  mapFields(data, (value) => (value.startsWith(PREFIX) ? decryptValue(value, keys) : value));

/** Key ids of the sealed fields in the data (none for events without personal data). */
export const sealedKeyIds = (data: Data, into: Set<string>): void => {
  mapFields(data, (value) => {
    if (value.startsWith(PREFIX)) into.add(value.slice(PREFIX.length, value.indexOf('.', PREFIX.length)));
    return value;
  });
};
