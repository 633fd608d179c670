import { Body, Get, Inject, Param, Post, Put, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import {
  ConfigureWebhook, CreateCustomTest, CreateWorkspace, IssueApiKey, RegenerateApiKey, RotateWebhookSecret, VerifyWorkspace,
} from '#commands';
import { CONFIG, SECRET_BOX } from '#commands';
import { JsonBody, apiError } from '#http';
import { type SecretBox, type ServiceConfig, resolveHostNow } from '#platform';
import { type DocumentStore, getBilling, getWorkspace } from '#read-models';
import { DOCUMENTS } from '#runtime/infrastructure.js';
import { InternalController } from '../auth/internal-token.guard.js';
import { InternalRoute } from '../openapi/internal-route.js';
import { single } from '../openapi/internal-schemas.js';
import { requireKnownWorkspace } from '../validation/known-ids.js';
import { validatedBody } from '../validation/validated-body.js';
import { internalContext } from '../auth/internal-context.js';
import { CreateCustomTestBody, CreateWorkspaceBody, IssueApiKeyBody, SaveWebhookBody, customTestDraft, refuseNonPublicAddress, webhookSettings, workspaceDraft } from './workspaces.dto.js';

@InternalController()
export class WorkspacesController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(DOCUMENTS) private readonly documents: DocumentStore,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
    @Inject(CONFIG) private readonly config: ServiceConfig,
  ) {}

  @Post('workspaces')
  @JsonBody()
  @InternalRoute({
    id: 'createWorkspace', tag: 'Workspaces', summary: 'Create a workspace',
    description: 'A new workspace, not verified yet (invitations are refused until it is). `freeAllowance` live candidates are unlocked free of charge before billing starts (0 when absent).',
    answers: [{ status: 201, description: 'The new workspace', schema: single('Workspace') }],
    body: CreateWorkspaceBody,
  })
  async create(@Req() request: FastifyRequest, @Body() body: CreateWorkspaceBody) {
    return { data: await this.commands.execute(new CreateWorkspace(workspaceDraft(body), internalContext(request))) };
  }

  @Post('workspaces/:workspaceId/verify')
  @InternalRoute({
    id: 'verifyWorkspace', tag: 'Workspaces', summary: 'Verify a workspace',
    description: 'Records that someone in the workspace confirmed an e-mail address: from then on it may invite candidates. Verifying again changes nothing and answers the same.',
    answers: [{ status: 200, description: 'The workspace, verified', schema: single('Workspace') }],
  })
  async verify(@Req() request: FastifyRequest, @Param('workspaceId') workspaceId: string) {
    return { data: await this.commands.execute(new VerifyWorkspace(workspaceId, internalContext(request))) };
  }

  @Post('workspaces/:workspaceId/api-keys')
  @JsonBody({ optional: true })
  @InternalRoute({
    id: 'issueApiKey', tag: 'Workspaces', summary: 'Create an API key',
    description: 'A live key, or a sandbox key (`SBX_…`, test candidates only). The secret is in this answer only; the key works at once. An unknown workspace is refused (404) before a bad body (422).',
    answers: [{ status: 201, description: 'The new key and its secret', schema: single('ApiKey') }],
    body: IssueApiKeyBody,
  })
  async issueKey(@Req() request: FastifyRequest, @Param('workspaceId') workspaceId: string, @Body() body: object) {
    await requireKnownWorkspace(this.documents, workspaceId);
    const { mode } = await validatedBody(IssueApiKeyBody, body);
    return { data: await this.commands.execute(new IssueApiKey(workspaceId, mode, internalContext(request))) };
  }

  @Post('api-keys/:apiKeyId/regenerate')
  @InternalRoute({
    id: 'regenerateApiKey', tag: 'Workspaces', summary: 'Regenerate an API key',
    description: 'A new key and secret under the same key id; the previous key and secret are refused from then on.',
    answers: [{ status: 200, description: 'The new key and its secret', schema: single('ApiKey') }],
  })
  async regenerate(@Req() request: FastifyRequest, @Param('apiKeyId') apiKeyId: string) {
    return { data: await this.commands.execute(new RegenerateApiKey(apiKeyId, internalContext(request))) };
  }

  @Put('workspaces/:workspaceId/webhook')
  @JsonBody()
  @InternalRoute({
    id: 'saveWebhook', tag: 'Webhooks', summary: 'Save the webhook settings',
    description: 'The address (an absolute `https://` URL of a public host; `http://` and private hosts too with WEBHOOK_ALLOW_INSECURE=true) and the events to send. Saving again keeps the signing secret and enables a disabled address. Refused in this order: an address that is not public (422), an unknown workspace (404), then the body\'s rules (422).',
    answers: [{ status: 200, description: 'The settings with the signing secret', schema: single('WebhookSettings') }],
    body: SaveWebhookBody,
  })
  // Typed by the deployment's rule (webhookSettings), not by the parameter's type: the global pipe leaves a plain object alone.
  // In the order always answered: what the address resolves to, the workspace, then the body's rules.
  async saveWebhook(@Req() request: FastifyRequest, @Param('workspaceId') workspaceId: string, @Body() body: object) {
    await refuseNonPublicAddress(body, this.config.webhookAllowInsecure, resolveHostNow);
    await requireKnownWorkspace(this.documents, workspaceId);
    const settings = await webhookSettings(body, this.config.webhookAllowInsecure);
    return { data: await this.commands.execute(new ConfigureWebhook(workspaceId, settings, internalContext(request))) };
  }

  @Get('workspaces/:workspaceId/webhook')
  @InternalRoute({
    id: 'getWebhook', tag: 'Webhooks', summary: 'Read the webhook settings',
    description: 'The settings, the signing secret, and whether the address is enabled (and why not). 404 also when no webhook is saved.',
    answers: [{ status: 200, description: 'The settings', schema: single('WebhookSettings') }],
  })
  async webhook(@Param('workspaceId') workspaceId: string) {
    const workspace = await getWorkspace(this.documents, workspaceId);
    if (!workspace?.webhook) throw apiError('not_found');
    const { url, events, encryptedSecret, enabled, disabledReason } = workspace.webhook;
    return { data: { url, events, secret: this.box.open(encryptedSecret), enabled, disabledReason } };
  }

  @Post('workspaces/:workspaceId/webhook/rotate-secret')
  @InternalRoute({
    id: 'rotateWebhookSecret', tag: 'Webhooks', summary: 'Rotate the signing secret',
    description: 'A new signing secret; for 24 hours deliveries carry a signature with the old one too. 404 also when no webhook is saved.',
    answers: [{ status: 200, description: 'The address, events and new secret', schema: single('RotatedWebhookSecret') }],
  })
  async rotate(@Req() request: FastifyRequest, @Param('workspaceId') workspaceId: string) {
    const { url, events, secret } = await this.commands.execute(new RotateWebhookSecret(workspaceId, internalContext(request)));
    return { data: { url, events, secret } };
  }

  @Post('workspaces/:workspaceId/custom-tests')
  @JsonBody()
  @InternalRoute({
    id: 'createCustomTest', tag: 'Workspaces', summary: 'Create a custom test',
    description: 'A test of this workspace only (`type: custom`), to append to its assessments. An unknown workspace is refused (404) before a bad body (422).',
    answers: [{ status: 201, description: 'The new test', schema: single('CustomTest') }],
    body: CreateCustomTestBody,
  })
  async customTest(@Req() request: FastifyRequest, @Param('workspaceId') workspaceId: string, @Body() body: object) {
    await requireKnownWorkspace(this.documents, workspaceId);
    const draft = customTestDraft(await validatedBody(CreateCustomTestBody, body));
    return { data: await this.commands.execute(new CreateCustomTest(workspaceId, draft, internalContext(request))) };
  }

  @Get('workspaces/:workspaceId/billing')
  @InternalRoute({
    id: 'getBilling', tag: 'Workspaces', summary: 'Read the billing',
    description: 'The free allowance and every billed live candidate: billed once, at the first unlock after the allowance is used up. Test candidates are never billed.',
    answers: [{ status: 200, description: 'The billing', schema: single('Billing') }],
  })
  async billing(@Param('workspaceId') workspaceId: string) {
    const billing = await getBilling(this.documents, workspaceId);
    if (!billing) throw apiError('not_found');
    return { data: { freeAllowance: billing.freeAllowance, billedCandidates: billing.billedCandidates } };
  }
}
