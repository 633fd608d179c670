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
      for (const assessmentId of Object.keys(candidate.assessments)) {
        const loaded = await batch.load(assessmentStream(assessmentId), initialAssessmentState, evolveAssessment);
        invitationIds[assessmentId] = loaded.state.status === 'none' ? null : loaded.state.invitations[candidate.email]?.invitationId ?? null;
        revisions.set(assessmentId, loaded.revision);
      }
      // Invitations they never used elsewhere go too: their links must stop working with them.
      const pending: { assessmentId: string; invitationId: string }[] = [];
      for (const invitation of await this.lookups.pendingInvitations(candidate.workspaceId, candidate.email)) {
        if (revisions.has(invitation.assessmentId)) continue;
        const loaded = await batch.load(assessmentStream(invitation.assessmentId), initialAssessmentState, evolveAssessment);
        if (loaded.state.status === 'none' || loaded.state.invitations[candidate.email]?.invitationId !== invitation.invitationId) continue;
        revisions.set(invitation.assessmentId, loaded.revision);
        pending.push(invitation);
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
