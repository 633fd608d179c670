import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '#platform';

export const SESSION_COOKIE = 'hiring_session';
export const FLASH_COOKIE = 'hiring_flash';
/** A working day and a bit: a demo or an audit session does not end mid-way. */
export const SESSION_SECONDS = 12 * 3600;

export interface PageSession {
  id: string;
  /** Unix milliseconds, real time: the simulated clock moves days ahead in a demo and must not sign anyone out. */
  expiresAt: number;
}

export interface Flash {
  kind: 'ok' | 'error';
  message: string;
}

const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

const decode = (text: string): unknown => {
  try {
    return JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
};

const sameBytes = (a: string, b: string): boolean => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

/**
 * Signed cookies for the pages. The key depends on the internal token, so changing INTERNAL_TOKEN
 * signs every browser out; it never leaves the process. A valid signature is not enough on its own:
 * a signed-out session is recorded on the server (session-revocations.ts) and refused from then on.
 */
export class PageSessions {
  private readonly key: Buffer;

  constructor(serviceSecret: string, internalToken: string) {
    this.key = createHmac('sha256', deriveKey(serviceSecret, 'pages-session')).update(internalToken).digest();
  }

  private sign(purpose: string, payload: string): string {
    return createHmac('sha256', this.key).update(`${purpose}\0${payload}`).digest('base64url');
  }

  private seal(purpose: string, value: unknown): string {
    const payload = encode(value);
    return `${payload}.${this.sign(purpose, payload)}`;
  }

  private unseal(purpose: string, cookie: string | undefined): unknown {
    const [payload, signature, extra] = (cookie ?? '').split('.');
    if (!payload || !signature || extra !== undefined || !sameBytes(signature, this.sign(purpose, payload))) return null;
    return decode(payload);
  }

  issue(nowMs: number): { session: PageSession; cookie: string } {
    const session = { id: randomBytes(18).toString('base64url'), expiresAt: nowMs + SESSION_SECONDS * 1000 };
    return { session, cookie: this.seal('session', session) };
  }

  read(cookie: string | undefined, nowMs: number): PageSession | null {
    const value = this.unseal('session', cookie) as Partial<PageSession> | null;
    if (typeof value?.id !== 'string' || typeof value.expiresAt !== 'number' || value.expiresAt <= nowMs) return null;
    return { id: value.id, expiresAt: value.expiresAt };
  }

  /** Bound to the session: a token from another browser's session is worth nothing here. */
  csrfToken(session: PageSession): string {
    return this.sign('csrf', session.id);
  }

  csrfMatches(session: PageSession, token: string | null): boolean {
    return typeof token === 'string' && sameBytes(token, this.csrfToken(session));
  }

  sealFlash(flash: Flash): string {
    return this.seal('flash', flash);
  }

  readFlash(cookie: string | undefined): Flash | null {
    const value = this.unseal('flash', cookie) as Partial<Flash> | null;
    if ((value?.kind !== 'ok' && value?.kind !== 'error') || typeof value.message !== 'string') return null;
    return { kind: value.kind, message: value.message };
  }
}
