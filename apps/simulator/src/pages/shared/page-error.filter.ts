import { type ArgumentsHost, Catch, type ExceptionFilter, Inject } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorResponseFor } from '#http';
import { INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import { html } from './html.js';
import { bareLayout, layout } from './layout.js';
import { contextOf, CrossSiteRefused, SignInRequired } from './page-context.js';
import { localPath, sendPage } from './page-http.js';
import { PageResponder } from './page-responder.js';

const refererPath = (request: FastifyRequest): string | null => {
  const referer = request.headers.referer;
  if (typeof referer !== 'string') return null;
  try {
    const url = new URL(referer);
    return url.host === request.headers.host ? url.pathname + url.search : null;
  } catch {
    return null;
  }
};

/**
 * Errors on pages are pages: a refused form goes back where it came from with the API's own
 * message and code (the same refusal the JSON route answers), anything else is shown in the frame.
 */
@Catch()
export class PageErrorFilter implements ExceptionFilter {
  constructor(private readonly responder: PageResponder, @Inject(INFRASTRUCTURE) private readonly infra: Infrastructure) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (exception instanceof SignInRequired) {
      this.responder.redirect(reply, exception.next === '/' ? '/sign-in' : `/sign-in?next=${encodeURIComponent(exception.next)}`);
      return;
    }
    if (exception instanceof CrossSiteRefused) {
      sendPage(reply, bareLayout('Request refused', html`<div class="panel narrow"><h1>Request refused</h1>
<p>This form did not come from these pages (another site, or a page older than your session), so nothing was changed.</p>
<p><a class="button primary" href="/">Back to the application</a></p></div>`), 403);
      return;
    }
    const response = errorResponseFor(exception);
    const { code, message } = response.body.error;
    if (response.status >= 500) this.infra.logger.error({ err: exception, method: request.method, url: request.url, requestId: request.id }, 'page failed');
    const context = contextOf(request);
    if (request.method === 'POST' && context && response.status < 500) {
      this.responder.redirect(reply, localPath(refererPath(request) ?? '/', '/'), { kind: 'error', message: `${message} (${code})` });
      return;
    }
    const title = response.status === 404 ? 'Not found' : response.status >= 500 ? 'Something went wrong' : 'Refused';
    const body = html`<div class="card"><p>${response.status >= 500 ? 'The request failed; the details are in the service log.' : message}</p>
<p class="muted">Status ${response.status} · code <code>${code}</code> · request <code>${request.id}</code></p></div>`;
    sendPage(reply, context ? layout({ ...context, flash: null }, { title, section: 'workspaces', body }) : bareLayout(title, body), response.status);
  }
}
