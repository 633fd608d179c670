import { Controller, Get, Inject, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import { PageErrorFilter } from '../shared/page-error.filter.js';
import { queryParam } from '../shared/page-http.js';
import { PageResponder } from '../shared/page-responder.js';
import { PageSessionGuard } from '../shared/page-session.guard.js';
import { outboxPage } from './outbox.view.js';

const RECENT = 50;

/** The outbox, by address as GET /internal/emails reads it, or the latest ones. */
@Controller()
@ApiExcludeController()
@UseGuards(PageSessionGuard)
@UseFilters(PageErrorFilter)
export class OutboxPagesController {
  constructor(private readonly responder: PageResponder, @Inject(INFRASTRUCTURE) private readonly infra: Infrastructure) {}

  @Get('emails')
  async list(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const address = queryParam(request, 'to').trim().toLowerCase();
    const messaging = this.infra.messaging;
    const emails = messaging ? await (address ? messaging.listEmails(address) : messaging.listRecentEmails(RECENT)) : null;
    this.responder.show(request, reply, outboxPage(address, emails, this.infra.config.appUrl));
  }
}
