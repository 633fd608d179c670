import { Module } from '@nestjs/common';
import { INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import { AssessmentPagesController } from './assessments/assessment.pages.controller.js';
import { AuditPagesController } from './audit/audit.pages.controller.js';
import { ClockPagesController } from './clock/clock.pages.controller.js';
import { HealthPagesController } from './health/health.pages.controller.js';
import { OutboxPagesController } from './outbox/outbox.pages.controller.js';
import { AssetsController } from './shared/assets.controller.js';
import { PageErrorFilter } from './shared/page-error.filter.js';
import { PageResponder } from './shared/page-responder.js';
import { PageSessionGuard } from './shared/page-session.guard.js';
import { SessionRevocations } from './shared/session-revocations.js';
import { PageSessions } from './shared/session.js';
import { SignInController } from './sign-in/sign-in.controller.js';
import { CandidatePagesController } from './simulator/candidate.pages.controller.js';
import { RegistrationPagesController } from './simulator/registration.pages.controller.js';
import { WebhookPagesController } from './workspaces/webhook.pages.controller.js';
import { WorkspacePagesController } from './workspaces/workspace.pages.controller.js';

/**
 * The internal application's web pages, on top of the same commands and read models as its JSON API.
 * Their controllers answer HTML and stay out of the internal OpenAPI document (@ApiExcludeController).
 */
@Module({
  controllers: [
    AssetsController, SignInController, WorkspacePagesController, WebhookPagesController, AssessmentPagesController,
    RegistrationPagesController, CandidatePagesController, OutboxPagesController, ClockPagesController, AuditPagesController, HealthPagesController,
  ],
  providers: [
    { provide: PageSessions, useFactory: (infra: Infrastructure) => new PageSessions(infra.serviceSecret, infra.config.internalToken), inject: [INFRASTRUCTURE] },
    {
      provide: SessionRevocations,
      useFactory: async (infra: Infrastructure) => {
        const revocations = new SessionRevocations(infra.sidePool);
        await revocations.ensureSchema();
        return revocations;
      },
      inject: [INFRASTRUCTURE],
    },
    PageResponder,
    PageSessionGuard,
    PageErrorFilter,
  ],
  exports: [PageSessions, SessionRevocations],
})
export class PagesModule {}
