import { Get, Inject, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import { queryParam } from '../shared/page-http.js';
import { PageResponder } from '../shared/page-responder.js';
import { PagesController } from '../shared/pages-controller.js';
import { outboxPage } from './outbox.view.js';

const RECENT = 50;

/** The outbox, by address as GET /internal/emails reads it, or the latest ones. */
@PagesController()
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
