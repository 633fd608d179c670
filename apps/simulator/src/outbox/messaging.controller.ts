import { Get, Inject, Param, Post, Query, Req } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { apiError, readCursorParam } from '#http';
import { getWorkspace } from '#read-models';
import { INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import { InternalController } from '../auth/internal-token.guard.js';
import { requiredBody } from '../auth/internal-context.js';
import { InternalRoute } from '../openapi/internal-route.js';
import { listOf, single } from '../openapi/internal-schemas.js';
import { DeliveryLogQuery } from './delivery-log.dto.js';
import { RecoverWebhookBody } from './webhook-recovery.dto.js';
import { recoverWebhook, runningMessaging } from './webhook-recovery.js';

const DELIVERY_LOG = 'webhook-deliveries';

/** The e-mail outbox and the webhook delivery log, as operators read them. */
@InternalController()
export class MessagingController {
  constructor(@Inject(INFRASTRUCTURE) private readonly infra: Infrastructure) {}

  @Get('emails')
  @InternalRoute({
    id: 'listEmails', tag: 'Outbox', summary: 'List the e-mails sent to an address',
    description: 'The outbox for one address, newest first (at most 1,000). Without `to` the list is empty.',
    answers: [{ status: 200, description: 'The e-mails', schema: listOf('Email') }],
  })
  @ApiQuery({ name: 'to', required: false, schema: { type: 'string' }, description: 'The address (case-insensitive); without it the list is empty' })
  async emails(@Query('to') to: unknown) {
    const address = typeof to === 'string' ? to.trim().toLowerCase() : '';
    if (!address) return { data: [] };
    return { data: await runningMessaging(this.infra).listEmails(address) };
  }

  @Get('workspaces/:workspaceId/webhook-deliveries')
  @InternalRoute({
    id: 'listWebhookDeliveries', tag: 'Webhooks', summary: 'List the webhook deliveries',
    description: "The delivery log of the last 30 days, newest first (ties in the order the deliveries were created), with every attempt, a page at a time: `limit` rows (1,000 when absent), then pass `meta.nextCursor` as `cursor` for the next page until it is null. The order is fixed (`createdAt`, then the order rows were made), so paging neither repeats nor skips a row that was there when it began. A cursor of another workspace, or changed: 400 invalid_cursor.",
    answers: [{ status: 200, description: 'One page of deliveries', schema: listOf('WebhookDelivery', 'DeliveryPageMeta') }],
    refuses: { 400: ['invalid_cursor', 'invalid_parameter'] },
  })
  async deliveries(@Param('workspaceId') workspaceId: string, @Query() query: DeliveryLogQuery) {
    // A cursor is the workspace's own: one issued for another workspace is refused like an edited one.
    const scope = { workspaceId, mode: 'internal' };
    const cursor = readCursorParam(this.infra.cursors, DELIVERY_LOG, query.cursor, {}, scope);
    if (!(await getWorkspace(this.infra.documents, workspaceId))) throw apiError('not_found');
    const after = cursor ? { createdAt: String(cursor.t), seq: String(cursor.s) } : undefined;
    const page = await runningMessaging(this.infra).pageDeliveries(workspaceId, { limit: query.limit, ...(after ? { after } : {}) });
    const nextCursor = page.next ? this.infra.cursors.encodeFor(DELIVERY_LOG, { t: page.next.createdAt, s: page.next.seq }, {}, scope) : null;
    return {
      data: page.rows.map((row) => ({
        id: row.id, eventId: row.eventId, event: row.event, url: row.url, status: row.status, attempts: row.attempts, attemptLog: row.attemptLog,
        lastResponseStatus: row.lastResponseStatus, lastError: row.lastError, createdAt: row.createdAt, updatedAt: row.updatedAt,
      })),
      meta: { nextCursor },
    };
  }

  @Post('webhook-deliveries/:deliveryId/resend')
  @InternalRoute({
    id: 'resendWebhookDelivery', tag: 'Webhooks', summary: 'Resend a delivery',
    description: 'Sends a delivery again, whatever its status, to the address saved now: a new delivery (new id, the same event id and envelope bytes, created now), queued at once.',
    answers: [{ status: 202, description: 'The new delivery, queued', schema: single('ResentDelivery') }],
  })
  async resend(@Param('deliveryId') deliveryId: string) {
    const id = await runningMessaging(this.infra).resend(deliveryId);
    if (!id) throw apiError('not_found');
    return { data: { id } };
  }

  @Post('workspaces/:workspaceId/webhook/recover')
  @InternalRoute({
    id: 'recoverWebhookDeliveries', tag: 'Webhooks', summary: 'Deliver a window of events again',
    description: "Every event of the window (`since` to `until`, domain time, at most 30 days back) that the saved settings select is delivered again, in the log's order, one after another: a new delivery each (docs/webhooks.md). A disabled address gets nothing (the deliveries are logged `failed`, `endpoint_disabled`): save the settings again first. 404 when no webhook is saved, before a bad window (422).",
    answers: [{ status: 202, description: 'How many deliveries were queued', schema: single('RecoveredDeliveries') }],
    body: RecoverWebhookBody,
  })
  async recover(@Req() request: FastifyRequest, @Param('workspaceId') workspaceId: string) {
    const { recovered } = await recoverWebhook(this.infra, workspaceId, requiredBody(request));
    return { data: { count: recovered.count } };
  }
}
