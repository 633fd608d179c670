import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  type CandidateEmailEvent, type CandidateEvent, type CandidateState, assessmentStream, candidateEmailStream, candidateStream, decideDeleteCandidate,
  evolveAssessment, evolveCandidate, evolveCandidateEmail, initialAssessmentState, initialCandidateEmailState, initialCandidateState, requireCandidate,
} from '../../../domain/src/index.js';
import { EventWriter, type DomainAppend } from '../shared/event-writer.js';
import type { RequestContext } from '../shared/ports.js';

export class DeleteCandidate extends Command<void> {
  constructor(readonly candidateId: string, readonly context: RequestContext) { super(); }
}

/** Deleting a test candidate frees the address and removes them from every assessment, atomically. */
@CommandHandler(DeleteCandidate)
export class DeleteCandidateHandler implements ICommandHandler<DeleteCandidate> {
  constructor(private readonly writer: EventWriter) {}

  async execute({ candidateId, context }: DeleteCandidate): Promise<void> {
    const streamId = candidateStream(candidateId);
    const position = await this.writer.decide(streamId, async () => {
      const candidateLoaded = await this.writer.load<CandidateState, CandidateEvent>(streamId, initialCandidateState, evolveCandidate);
      const candidate = requireCandidate(candidateLoaded.state);
      const emailStreamId = candidateEmailStream(candidate.workspaceId, candidate.email);
      const emailLoaded = await this.writer.load<ReturnType<typeof initialCandidateEmailState>, CandidateEmailEvent>(emailStreamId, initialCandidateEmailState, evolveCandidateEmail);
      const assessmentAppends: DomainAppend[] = [];
      const invitationIds: Record<string, string | null> = {};
      const loadedAssessments = [];
      for (const assessmentId of Object.keys(candidate.assessments)) {
        const loaded = await this.writer.load(assessmentStream(assessmentId), initialAssessmentState, evolveAssessment);
        invitationIds[assessmentId] = loaded.state.status === 'none' ? null : loaded.state.invitations[candidate.email]?.invitationId ?? null;
        loadedAssessments.push({ assessmentId, revision: loaded.revision });
      }
      const now = await this.writer.now();
      const decision = decideDeleteCandidate(candidate, invitationIds, now);
      for (const { assessmentId, revision } of loadedAssessments) {
        assessmentAppends.push({ streamId: assessmentStream(assessmentId), expectedRevision: revision, events: decision.assessmentEvents[assessmentId] ?? [] });
      }
      return this.writer.append([
        { streamId, expectedRevision: candidateLoaded.revision, events: decision.candidateEvents },
        { streamId: emailStreamId, expectedRevision: emailLoaded.revision, events: decision.emailEvents },
        ...assessmentAppends,
      ], context, now);
    });
    await this.writer.settle(position);
  }
}
