import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import { INFRASTRUCTURE, type Infrastructure } from '../../../../libs/runtime/src/infrastructure.js';
import { allProjectionNames } from '../../../../libs/read-models/src/index.js';
import { InternalTokenGuard } from '../auth/internal-token.guard.js';
import { InternalRoute } from '../openapi/internal-document.js';


/** Operators' view of the moving parts: the log head, how far each read model is, and the queues. */
@Controller('internal/health')
@UseGuards(InternalTokenGuard)
export class HealthController {
  constructor(@Inject(INFRASTRUCTURE) private readonly infra: Infrastructure) {}

  @Get()
  @InternalRoute('The log head, read-model checkpoints, Redis and the queues', 200)
  async health() {
    const [head, checkpoints, redis] = await Promise.all([
      this.infra.eventStore.headPosition(),
      this.infra.documents.checkpoints(allProjectionNames),
      this.infra.redis.ping().then(() => 'ok', () => 'unreachable'),
    ]);
    // Queue connections wait for Redis indefinitely; the health answer does not.
    const queues = this.infra.messaging
      ? await Promise.race([this.infra.messaging.queueHealth().catch(() => null), new Promise<null>((resolve) => setTimeout(() => resolve(null), 1000).unref())])
      : null;
    return {
      data: {
        status: redis === 'ok' ? 'ok' : 'degraded',
        eventStore: { headPosition: head === null ? null : head.toString() },
        readModels: Object.fromEntries([...checkpoints].map(([name, position]) => [name, position === null ? null : position.toString()])),
        redis,
        queues,
      },
    };
  }
}
