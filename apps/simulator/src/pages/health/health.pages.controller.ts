import { Get, Inject, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import { DASHBOARD_PATH, DASHBOARD_TOKEN_COOKIE } from '../../dashboard/queue-dashboard.js';
import { healthSummary } from '../../health/health-summary.js';
import { pageContext } from '../shared/page-context.js';
import { addCookie } from '../shared/page-http.js';
import { PageResponder } from '../shared/page-responder.js';
import { PagesController } from '../shared/pages-controller.js';
import { healthPage } from './health.view.js';

@PagesController()
export class HealthPagesController {
  constructor(private readonly responder: PageResponder, @Inject(INFRASTRUCTURE) private readonly infra: Infrastructure) {}

  @Get('health')
  async health(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    this.responder.show(request, reply, healthPage(pageContext(request), await healthSummary(this.infra)));
  }

  /**
   * The queue dashboard (bull-board) keeps its own cookie, scoped to its path; a signed-in operator
   * gets it here with a POST (CSRF-checked), so the token never appears in a URL or a page.
   */
  @Post('queues')
  queues(@Res() reply: FastifyReply): void {
    const secure = this.responder.secureCookies ? '; Secure' : '';
    addCookie(reply, `${DASHBOARD_TOKEN_COOKIE}=${encodeURIComponent(this.infra.config.internalToken)}; Path=${DASHBOARD_PATH}; HttpOnly; SameSite=Strict${secure}`);
    this.responder.redirect(reply, DASHBOARD_PATH);
  }
}
