import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import { attachContext, CrossSiteRefused, SignInRequired } from './page-context.js';
import { cameFromHere, cookiesOf, field, localPath } from './page-http.js';
import { liveSession, SessionRevocations } from './session-revocations.js';
import { FLASH_COOKIE, PageSessions, SESSION_COOKIE } from './session.js';

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * Every page but sign-in: a valid session cookie that was not signed out, and for anything that changes the world a
 * request from these pages (same origin) carrying the session's CSRF token.
 */
@Injectable()
export class PageSessionGuard implements CanActivate {
  constructor(
    private readonly sessions: PageSessions,
    private readonly revocations: SessionRevocations,
    @Inject(INFRASTRUCTURE) private readonly infra: Infrastructure,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const safe = SAFE_METHODS.has(request.method);
    // The origin is judged before the session: a cross-site post is refused even when the browser sent the cookie.
    if (!safe && !cameFromHere(request, this.infra.config.appUrl)) throw new CrossSiteRefused();
    const cookies = cookiesOf(request);
    // A database that cannot say whether the session was revoked fails the request (fail closed).
    const session = await liveSession(this.sessions, this.revocations, cookies.get(SESSION_COOKIE), Date.now());
    if (!session) throw new SignInRequired(safe ? localPath(request.url, '/') : '/');
    if (!safe && !this.sessions.csrfMatches(session, field(request, '_csrf'))) throw new CrossSiteRefused();
    attachContext(request, {
      session,
      csrf: this.sessions.csrfToken(session),
      flash: this.sessions.readFlash(cookies.get(FLASH_COOKIE)),
      clockEnabled: this.infra.simulatedClock !== null,
      here: localPath(request.url, '/'),
    });
    return true;
  }
}
