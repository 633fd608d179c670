import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { Inject } from '@nestjs/common';
import {
  type CandidateEvent, type CandidateState, candidateStream, decideUnlock, evolveCandidate, evolveWorkspace, initialCandidateState, initialWorkspaceState,
  notFound, requireCandidate, workspaceStream,
} from '#domain';
import { EventWriter } from '../shared/event-writer.js';
import type { RequestContext, WriteLookups } from '../shared/ports.js';
import { LOOKUPS } from '../shared/tokens.js';

export class UnlockResult extends Command<{ resultId: string; unlockedAt: string; charged: boolean }> {
  constructor(readonly resultId: string, readonly context: RequestContext) { super(); }
}

/** Unlocking spans the candidate (the result) and the workspace (billing), appended atomically. */
@CommandHandler(UnlockResult)
export class UnlockResultHandler implements ICommandHandler<UnlockResult> {
  constructor(private readonly writer: EventWriter, @Inject(LOOKUPS) private readonly lookups: WriteLookups) {}

  async execute({ resultId, context }: UnlockResult) {
    const candidateId = await this.lookups.candidateOfResult(resultId);
    if (!candidateId) throw notFound('result');
    const streamId = candidateStream(candidateId);
    const decision = await this.writer.decide(streamId, async (batch) => {
      const candidateLoaded = await batch.load<CandidateState, CandidateEvent>(streamId, initialCandidateState, evolveCandidate);
      const candidate = requireCandidate(candidateLoaded.state);
      const workspaceLoaded = await batch.load(workspaceStream(candidate.workspaceId), initialWorkspaceState, evolveWorkspace);
      if (workspaceLoaded.state.status !== 'active') throw notFound('workspace');
      const now = await batch.now();
      const unlock = decideUnlock(candidate, workspaceLoaded.state, resultId, now);
      batch.append([
        { streamId, expectedRevision: candidateLoaded.revision, events: unlock.candidateEvents },
        { streamId: workspaceStream(candidate.workspaceId), expectedRevision: workspaceLoaded.revision, events: unlock.workspaceEvents },
      ], context, now);
      return unlock;
    });
    return { resultId, unlockedAt: decision.unlockedAt, charged: decision.charged };
  }
}
