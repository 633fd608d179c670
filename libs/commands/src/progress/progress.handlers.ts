import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  type CandidateEvent, type CandidateState, type ProgressStatus, assessmentStream, candidateStream, decideCompleteTest, decideStart, evolveAssessment,
  evolveCandidate, initialAssessmentState, initialCandidateState, parseScores, progressOf, requireAssessment, requireCandidate,
} from '#domain';
import { ids } from '#platform';
import { EventWriter } from '../shared/event-writer.js';
import type { WriteBatch } from '../shared/write-batch.js';
import type { RequestContext } from '../shared/ports.js';

export class StartAssessment extends Command<{ candidateId: string; assessmentId: string; status: ProgressStatus }> {
  constructor(readonly candidateId: string, readonly assessmentId: string, readonly context: RequestContext) { super(); }
}
export class CompleteTest extends Command<{ resultId: string; assessmentCompleted: boolean }> {
  constructor(readonly candidateId: string, readonly assessmentId: string, readonly slug: string, readonly body: unknown, readonly context: RequestContext) { super(); }
}

/** Candidate progress is decided on the candidate stream, against the assessment as it stands. */
const loadBoth = async (batch: WriteBatch, candidateId: string, assessmentId: string) => {
  const candidateLoaded = await batch.load<CandidateState, CandidateEvent>(candidateStream(candidateId), initialCandidateState, evolveCandidate);
  const candidate = requireCandidate(candidateLoaded.state);
  const assessment = requireAssessment((await batch.load(assessmentStream(assessmentId), initialAssessmentState, evolveAssessment)).state, candidate.workspaceId);
  return { candidate, assessment, revision: candidateLoaded.revision };
};

@CommandHandler(StartAssessment)
export class StartAssessmentHandler implements ICommandHandler<StartAssessment> {
  constructor(private readonly writer: EventWriter) {}
  async execute({ candidateId, assessmentId, context }: StartAssessment) {
    const streamId = candidateStream(candidateId);
    const status = await this.writer.decide(streamId, async (batch): Promise<ProgressStatus> => {
      const { candidate, assessment, revision } = await loadBoth(batch, candidateId, assessmentId);
      const now = await batch.now();
      const events = decideStart(candidate, assessment, now);
      batch.append([{ streamId, expectedRevision: revision, events }], context, now);
      const after = requireCandidate(events.reduce<CandidateState>(evolveCandidate, candidate));
      const entry = after.assessments[assessmentId];
      return entry ? progressOf(entry) : 'in_progress';
    });
    return { candidateId, assessmentId, status };
  }
}

@CommandHandler(CompleteTest)
export class CompleteTestHandler implements ICommandHandler<CompleteTest> {
  constructor(private readonly writer: EventWriter) {}
  async execute({ candidateId, assessmentId, slug, body, context }: CompleteTest) {
    const streamId = candidateStream(candidateId);
    return this.writer.decide(streamId, async (batch) => {
      const { candidate, assessment, revision } = await loadBoth(batch, candidateId, assessmentId);
      const scores = parseScores(body);
      const now = await batch.now();
      const decision = decideCompleteTest({ candidate, assessment, slug, scores, resultId: ids.result(), now });
      batch.append([{ streamId, expectedRevision: revision, events: decision.events }], context, now);
      return { resultId: decision.resultId, assessmentCompleted: decision.assessmentCompleted };
    });
  }
}

export const progressHandlers = [StartAssessmentHandler, CompleteTestHandler];
