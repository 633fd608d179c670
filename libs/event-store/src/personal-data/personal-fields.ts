import { openAesGcm, sealAesGcm } from '#platform/crypto/aes-gcm.js';

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

/** `pii1.<keyId>.<iv>.<tag>.<body>`: sealed under the person's key, bound to its id. */
const encryptValue = (value: string, keyId: string, key: Buffer): string => `${PREFIX}${keyId}.${sealAesGcm(key, value, Buffer.from(keyId))}`;

const decryptValue = (value: string, keys: ReadonlyMap<string, Buffer | null>): string => {
  const [keyId = '', ...sealed] = value.slice(PREFIX.length).split('.');
  const key = keys.get(keyId);
  if (!key || sealed.length !== 3) return ERASED;
  return openAesGcm(key, sealed.join('.'), Buffer.from(keyId)).toString('utf8');
};

/** A field's new value, or how to get it when it is first read (see openLater). */
type Mapped = string | (() => string);

/** The field reads as `open()` when first read, and as that value from then on. */
const openLater = (target: Data, field: string, open: () => string): void => {
  const settle = (value: unknown): void => {
    Object.defineProperty(target, field, { value, enumerable: true, configurable: true, writable: true });
  };
  Object.defineProperty(target, field, {
    enumerable: true,
    configurable: true,
    get: () => {
      const value = open();
      settle(value);
      return value;
    },
    set: settle,
  });
};

const mapFields = (data: Data, map: (value: string, field: string) => Mapped): Data => {
  let copy: Data | null = null;
  for (const field of PERSONAL_FIELDS) {
    const value = data[field];
    if (typeof value !== 'string') continue;
    const mapped = map(value, field);
    if (typeof mapped === 'string') (copy ??= { ...data })[field] = mapped;
    else openLater((copy ??= { ...data }), field, mapped);
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

/** Fields a decision's fold does not read (an invitation keeps its names unread: InvitationState.person). */
const READ_LATER: ReadonlySet<string> = new Set(['firstName', 'surname']);

/**
 * Like decryptPersonalFields, but the names are opened only when first read (each one an AES-GCM
 * operation): a decision folding an assessment of thousands of invitations opens their addresses,
 * not their names. The value read is the same, ERASED included (the keys are those of the read).
 */
export const decryptPersonalFieldsForFold = (data: Data, keys: ReadonlyMap<string, Buffer | null>): Data =>
  mapFields(data, (value, field) => {
    if (!value.startsWith(PREFIX)) return value;
    return READ_LATER.has(field) ? () => decryptValue(value, keys) : decryptValue(value, keys);
  });

/**
 * Every sealed field opened only when first read (the same value then, ERASED included): a follower
 * that skips an event (the dispatcher, for an e-mail the append transaction recorded) opens nothing.
 */
export const decryptPersonalFieldsLater = (data: Data, keys: ReadonlyMap<string, Buffer | null>): Data =>
  mapFields(data, (value) => (value.startsWith(PREFIX) ? () => decryptValue(value, keys) : value));

/** Every personal value of the data (address and names, top level and in its `candidate`), as they stand. */
export const personalValues = (data: Data, into: Set<string>): void => {
  mapFields(data, (value) => {
    into.add(value);
    return value;
  });
};

/** Key ids of the sealed fields in the data (none for events without personal data). */
export const sealedKeyIds = (data: Data, into: Set<string>): void => {
  mapFields(data, (value) => {
    if (value.startsWith(PREFIX)) into.add(value.slice(PREFIX.length, value.indexOf('.', PREFIX.length)));
    return value;
  });
};
