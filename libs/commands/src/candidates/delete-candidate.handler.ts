import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  type CandidateEmailEvent, type CandidateEvent, type CandidateState, assessmentStream, candidateEmailStream, candidateStream, decideDeleteCandidate,
  type ExpectedRevisionLike, evolveAssessment, evolveCandidate, evolveCandidateEmail, initialAssessmentState, initialCandidateEmailState, initialCandidateState,
  requireCandidate,
} from '#domain';
import { EventWriter, type DomainAppend } from '../shared/event-writer.js';
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
    await this.writer.decide(streamId, async (batch) => {
      const candidateLoaded = await batch.load<CandidateState, CandidateEvent>(streamId, initialCandidateState, evolveCandidate);
      const candidate = requireCandidate(candidateLoaded.state);
      const emailStreamId = candidateEmailStream(candidate.workspaceId, candidate.email);
      const emailLoaded = await batch.load<ReturnType<typeof initialCandidateEmailState>, CandidateEmailEvent>(emailStreamId, initialCandidateEmailState, evolveCandidateEmail);
      const assessmentAppends: DomainAppend[] = [];
      const invitationIds: Record<string, string | null> = {};
      const revisions = new Map<string, ExpectedRevisionLike>();
      // Every assessment of the workspace, read from the log: the invitations of this address they
      // never used go too (their links must stop working with them, and their data is erased with
      // them). The deletion expects each assessment at the revision it read, so an invitation of the
      // address committed meanwhile makes it decide again, and sees that invitation.
      const candidateAssessments = Object.keys(candidate.assessments);
      const assessmentIds = [...new Set([...candidateAssessments, ...(await this.lookups.assessmentsOfWorkspace(candidate.workspaceId))])];
      const loaded = await batch.loadMany(assessmentIds.map(assessmentStream), initialAssessmentState, evolveAssessment);
      const pending: { assessmentId: string; invitationId: string }[] = [];
      for (const assessmentId of assessmentIds) {
        const assessment = loaded.get(assessmentStream(assessmentId));
        if (assessment === undefined) continue;
        const invitationId = assessment.state.status === 'none' ? null : assessment.state.invitations[candidate.email]?.invitationId ?? null;
        batch.expect(assessmentStream(assessmentId));
        revisions.set(assessmentId, assessment.revision);
        if (candidateAssessments.includes(assessmentId)) invitationIds[assessmentId] = invitationId;
        else if (invitationId !== null) pending.push({ assessmentId, invitationId });
      }
      const now = await batch.now();
      const decision = decideDeleteCandidate(candidate, invitationIds, now, pending);
      for (const [assessmentId, revision] of revisions) {
        assessmentAppends.push({ streamId: assessmentStream(assessmentId), expectedRevision: revision, events: decision.assessmentEvents[assessmentId] ?? [] });
      }
      batch.append([
        { streamId, expectedRevision: candidateLoaded.revision, events: decision.candidateEvents },
        { streamId: emailStreamId, expectedRevision: emailLoaded.revision, events: decision.emailEvents },
        ...assessmentAppends,
      ], context, now);
    });
  }
}
