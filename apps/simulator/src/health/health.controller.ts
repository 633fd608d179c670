import { Get, Inject } from '@nestjs/common';
import { INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import { InternalController } from '../auth/internal-token.guard.js';
import { InternalRoute } from '../openapi/internal-route.js';
import { single } from '../openapi/internal-schemas.js';
import { healthSummary } from './health-summary.js';

@InternalController('internal/health')
export class HealthController {
  constructor(@Inject(INFRASTRUCTURE) private readonly infra: Infrastructure) {}

  @Get()
  @InternalRoute({
    id: 'getHealth', tag: 'Operations', summary: 'Read the health summary',
    description: "The release, the event log's head, how far each read model is, whether Redis answers, and the queues' job counts.",
    answers: [{ status: 200, description: 'The summary', schema: single('Health') }],
  })
  async health() {
    return { data: await healthSummary(this.infra) };
  }
}
