import { Controller, Get, HttpCode, Inject, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { apiError } from '#http';
import type { Messaging } from '#messaging';
import { getWorkspace } from '#read-models';
import { INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import { InternalTokenGuard } from '../auth/internal-token.guard.js';
import { requiredBody } from '../auth/internal-context.js';
import { RecoverWebhookBody } from './webhook-recovery.dto.js';
import { InternalRoute } from '../openapi/internal-document.js';
import { recoverWebhook } from './webhook-recovery.js';


/** The e-mail outbox and the webhook delivery log, as operators read them. */
@Controller('internal')
@UseGuards(InternalTokenGuard)
export class MessagingController {
  constructor(@Inject(INFRASTRUCTURE) private readonly infra: Infrastructure) {}

  private messaging(): Messaging {
    if (!this.infra.messaging) throw apiError('server_error', 'the messaging side is not running in this process');
    return this.infra.messaging;
  }

  @Get('emails')
  @InternalRoute('The e-mail outbox for one address, newest first', 200)
  @ApiQuery({ name: 'to', required: false, schema: { type: 'string' }, description: 'The address (case-insensitive); without it the list is empty' })
  async emails(@Query('to') to: unknown) {
    const address = typeof to === 'string' ? to.trim().toLowerCase() : '';
    if (!address) return { data: [] };
    return { data: await this.messaging().listEmails(address) };
  }

  @Get('workspaces/:workspaceId/webhook-deliveries')
  @InternalRoute('The webhook delivery log (30 days), newest first', 200, [404])
  async deliveries(@Param('workspaceId') workspaceId: string) {
    if (!(await getWorkspace(this.infra.documents, workspaceId))) throw apiError('not_found');
    const rows = await this.messaging().listDeliveries(workspaceId);
    return {
      data: rows.map((row) => ({
        id: row.id, eventId: row.eventId, event: row.event, url: row.url, status: row.status, attempts: row.attempts, attemptLog: row.attemptLog,
        lastResponseStatus: row.lastResponseStatus, lastError: row.lastError, createdAt: row.createdAt, updatedAt: row.updatedAt,
      })),
    };
  }

  @Post('webhook-deliveries/:deliveryId/resend')
  @HttpCode(202)
  @InternalRoute('Send a delivery again (a new delivery row)', 202, [404])
  async resend(@Param('deliveryId') deliveryId: string) {
    const id = await this.messaging().resend(deliveryId);
    if (!id) throw apiError('not_found');
    return { data: { id } };
  }

  @Post('workspaces/:workspaceId/webhook/recover')
  @HttpCode(202)
  @InternalRoute('Deliver the events of a window again, in the log\'s order, to the saved address (a new delivery row each)', 202, [404], RecoverWebhookBody)
  async recover(@Req() request: FastifyRequest, @Param('workspaceId') workspaceId: string) {
    const { recovered } = await recoverWebhook(this.infra, workspaceId, requiredBody(request));
    return { data: { count: recovered.count } };
  }
}
