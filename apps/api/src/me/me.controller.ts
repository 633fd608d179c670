import { Controller, Get, Inject, Req } from '@nestjs/common';
import { apiError } from '../../../../libs/http/src/index.js';
import { getWorkspace, sandboxAllowance } from '../../../../libs/read-models/src/index.js';
import type { DocumentStore } from '../../../../libs/read-models/src/shared/document-store.port.js';
import { CLOCK } from '../../../../libs/commands/src/shared/tokens.js';
import type { Clock } from '../../../../libs/platform/src/clock/clock.js';
import { DOCUMENTS } from '../../../../libs/runtime/src/infrastructure.js';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { Answers, Authenticated, Operation } from '../openapi/operation.decorators.js';
import { EXAMPLES } from '../openapi/examples.js';
import { single } from '../openapi/response-schemas.js';

@Controller('v1/me')
@Authenticated('Workspace')
export class MeController {
  constructor(@Inject(DOCUMENTS) private readonly documents: DocumentStore, @Inject(CLOCK) private readonly clock: Clock) {}

  @Get()
  @Operation('getMe', 'Workspace and key mode')
  @Answers(200, 'The workspace of the key, its mode and the sandbox allowance', single('Workspace'), EXAMPLES.me)
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
