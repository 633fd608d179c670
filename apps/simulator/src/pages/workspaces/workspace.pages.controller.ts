import { Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CreateCustomTest, CreateWorkspace, IssueApiKey, RegenerateApiKey, VerifyWorkspace, type IssuedKey } from '#commands';
import { apiError } from '#http';
import { getApiKey, listApiKeysOfWorkspace, sandboxAllowance } from '#read-models';
import { INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import { internalContext } from '../../auth/internal-context.js';
import { requireKnownWorkspace } from '../../validation/known-ids.js';
import { validatedBody } from '../../validation/validated-body.js';
import { CreateCustomTestBody, CreateWorkspaceBody, IssueApiKeyBody, customTestDraft, workspaceDraft } from '../../workspaces/workspaces.dto.js';
import { pageContext } from '../shared/page-context.js';
import { numberField, publicBaseUrl, requireWorkspace } from '../shared/page-data.js';
import { field, queryParam } from '../shared/page-http.js';
import { PageResponder } from '../shared/page-responder.js';
import { PagesController } from '../shared/pages-controller.js';
import { workspacePath } from './workspace-frame.js';
import { workspaceListPage } from './workspace-list.view.js';
import { workspaceOverviewPage } from './workspace-overview.view.js';
import { summarize, workspaceSummaries } from './workspace-summaries.js';

/** Workspaces, their API keys and custom tests: the same commands and read models as the JSON routes. */
@PagesController()
export class WorkspacePagesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly responder: PageResponder,
    @Inject(INFRASTRUCTURE) private readonly infra: Infrastructure,
  ) {}

  @Get()
  async list(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const { summaries, next } = await workspaceSummaries(this.infra.documents, queryParam(request, 'after'));
    this.responder.show(request, reply, workspaceListPage(pageContext(request), summaries, next));
  }

  @Post('workspaces')
  async create(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const body = await validatedBody(CreateWorkspaceBody, { name: field(request, 'name'), freeAllowance: numberField(field(request, 'freeAllowance') || '0') });
    const workspace = await this.commands.execute(new CreateWorkspace(workspaceDraft(body), internalContext(request)));
    this.responder.done(reply, workspacePath(workspace.id), `Workspace “${workspace.name}” created. Verify it before inviting anyone.`);
  }

  @Post('workspaces/:workspaceId/verify')
  async verify(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('workspaceId') workspaceId: string): Promise<void> {
    const workspace = await this.commands.execute(new VerifyWorkspace(workspaceId, internalContext(request)));
    this.responder.done(reply, workspacePath(workspace.id), `Workspace “${workspace.name}” is verified: it can invite candidates.`);
  }

  @Get('workspaces/:workspaceId')
  async overview(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('workspaceId') workspaceId: string): Promise<void> {
    await this.showOverview(request, reply, workspaceId, null);
  }

  private async showOverview(request: FastifyRequest, reply: FastifyReply, workspaceId: string, issued: IssuedKey | null): Promise<void> {
    const workspace = await requireWorkspace(this.infra.documents, workspaceId);
    const [summary, keys, now] = await Promise.all([
      summarize(this.infra.documents, workspace), listApiKeysOfWorkspace(this.infra.documents, workspaceId), this.infra.clock.now(),
    ]);
    const sandbox = sandboxAllowance(workspace, new Date(now));
    this.responder.show(request, reply, workspaceOverviewPage(pageContext(request), {
      summary, keys, issued, sandboxRemaining: sandbox.remaining, sandboxLimit: sandbox.limit, publicBaseUrl: publicBaseUrl(this.infra.config),
    }), issued ? 201 : 200);
  }

  /** The answer is the page itself (no redirect): the secret must never travel in a URL or a cookie. */
  @Post('workspaces/:workspaceId/api-keys')
  async issueKey(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('workspaceId') workspaceId: string): Promise<void> {
    await requireKnownWorkspace(this.infra.documents, workspaceId);
    const { mode } = await validatedBody(IssueApiKeyBody, { mode: field(request, 'mode') });
    const issued = await this.commands.execute(new IssueApiKey(workspaceId, mode, internalContext(request)));
    await this.showOverview(request, reply, workspaceId, issued);
  }

  @Post('api-keys/:apiKeyId/regenerate')
  async regenerate(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('apiKeyId') apiKeyId: string): Promise<void> {
    const key = await getApiKey(this.infra.documents, apiKeyId);
    if (!key) throw apiError('not_found');
    const issued = await this.commands.execute(new RegenerateApiKey(apiKeyId, internalContext(request)));
    await this.showOverview(request, reply, key.workspaceId, issued);
  }

  @Post('workspaces/:workspaceId/custom-tests')
  async customTest(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('workspaceId') workspaceId: string): Promise<void> {
    await requireKnownWorkspace(this.infra.documents, workspaceId);
    const body = await validatedBody(CreateCustomTestBody, {
      name: field(request, 'name'), minutes: numberField(field(request, 'minutes')), questionCount: numberField(field(request, 'questionCount')),
    });
    const test = await this.commands.execute(new CreateCustomTest(workspaceId, customTestDraft(body), internalContext(request)));
    this.responder.done(reply, workspacePath(workspaceId), `Custom test “${test.name}” (${test.slug}) created.`);
  }
}
