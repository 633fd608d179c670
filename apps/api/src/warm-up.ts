import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { CommandBus } from '@nestjs/cqrs';
import { EventWriter, InviteCandidates, rehearseInvitation, systemContext } from '#commands';
import { assessmentStream } from '#domain';
import { EdgeValidationPipe } from '#http';
import { ApiKeyCache } from '#read-models';
import { ERASURE_WINDOW, INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import type { ErasureWindow } from '#runtime/personal-data-erasure.js';
import { InvitationIdempotency } from './invitations/invitation-idempotency.interceptor.js';
import { InviteCandidatesBody } from './invitations/invitations.dto.js';

/**
 * Runs an invitation's body validation and reads once before the API listens, and rehearses its write
 * (rolled back on each connection) on the assessments written to last, so the first request does not
 * pay for compiling the code, the store's first run of each statement (most of a cold first invitation
 * on PGlite), folding those assessments and finding their workspace (the write side keeps the states it
 * loaded and the invitation route the workspaces, as for any read: docs/architecture.md, "Before the
 * first request"). Nothing is written or counted: the command is refused before any decision, and no
 * request meets the failed-sign-in throttle or the refusal metrics.
 */
export const warmUpPublicApi = async (app: NestFastifyApplication): Promise<void> => {
  const nowhere = `warm-up-${randomUUID()}`;
  const recent = await recentAssessments(app.get<Infrastructure>(INFRASTRUCTURE).eventStore).catch(() => []);
  await Promise.all([
    app.get(ApiKeyCache).reread(nowhere),
    ...[...recent, { workspaceId: nowhere, assessmentId: nowhere }].map((known) => app.get(InvitationIdempotency).ownerOf(known.workspaceId, known.assessmentId)),
    app.get<ErasureWindow>(ERASURE_WINDOW).mayKeepAnswer(nowhere, [`${nowhere}@example.invalid`], Date.now()),
    app.get(CommandBus).execute(new InviteCandidates(nowhere, nowhere, 'live', [], systemContext(nowhere))).catch(() => undefined),
    new EdgeValidationPipe().transform({ candidates: [{ email: `${nowhere}@example.invalid` }] }, { type: 'body', metatype: InviteCandidatesBody }),
  ]);
  // After the reads: the append's statements are then planned with the connection's catalogue warm.
  await rehearseInvitation(app.get(EventWriter), recent).catch(() => rehearseInvitation(app.get(EventWriter)));
};

/** The assessments written to among the log's last 256 positions, the last written first (4 at most: each load may fold a long stream); none if the log cannot say. */
const recentAssessments = async (store: Infrastructure['eventStore']): Promise<{ workspaceId: string; assessmentId: string }[]> => {
  const head = (await store.headPosition()) ?? 0n;
  const events = (await store.readAll({ after: head > 256n ? head - 256n : null, maxCount: 256, dataOnly: true })).filter((event) => event.streamId.startsWith(assessmentStream('')));
  const workspaces = new Map(events.reverse().map((event) => [event.streamId, String((event.data as { workspaceId?: unknown }).workspaceId)]));
  return [...workspaces].slice(0, 4).map(([streamId, workspaceId]) => ({ workspaceId, assessmentId: streamId.slice(assessmentStream('').length) }));
};
