import { PageSessions } from './session.js';

const NOW = Date.UTC(2026, 0, 1);

describe('page sessions', () => {
  const sessions = new PageSessions('service-secret', 'internal-token');

  it('reads back a session it issued until it expires', () => {
    const { session, cookie } = sessions.issue(NOW);
    expect(sessions.read(cookie, NOW + 1000)).toEqual(session);
    expect(sessions.read(cookie, session.expiresAt)).toBeNull();
  });

  it('refuses a cookie that was altered, signed with another internal token, or is not a cookie of ours', () => {
    const { cookie } = sessions.issue(NOW);
    const [payload, signature] = cookie.split('.');
    const longer = Buffer.from(JSON.stringify({ id: 'x', expiresAt: NOW + 10 ** 10 })).toString('base64url');
    expect(sessions.read(`${longer}.${signature}`, NOW)).toBeNull();
    expect(sessions.read(`${payload}.${signature}x`, NOW)).toBeNull();
    expect(new PageSessions('service-secret', 'another-token').read(cookie, NOW)).toBeNull();
    expect(sessions.read(undefined, NOW)).toBeNull();
    expect(sessions.read('no-dot', NOW)).toBeNull();
    expect(sessions.read(`${payload}.${signature}.extra`, NOW)).toBeNull();
  });

  it('binds the CSRF token to the session', () => {
    const first = sessions.issue(NOW).session;
    const second = sessions.issue(NOW).session;
    expect(sessions.csrfMatches(first, sessions.csrfToken(first))).toBe(true);
    expect(sessions.csrfMatches(first, sessions.csrfToken(second))).toBe(false);
    expect(sessions.csrfMatches(first, null)).toBe(false);
    expect(sessions.csrfMatches(first, '')).toBe(false);
  });

  it('does not take a session cookie for a flash message or the other way round', () => {
    const { cookie } = sessions.issue(NOW);
    const flash = sessions.sealFlash({ kind: 'ok', message: 'done' });
    expect(sessions.readFlash(flash)).toEqual({ kind: 'ok', message: 'done' });
    expect(sessions.readFlash(cookie)).toBeNull();
    expect(sessions.read(flash, NOW)).toBeNull();
  });
});
