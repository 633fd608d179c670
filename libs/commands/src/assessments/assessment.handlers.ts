import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  type AssessmentCommand, CATALOGUE, type TestRef, assessmentStream, decideAssessment, requireAssessment, validationFailed, workspaceStream,
} from '#domain';
import { ids } from '#platform';
import { EventWriter, type StreamReader } from '../shared/event-writer.js';
import { assessmentFold, workspaceFold } from '../shared/folds.js';
import type { RequestContext } from '../shared/ports.js';

/** What POST /v1/assessments asks for, as the edge's DTO typed it. */
export interface AssessmentDraft {
  name: string;
  tests: readonly string[];
  deadline?: string | null;
}

export class CreateAssessment extends Command<{ assessmentId: string }> {
  constructor(readonly workspaceId: string, readonly draft: AssessmentDraft, readonly context: RequestContext) { super(); }
}
/** What the internal application's DTO typed; whether the slug names a custom test of the workspace is decided here. */
export interface TestToAdd { slug: string }

export class AddTestToAssessment extends Command<{ assessmentId: string }> {
  constructor(readonly assessmentId: string, readonly test: TestToAdd, readonly context: RequestContext) { super(); }
}
export class CloseAssessment extends Command<{ assessmentId: string }> {
  constructor(readonly assessmentId: string, readonly context: RequestContext) { super(); }
}

const catalogue = new Map<string, TestRef>(CATALOGUE.map((test) => [test.slug, { slug: test.slug, name: test.name, type: 'library' }]));

type AssessmentCommandBody = AssessmentCommand extends infer C ? (C extends AssessmentCommand ? Omit<C, 'metadata'> : never) : never;

/** Decides one assessment command (`command` may read other streams first) and appends its events. */
const runAssessmentCommand = async (
  writer: EventWriter, assessmentId: string, command: AssessmentCommandBody | ((streams: StreamReader) => Promise<AssessmentCommandBody>), context: RequestContext,
): Promise<void> => {
  const streamId = assessmentStream(assessmentId);
  await writer.handle(streamId, context, async (streams, now) => {
    const assessment = await streams.load(streamId, assessmentFold);
    const body = typeof command === 'function' ? await command(streams) : command;
    const events = decideAssessment({ ...body, metadata: { now } } as AssessmentCommand, assessment);
    return { appends: [{ streamId, events }], answer: undefined };
  });
};

@CommandHandler(CreateAssessment)
export class CreateAssessmentHandler implements ICommandHandler<CreateAssessment> {
  constructor(private readonly writer: EventWriter) {}
  async execute({ workspaceId, draft, context }: CreateAssessment): Promise<{ assessmentId: string }> {
    const assessmentId = ids.assessment();
    const command = {
      type: 'CreateAssessment' as const, assessmentId, workspaceId, inviteToken: ids.token(),
      name: draft.name, tests: draft.tests, deadline: draft.deadline ?? null, lookupTest: (slug: string) => catalogue.get(slug),
    };
    await runAssessmentCommand(this.writer, assessmentId, command, context);
    return { assessmentId };
  }
}

@CommandHandler(AddTestToAssessment)
export class AddTestToAssessmentHandler implements ICommandHandler<AddTestToAssessment> {
  constructor(private readonly writer: EventWriter) {}
  async execute({ assessmentId, test, context }: AddTestToAssessment): Promise<{ assessmentId: string }> {
    await runAssessmentCommand(this.writer, assessmentId, async (streams) => {
      const assessment = requireAssessment(await streams.load(assessmentStream(assessmentId), assessmentFold));
      const workspace = await streams.load(workspaceStream(assessment.workspaceId), workspaceFold);
      const custom = workspace.status === 'active' ? workspace.customTests.get(test.slug) : undefined;
      if (!custom) throw validationFailed('slug must be the slug of a custom test of the workspace');
      return { type: 'AddTestToAssessment', workspaceId: assessment.workspaceId, test: { slug: custom.slug, name: custom.name, type: 'custom' } };
    }, context);
    return { assessmentId };
  }
}

@CommandHandler(CloseAssessment)
export class CloseAssessmentHandler implements ICommandHandler<CloseAssessment> {
  constructor(private readonly writer: EventWriter) {}
  async execute({ assessmentId, context }: CloseAssessment): Promise<{ assessmentId: string }> {
    await runAssessmentCommand(this.writer, assessmentId, { type: 'CloseAssessment' }, context);
    return { assessmentId };
  }
}

export const assessmentHandlers = [CreateAssessmentHandler, AddTestToAssessmentHandler, CloseAssessmentHandler];
