import { Controller, Get, Inject, Req } from '@nestjs/common';
import { apiError } from '#http';
import { getWorkspace, sandboxAllowance, type DocumentStore } from '#read-models';
import { CLOCK } from '#commands';
import type { Clock } from '#platform';
import { DOCUMENTS } from '#runtime/infrastructure.js';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { Answers, Authenticated, Operation } from '../openapi/operation.decorators.js';
import { single } from '../openapi/response-schemas.js';

@Controller('v1/me')
@Authenticated('Workspace')
export class MeController {
  constructor(@Inject(DOCUMENTS) private readonly documents: DocumentStore, @Inject(CLOCK) private readonly clock: Clock) {}

  @Get()
  @Operation('getMe', 'Workspace and key mode',
    'The workspace the key belongs to, whether the key is live or sandbox, and the workspace\'s sandbox allowance (shown to live keys too). A cheap way to check a credential.')
  @Answers(200, 'The workspace of the key, its mode and the sandbox allowance', single('Workspace'), 'me')
  async me(@Req() request: AuthenticatedRequest) {
    const workspace = await getWorkspace(this.documents, request.apiKey.workspaceId);
    if (!workspace) throw apiError('unauthorized');
    const now = new Date(await this.clock.now());
    return {
      data: {
        workspace: { id: workspace.id, name: workspace.name },
        mode: request.apiKey.mode,
        sandbox: sandboxAllowance(workspace, now),
      },
    };
  }
}
