import { Controller, Get, Inject, Req, UseGuards } from '@nestjs/common';
import { apiError } from '../../../../libs/http/src/index.js';
import { getWorkspace, sandboxAllowance } from '../../../../libs/read-models/src/index.js';
import type { DocumentStore } from '../../../../libs/read-models/src/shared/document-store.port.js';
import { CLOCK } from '../../../../libs/commands/src/shared/tokens.js';
import type { Clock } from '../../../../libs/platform/src/clock/clock.js';
import { DOCUMENTS } from '../../../../libs/runtime/src/infrastructure.js';
import { ApiKeyGuard, type AuthenticatedRequest } from '../auth/api-key.guard.js';

@Controller('v1/me')
@UseGuards(ApiKeyGuard)
export class MeController {
  constructor(@Inject(DOCUMENTS) private readonly documents: DocumentStore, @Inject(CLOCK) private readonly clock: Clock) {}

  @Get()
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
