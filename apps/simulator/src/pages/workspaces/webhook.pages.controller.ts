import { Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConfigureWebhook, RotateWebhookSecret } from '#commands';
import { apiError } from '#http';
import type { RecoveryResult, RecoveryWindow } from '#messaging';
import { resolveHostNow } from '#platform';
import { candidatesProjection, getBilling, type CandidateDocument } from '#read-models';
import { INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import { internalContext } from '../../auth/internal-context.js';
import { recoverWebhook, runningMessaging } from '../../outbox/webhook-recovery.js';
import { requireKnownWorkspace } from '../../validation/known-ids.js';
import { refuseNonPublicAddress, webhookSettings } from '../../workspaces/workspaces.dto.js';
import { pageContext } from '../shared/page-context.js';
import { requireWorkspace } from '../shared/page-data.js';
import { field, formOf } from '../shared/page-http.js';
import { PageResponder } from '../shared/page-responder.js';
import { PagesController } from '../shared/pages-controller.js';
import { billingPage } from './billing.view.js';
import { webhookPage } from './webhook.view.js';
import { workspacePath } from './workspace-frame.js';

const DAY_MS = 24 * 3600_000;

const recoveryMessage = ({ count, addressDisabled }: RecoveryResult, { since, until }: RecoveryWindow): string => {
  const deliveries = `${count} deliver${count === 1 ? 'y' : 'ies'}`;
  if (count === 0) return `No event from ${since} to ${until} is selected by the settings: nothing was queued.`;
  if (addressDisabled) return `The address is disabled: ${deliveries} logged as failed (endpoint_disabled). Save the settings to enable it, then redeliver.`;
  return `${deliveries} queued for redelivery (events from ${since} to ${until}), sent one after another in the log's order.`;
};

/** Webhook settings, recovery, the delivery log with its resends, and billing of one workspace. */
@PagesController()
export class WebhookPagesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly responder: PageResponder,
    @Inject(INFRASTRUCTURE) private readonly infra: Infrastructure,
  ) {}

  @Get('workspaces/:workspaceId/webhook')
  async show(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('workspaceId') workspaceId: string): Promise<void> {
    const workspace = await requireWorkspace(this.infra.documents, workspaceId);
    const webhook = workspace.webhook;
    // The same reading as GET /internal/workspaces/{id}/webhook and …/webhook-deliveries.
    const settings = webhook
      ? { url: webhook.url, events: webhook.events, secret: this.infra.secretBox.open(webhook.encryptedSecret), enabled: webhook.enabled, disabledReason: webhook.disabledReason }
      : null;
    const deliveries = this.infra.messaging ? await this.infra.messaging.listDeliveries(workspaceId) : null;
    const aDayAgo = new Date(Date.parse(await this.infra.clock.now()) - DAY_MS).toISOString();
    this.responder.show(request, reply, webhookPage(pageContext(request), workspace, settings, deliveries, aDayAgo));
  }

  @Post('workspaces/:workspaceId/webhook')
  async save(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('workspaceId') workspaceId: string): Promise<void> {
    const body = { url: field(request, 'url'), events: formOf(request).getAll('events') };
    const allowInsecure = this.infra.config.webhookAllowInsecure;
    // In the order always answered: what the address resolves to, the workspace, then the form's rules.
    await refuseNonPublicAddress(body, allowInsecure, resolveHostNow);
    await requireKnownWorkspace(this.infra.documents, workspaceId);
    const settings = await webhookSettings(body, allowInsecure);
    await this.commands.execute(new ConfigureWebhook(workspaceId, settings, internalContext(request)));
    this.responder.done(reply, workspacePath(workspaceId, 'webhook'), 'Webhook saved and enabled.');
  }

  @Post('workspaces/:workspaceId/webhook/rotate-secret')
  async rotate(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('workspaceId') workspaceId: string): Promise<void> {
    await this.commands.execute(new RotateWebhookSecret(workspaceId, internalContext(request)));
    this.responder.done(reply, workspacePath(workspaceId, 'webhook'), 'New signing secret; the previous one keeps signing for 24 hours.');
  }

  @Post('webhook-deliveries/:deliveryId/resend')
  async resend(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('deliveryId') deliveryId: string): Promise<void> {
    const id = await runningMessaging(this.infra).resend(deliveryId);
    if (!id) throw apiError('not_found');
    const workspaceId = field(request, 'workspaceId');
    this.responder.done(reply, workspaceId ? `${workspacePath(workspaceId, 'webhook')}#deliveries` : '/', `Resent as delivery ${id}.`);
  }

  /** The JSON route's rules and answer (MessagingController.recover); a refusal comes back as the page's error message. */
  @Post('workspaces/:workspaceId/webhook/recover')
  async recover(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('workspaceId') workspaceId: string): Promise<void> {
    const optional = (name: string): string | undefined => field(request, name).trim() || undefined;
    const { window, recovered } = await recoverWebhook(this.infra, workspaceId, { since: optional('since'), until: optional('until') });
    this.responder.done(reply, `${workspacePath(workspaceId, 'webhook')}#recovery`, recoveryMessage(recovered, window));
  }

  @Get('workspaces/:workspaceId/billing')
  async billing(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('workspaceId') workspaceId: string): Promise<void> {
    const workspace = await requireWorkspace(this.infra.documents, workspaceId);
    const billing = await getBilling(this.infra.documents, workspaceId);
    if (!billing) throw apiError('not_found');
    // The billing model holds ids; the candidates read model gives the addresses.
    const candidates = await this.infra.documents.getMany<CandidateDocument>(candidatesProjection.name, billing.billedCandidates.map((billed) => billed.candidateId));
    this.responder.show(request, reply, billingPage(workspace, billing, candidates));
  }
}
