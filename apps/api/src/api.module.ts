import { Module } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { CONFIG, REDIS } from '#commands';
import { FailedAuthThrottle, RedisIdempotencyStore } from '#http';
import type { ServiceConfig } from '#platform';
import { ApiKeyCache } from '#read-models';
import { DOCUMENTS, INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import { AssessmentsController } from './assessments/assessments.controller.js';
import { ApiKeyGuard } from './auth/api-key.guard.js';
import { RateLimitGuard } from './auth/rate-limit.guard.js';
import { CandidatesController } from './candidates/candidates.controller.js';
import { CompletionsController } from './completions/completions.controller.js';
import { EventsController } from './events/events.controller.js';
import { InvitationsController } from './invitations/invitations.controller.js';
import { InvitationIdempotency } from './invitations/invitation-idempotency.interceptor.js';
import { ListInvitationsController } from './invitations/list-invitations.controller.js';
import { LegacyCandidatesController } from './legacy/legacy-candidates.controller.js';
import { MeController } from './me/me.controller.js';
import { ResultsController } from './results/results.controller.js';
import { TestsController } from './tests/tests.controller.js';

/** The public API: controllers turn requests into commands and queries, nothing else. */
@Module({
  controllers: [
    MeController, TestsController, AssessmentsController, InvitationsController, CandidatesController, ResultsController, CompletionsController,
    EventsController, LegacyCandidatesController, ListInvitationsController,
  ],
  providers: [
    ApiKeyGuard,
    RateLimitGuard,
    InvitationIdempotency,
    // The public API's read models: with READ_REPLICA_URL a GET's reads may be served by a standby
    // that has replayed every write acknowledged before it began (readSessionsOn); otherwise the primary.
    { provide: DOCUMENTS, useFactory: (infra: Infrastructure) => infra.publicReads.documents, inject: [INFRASTRUCTURE] },
    // API keys are read, and their changes heard (LISTEN), on the primary.
    { provide: ApiKeyCache, useFactory: (infra: Infrastructure) => new ApiKeyCache(infra.documents), inject: [INFRASTRUCTURE] },
    { provide: RedisIdempotencyStore, useFactory: (redis: Redis) => new RedisIdempotencyStore(redis, { prefix: 'idem:' }), inject: [REDIS] },
    // Per deployment: services sharing one Redis must not throttle each other's callers. Untagged: one
    // counter per address, each in its own slot on a Redis Cluster (docs/architecture.md, Redis keys).
    { provide: FailedAuthThrottle, useFactory: (redis: Redis, config: ServiceConfig) => new FailedAuthThrottle(redis, { prefix: `${config.redisName}:authfail:`, limit: config.authFailuresPerMinute }), inject: [REDIS, CONFIG] },
  ],
})
export class ApiModule {}
