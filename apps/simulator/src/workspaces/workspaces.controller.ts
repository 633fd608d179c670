import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put, Req, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import {
  ConfigureWebhook, CreateCustomTest, CreateWorkspace, IssueApiKey, RegenerateApiKey, RotateWebhookSecret, VerifyWorkspace,
} from '#commands';
import { CONFIG, SECRET_BOX } from '#commands';
import { JsonBody, apiError } from '#http';
import { type SecretBox, type ServiceConfig, resolveHostNow } from '#platform';
import { getBilling, getWorkspace } from '#read-models';
import type { DocumentStore } from '#read-models';
import { DOCUMENTS } from '#runtime/infrastructure.js';
import { InternalTokenGuard } from '../auth/internal-token.guard.js';
import { InternalRoute } from '../openapi/internal-document.js';
import { JsonBodyUnder, requireKnownWorkspace } from '../validation/known-ids.js';
import { internalContext } from '../auth/internal-context.js';
import { CreateCustomTestBody, CreateWorkspaceBody, IssueApiKeyBody, SaveWebhookBody, customTestDraft, refuseNonPublicAddress, webhookSettings, workspaceDraft } from './workspaces.dto.js';

@Controller('internal')
@UseGuards(InternalTokenGuard)
export class WorkspacesController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(DOCUMENTS) private readonly documents: DocumentStore,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
    @Inject(CONFIG) private readonly config: ServiceConfig,
  ) {}

  @Post('workspaces')
  @HttpCode(201)
  @JsonBody()
  @InternalRoute('Create a workspace', 201, [422], CreateWorkspaceBody)
  async create(@Req() request: FastifyRequest, @Body() body: CreateWorkspaceBody) {
    return { data: await this.commands.execute(new CreateWorkspace(workspaceDraft(body), internalContext(request))) };
  }

  @Post('workspaces/:workspaceId/verify')
  @HttpCode(200)
  @InternalRoute('Mark the workspace verified (someone confirmed an e-mail address)', 200, [404])
  async verify(@Req() request: FastifyRequest, @Param('workspaceId') workspaceId: string) {
    return { data: await this.commands.execute(new VerifyWorkspace(workspaceId, internalContext(request))) };
  }

  @Post('workspaces/:workspaceId/api-keys')
  @HttpCode(201)
  @JsonBodyUnder('workspace', { optional: true })
  @InternalRoute('Create an API key (the secret is shown once)', 201, [404, 422], IssueApiKeyBody)
  async issueKey(@Req() request: FastifyRequest, @Param('workspaceId') workspaceId: string, @Body() body: IssueApiKeyBody) {
    return { data: await this.commands.execute(new IssueApiKey(workspaceId, body.mode, internalContext(request))) };
  }

  @Post('api-keys/:apiKeyId/regenerate')
  @HttpCode(200)
  @InternalRoute('Regenerate an API key: the previous key and secret stop at once', 200, [404])
  async regenerate(@Req() request: FastifyRequest, @Param('apiKeyId') apiKeyId: string) {
    return { data: await this.commands.execute(new RegenerateApiKey(apiKeyId, internalContext(request))) };
  }

  @Put('workspaces/:workspaceId/webhook')
  @HttpCode(200)
  @JsonBody()
  @InternalRoute('Save the webhook address and events (enables it again)', 200, [404, 422], SaveWebhookBody)
  // Typed by the deployment's rule (webhookSettings), not by the parameter's type: the global pipe leaves a plain object alone.
  // In the order always answered: what the address resolves to, the workspace, then the body's rules.
  async saveWebhook(@Req() request: FastifyRequest, @Param('workspaceId') workspaceId: string, @Body() body: object) {
    await refuseNonPublicAddress(body, this.config.webhookAllowInsecure, resolveHostNow);
    await requireKnownWorkspace(this.documents, workspaceId);
    const settings = await webhookSettings(body, this.config.webhookAllowInsecure);
    return { data: await this.commands.execute(new ConfigureWebhook(workspaceId, settings, internalContext(request))) };
  }

  @Get('workspaces/:workspaceId/webhook')
  @InternalRoute('The webhook settings and signing secret', 200, [404])
  async webhook(@Param('workspaceId') workspaceId: string) {
    const workspace = await getWorkspace(this.documents, workspaceId);
    if (!workspace?.webhook) throw apiError('not_found');
    const { url, events, encryptedSecret, enabled, disabledReason } = workspace.webhook;
    return { data: { url, events, secret: this.box.open(encryptedSecret), enabled, disabledReason } };
  }

  @Post('workspaces/:workspaceId/webhook/rotate-secret')
  @HttpCode(200)
  @InternalRoute('Rotate the signing secret; the old one still signs for 24 hours', 200, [404])
  async rotate(@Req() request: FastifyRequest, @Param('workspaceId') workspaceId: string) {
    const { url, events, secret } = await this.commands.execute(new RotateWebhookSecret(workspaceId, internalContext(request)));
    return { data: { url, events, secret } };
  }

  @Post('workspaces/:workspaceId/custom-tests')
  @HttpCode(201)
  @JsonBodyUnder('workspace')
  @InternalRoute('Create a custom test of the workspace', 201, [404, 422], CreateCustomTestBody)
  async customTest(@Req() request: FastifyRequest, @Param('workspaceId') workspaceId: string, @Body() body: CreateCustomTestBody) {
    return { data: await this.commands.execute(new CreateCustomTest(workspaceId, customTestDraft(body), internalContext(request))) };
  }

  @Get('workspaces/:workspaceId/billing')
  @InternalRoute('Billed candidates and the free allowance', 200, [404])
  async billing(@Param('workspaceId') workspaceId: string) {
    const billing = await getBilling(this.documents, workspaceId);
    if (!billing) throw apiError('not_found');
    return { data: { freeAllowance: billing.freeAllowance, billedCandidates: billing.billedCandidates } };
  }
}
