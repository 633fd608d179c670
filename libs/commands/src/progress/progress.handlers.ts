import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  type CandidateEvent, type CandidateState, type ProgressStatus, assessmentStream, candidateStream, decideCompleteTest, decideStart, evolveAssessment,
  evolveCandidate, initialAssessmentState, initialCandidateState, parseScores, progressOf, requireAssessment, requireCandidate,
} from '../../../domain/src/index.js';
import { ids } from '../../../platform/src/ids/ids.js';
import { EventWriter } from '../shared/event-writer.js';
import type { RequestContext } from '../shared/ports.js';

export class StartAssessment extends Command<{ candidateId: string; assessmentId: string; status: ProgressStatus }> {
  constructor(readonly candidateId: string, readonly assessmentId: string, readonly context: RequestContext) { super(); }
}
export class CompleteTest extends Command<{ resultId: string; assessmentCompleted: boolean }> {
  constructor(readonly candidateId: string, readonly assessmentId: string, readonly slug: string, readonly body: unknown, readonly context: RequestContext) { super(); }
}

/** Candidate progress is decided on the candidate stream, against the assessment as it stands. */
const loadBoth = async (writer: EventWriter, candidateId: string, assessmentId: string) => {
  const candidateLoaded = await writer.load<CandidateState, CandidateEvent>(candidateStream(candidateId), initialCandidateState, evolveCandidate);
  const candidate = requireCandidate(candidateLoaded.state);
  const assessment = requireAssessment((await writer.load(assessmentStream(assessmentId), initialAssessmentState, evolveAssessment)).state, candidate.workspaceId);
  return { candidate, assessment, revision: candidateLoaded.revision };
};

@CommandHandler(StartAssessment)
export class StartAssessmentHandler implements ICommandHandler<StartAssessment> {
  constructor(private readonly writer: EventWriter) {}
  async execute({ candidateId, assessmentId, context }: StartAssessment) {
    const streamId = candidateStream(candidateId);
    const { status, position } = await this.writer.decide(streamId, async () => {
      const { candidate, assessment, revision } = await loadBoth(this.writer, candidateId, assessmentId);
      const now = await this.writer.now();
      const events = decideStart(candidate, assessment, now);
      const appended = await this.writer.append([{ streamId, expectedRevision: revision, events }], context, now);
      const after = requireCandidate(events.reduce<CandidateState>(evolveCandidate, candidate));
      const entry = after.assessments[assessmentId];
      return { status: entry ? progressOf(entry) : 'in_progress', position: appended };
    });
    await this.writer.settle(position);
    return { candidateId, assessmentId, status };
  }
}

@CommandHandler(CompleteTest)
export class CompleteTestHandler implements ICommandHandler<CompleteTest> {
  constructor(private readonly writer: EventWriter) {}
  async execute({ candidateId, assessmentId, slug, body, context }: CompleteTest) {
    const streamId = candidateStream(candidateId);
    const { result, position } = await this.writer.decide(streamId, async () => {
      const { candidate, assessment, revision } = await loadBoth(this.writer, candidateId, assessmentId);
      const scores = parseScores(body);
      const now = await this.writer.now();
      const decision = decideCompleteTest({ candidate, assessment, slug, scores, resultId: ids.result(), now });
      const appended = await this.writer.append([{ streamId, expectedRevision: revision, events: decision.events }], context, now);
      return { result: { resultId: decision.resultId, assessmentCompleted: decision.assessmentCompleted }, position: appended };
    });
    await this.writer.settle(position);
    return result;
  }
}

export const progressHandlers = [StartAssessmentHandler, CompleteTestHandler];
