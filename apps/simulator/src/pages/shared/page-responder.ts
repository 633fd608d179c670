import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import { layout, type PageShape } from './layout.js';
import { pageContext } from './page-context.js';
import { addCookie, cookie, redirectTo, sendPage } from './page-http.js';
import { FLASH_COOKIE, type Flash, PageSessions } from './session.js';

/** How page handlers answer: a page in the frame, or a redirect carrying a one-time message. */
@Injectable()
export class PageResponder {
  readonly secureCookies: boolean;

  constructor(private readonly sessions: PageSessions, @Inject(INFRASTRUCTURE) infra: Infrastructure) {
    this.secureCookies = infra.config.appUrl.startsWith('https:');
  }

  show(request: FastifyRequest, reply: FastifyReply, page: PageShape, status = 200): void {
    const context = pageContext(request);
    // A message is shown once: the page that shows it also clears it.
    if (context.flash) addCookie(reply, cookie(FLASH_COOKIE, '', { maxAgeSeconds: 0, secure: this.secureCookies }));
    sendPage(reply, layout(context, page), status);
  }

  redirect(reply: FastifyReply, location: string, flash?: Flash): void {
    if (flash) addCookie(reply, cookie(FLASH_COOKIE, this.sessions.sealFlash(flash), { maxAgeSeconds: 120, secure: this.secureCookies }));
    redirectTo(reply, location);
  }

  done(reply: FastifyReply, location: string, message: string): void {
    this.redirect(reply, location, { kind: 'ok', message });
  }
}
