import { createHash, timingSafeEqual } from 'node:crypto';
import { Controller, Get, Inject, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import { DASHBOARD_PATH, DASHBOARD_TOKEN_COOKIE } from '../../dashboard/queue-dashboard.js';
import { CrossSiteRefused, pageContext } from '../shared/page-context.js';
import { PageErrorFilter } from '../shared/page-error.filter.js';
import { PageResponder } from '../shared/page-responder.js';
import { PageSessionGuard } from '../shared/page-session.guard.js';
import { addCookie, cameFromHere, cookie, field, localPath, queryParam, sendPage } from '../shared/page-http.js';
import { SessionRevocations } from '../shared/session-revocations.js';
import { PageSessions, SESSION_COOKIE, SESSION_SECONDS } from '../shared/session.js';
import { SignInThrottle } from './sign-in-throttle.js';
import { signInPage } from './sign-in.view.js';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** One password field for the internal token; the session is a signed HttpOnly SameSite=Strict cookie. */
@Controller()
@ApiExcludeController()
@UseFilters(PageErrorFilter)
export class SignInController {
  private readonly expected: Buffer;
  private readonly throttle = new SignInThrottle();

  constructor(
    private readonly sessions: PageSessions,
    private readonly responder: PageResponder,
    private readonly revocations: SessionRevocations,
    @Inject(INFRASTRUCTURE) private readonly infra: Infrastructure,
  ) {
    this.expected = digest(infra.config.internalToken);
  }

  @Get('sign-in')
  form(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    const next = localPath(queryParam(request, 'next'), '/');
    sendPage(reply, signInPage({ next, error: null, tokenGenerated: this.infra.config.internalTokenGenerated }));
  }

  @Post('sign-in')
  signIn(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    // Without this a site could sign a visitor in to a session it chose (login CSRF).
    if (!cameFromHere(request, this.infra.config.appUrl)) throw new CrossSiteRefused();
    const next = localPath(field(request, 'next'), '/');
    const tokenGenerated = this.infra.config.internalTokenGenerated;
    const retryAfter = this.throttle.retryAfterSeconds(request.ip, Date.now());
    if (retryAfter > 0) {
      void reply.header('Retry-After', String(retryAfter));
      sendPage(reply, signInPage({ next, error: `Too many wrong tokens: try again in ${retryAfter} seconds.`, tokenGenerated }), 429);
      return;
    }
    if (!timingSafeEqual(digest(field(request, 'token')), this.expected)) {
      this.throttle.recordFailure(request.ip, Date.now());
      this.infra.logger.warn({ requestId: request.id, ip: request.ip }, 'internal sign-in refused: wrong token');
      sendPage(reply, signInPage({ next, error: 'That is not the internal token.', tokenGenerated }), 401);
      return;
    }
    this.throttle.recordSuccess(request.ip);
    const { cookie: value } = this.sessions.issue(Date.now());
    addCookie(reply, cookie(SESSION_COOKIE, value, { maxAgeSeconds: SESSION_SECONDS, secure: this.responder.secureCookies }));
    this.responder.redirect(reply, next);
  }

  /** Ends the session on the server: its cookie, kept or copied, opens nothing from now on, in any process. */
  @Post('sign-out')
  @UseGuards(PageSessionGuard)
  async signOut(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.revocations.revoke(pageContext(request).session, Date.now());
    addCookie(reply, cookie(SESSION_COOKIE, '', { maxAgeSeconds: 0, secure: this.responder.secureCookies }));
    // The queue dashboard's cookie (set from the Health page) goes too: it is the token itself.
    addCookie(reply, `${DASHBOARD_TOKEN_COOKIE}=; Path=${DASHBOARD_PATH}; HttpOnly; SameSite=Strict; Max-Age=0${this.responder.secureCookies ? '; Secure' : ''}`);
    this.responder.redirect(reply, '/sign-in');
  }
}
