import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  type CandidateState, type ProgressStatus, assessmentStream, candidateStream, decideCompleteTest, decideStart, evolveCandidate, progressOf,
  type ResultScores, requireAssessment, requireCandidate,
} from '#domain';
import { ids } from '#platform';
import { EventWriter, type StreamReader } from '../shared/event-writer.js';
import { assessmentFold, candidateFold } from '../shared/folds.js';
import type { RequestContext } from '../shared/ports.js';

export class StartAssessment extends Command<{ candidateId: string; assessmentId: string; status: ProgressStatus }> {
  constructor(readonly candidateId: string, readonly assessmentId: string, readonly context: RequestContext) { super(); }
}
export class CompleteTest extends Command<{ resultId: string; assessmentCompleted: boolean }> {
  constructor(readonly candidateId: string, readonly assessmentId: string, readonly slug: string, readonly scores: ResultScores, readonly context: RequestContext) { super(); }
}

/** Candidate progress is decided on the candidate stream, against the assessment as it stands. */
const loadBoth = async (streams: StreamReader, candidateId: string, assessmentId: string) => {
  const candidate = requireCandidate(await streams.load(candidateStream(candidateId), candidateFold));
  const assessment = requireAssessment(await streams.load(assessmentStream(assessmentId), assessmentFold), candidate.workspaceId);
  return { candidate, assessment };
};

@CommandHandler(StartAssessment)
export class StartAssessmentHandler implements ICommandHandler<StartAssessment> {
  constructor(private readonly writer: EventWriter) {}
  async execute({ candidateId, assessmentId, context }: StartAssessment) {
    const streamId = candidateStream(candidateId);
    const status = await this.writer.handle(streamId, context, async (streams, now) => {
      const { candidate, assessment } = await loadBoth(streams, candidateId, assessmentId);
      const events = decideStart(candidate, assessment, now);
      const entry = requireCandidate(events.reduce<CandidateState>(evolveCandidate, candidate)).assessments[assessmentId];
      return { appends: [{ streamId, events }], answer: entry ? progressOf(entry) : ('in_progress' as ProgressStatus) };
    });
    return { candidateId, assessmentId, status };
  }
}

@CommandHandler(CompleteTest)
export class CompleteTestHandler implements ICommandHandler<CompleteTest> {
  constructor(private readonly writer: EventWriter) {}
  async execute({ candidateId, assessmentId, slug, scores, context }: CompleteTest) {
    const streamId = candidateStream(candidateId);
    return this.writer.handle(streamId, context, async (streams, now) => {
      const { candidate, assessment } = await loadBoth(streams, candidateId, assessmentId);
      const decision = decideCompleteTest({ candidate, assessment, slug, scores, resultId: ids.result(), now });
      return { appends: [{ streamId, events: decision.events }], answer: { resultId: decision.resultId, assessmentCompleted: decision.assessmentCompleted } };
    });
  }
}

export const progressHandlers = [StartAssessmentHandler, CompleteTestHandler];
