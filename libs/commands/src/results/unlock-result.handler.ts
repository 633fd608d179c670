import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { Inject } from '@nestjs/common';
import { candidateStream, decideUnlock, notFound, requireCandidate, workspaceStream } from '#domain';
import { EventWriter } from '../shared/event-writer.js';
import { candidateFold, workspaceFold } from '../shared/folds.js';
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
    const decision = await this.writer.handle(streamId, context, async (streams, now) => {
      const candidate = requireCandidate(await streams.load(streamId, candidateFold));
      const workspace = await streams.load(workspaceStream(candidate.workspaceId), workspaceFold);
      if (workspace.status !== 'active') throw notFound('workspace');
      const unlock = decideUnlock(candidate, workspace, resultId, now);
      return {
        appends: [{ streamId, events: unlock.candidateEvents }, { streamId: workspaceStream(candidate.workspaceId), events: unlock.workspaceEvents }],
        answer: unlock,
      };
    });
    return { resultId, unlockedAt: decision.unlockedAt, charged: decision.charged };
  }
}
