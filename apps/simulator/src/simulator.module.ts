import { Module } from '@nestjs/common';
import { AssessmentsController } from './assessments/assessments.controller.js';
import { AsOfController } from './audit/as-of.controller.js';
import { LogIntegrityController } from './audit/log-integrity.controller.js';
import { StreamsController } from './audit/streams.controller.js';
import { InternalTokenGuard } from './auth/internal-token.guard.js';
import { CandidatesController } from './candidates/candidates.controller.js';
import { ClockController } from './clock/clock.controller.js';
import { HealthController } from './health/health.controller.js';
import { MessagingController } from './outbox/messaging.controller.js';
import { InternalDocumentController } from './openapi/internal-document.js';
import { PagesModule } from './pages/pages.module.js';
import { WorkspacesController } from './workspaces/workspaces.controller.js';

/** The internal application (simulator, integrations page, audit views) on INTERNAL_PORT. */
@Module({
  imports: [PagesModule],
  controllers: [
    WorkspacesController, AssessmentsController, CandidatesController, StreamsController, LogIntegrityController, AsOfController, ClockController,
    HealthController, MessagingController, InternalDocumentController,
  ],
  providers: [InternalTokenGuard],
})
export class SimulatorModule {}
