import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { CommandBus } from '@nestjs/cqrs';
import { EventWriter, InviteCandidates, rehearseInvitation, systemContext } from '#commands';
import { EdgeValidationPipe } from '#http';
import { ApiKeyCache, type DocumentStore, getAssessment } from '#read-models';
import { DOCUMENTS, ERASURE_WINDOW } from '#runtime/infrastructure.js';
import type { ErasureWindow } from '#runtime/personal-data-erasure.js';
import { InviteCandidatesBody } from './invitations/invitations.dto.js';

/**
 * Runs an invitation's body validation and reads once before the API listens, on ids that cannot
 * exist, and rehearses its write (rolled back on each connection), so the first request does not pay
 * for compiling the code and the store's first run of each statement (most of a cold first invitation
 * on PGlite). Nothing is written or counted: the command is refused before any decision, and no
 * request meets the failed-sign-in throttle or the refusal metrics.
 */
export const warmUpPublicApi = async (app: NestFastifyApplication): Promise<void> => {
  const nowhere = `warm-up-${randomUUID()}`;
  const documents = app.get<DocumentStore>(DOCUMENTS);
  const erasures = app.get<ErasureWindow>(ERASURE_WINDOW);
  await Promise.all([
    app.get(ApiKeyCache).reread(nowhere),
    getAssessment(documents, nowhere, nowhere),
    erasures.mayKeepAnswer(nowhere, [`${nowhere}@example.invalid`], Date.now()),
    app.get(CommandBus).execute(new InviteCandidates(nowhere, nowhere, 'live', [], systemContext(nowhere))).catch(() => undefined),
    new EdgeValidationPipe().transform({ candidates: [{ email: `${nowhere}@example.invalid` }] }, { type: 'body', metatype: InviteCandidatesBody }),
  ]);
  // After the reads: the append's statements are then planned with the connection's catalogue warm.
  await rehearseInvitation(app.get(EventWriter));
};
