import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import { INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import { InternalTokenGuard } from '../auth/internal-token.guard.js';
import { InternalRoute } from '../openapi/internal-document.js';
import { healthSummary } from './health-summary.js';

@Controller('internal/health')
@UseGuards(InternalTokenGuard)
export class HealthController {
  constructor(@Inject(INFRASTRUCTURE) private readonly infra: Infrastructure) {}

  @Get()
  @InternalRoute('The log head, read-model checkpoints, Redis and the queues', 200)
  async health() {
    return { data: await healthSummary(this.infra) };
  }
}
