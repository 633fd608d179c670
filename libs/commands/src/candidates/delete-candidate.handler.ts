import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { assessmentStream, candidateEmailStream, candidateStream, decideDeleteCandidate, requireCandidate } from '#domain';
import { EventWriter } from '../shared/event-writer.js';
import { assessmentFold, candidateEmailFold, candidateFold } from '../shared/folds.js';
import type { RequestContext, WriteLookups } from '../shared/ports.js';
import { LOOKUPS } from '../shared/tokens.js';

export class DeleteCandidate extends Command<void> {
  constructor(readonly candidateId: string, readonly context: RequestContext) { super(); }
}

/** Deleting a test candidate frees the address and removes them from every assessment, atomically. */
@CommandHandler(DeleteCandidate)
export class DeleteCandidateHandler implements ICommandHandler<DeleteCandidate> {
  constructor(private readonly writer: EventWriter, @Inject(LOOKUPS) private readonly lookups: WriteLookups) {}

  async execute({ candidateId, context }: DeleteCandidate): Promise<void> {
    const streamId = candidateStream(candidateId);
    await this.writer.handle(streamId, context, async (streams, now) => {
      const candidate = requireCandidate(await streams.load(streamId, candidateFold));
      const emailStreamId = candidateEmailStream(candidate.workspaceId, candidate.email);
      await streams.load(emailStreamId, candidateEmailFold);
      // Every assessment of the workspace, read from the log: the invitations of this address they
      // never used go too (their links must stop working with them, and their data is erased with
      // them). The deletion checks each assessment at the revision it read, so an invitation of the
      // address committed meanwhile makes it decide again, and sees that invitation.
      const candidateAssessments = Object.keys(candidate.assessments);
      const assessmentIds = [...new Set([...candidateAssessments, ...(await this.lookups.assessmentsOfWorkspace(candidate.workspaceId))])];
      const assessments = await Promise.all(assessmentIds.map((assessmentId) => streams.load(assessmentStream(assessmentId), assessmentFold)));
      const invitationIds: Record<string, string | null> = {};
      const pending: { assessmentId: string; invitationId: string }[] = [];
      assessmentIds.forEach((assessmentId, index) => {
        const assessment = assessments[index];
        const invitationId = assessment === undefined || assessment.status === 'none' ? null : assessment.invitations.get(candidate.email)?.invitationId ?? null;
        if (candidateAssessments.includes(assessmentId)) invitationIds[assessmentId] = invitationId;
        else if (invitationId !== null) pending.push({ assessmentId, invitationId });
      });
      const decision = decideDeleteCandidate(candidate, invitationIds, now, pending);
      return {
        appends: [
          { streamId, events: decision.candidateEvents },
          { streamId: emailStreamId, events: decision.emailEvents },
          ...Object.entries(decision.assessmentEvents).map(([assessmentId, events]) => ({ streamId: assessmentStream(assessmentId), events })),
        ],
        checks: assessmentIds.map(assessmentStream),
        answer: undefined,
      };
    });
  }
}
