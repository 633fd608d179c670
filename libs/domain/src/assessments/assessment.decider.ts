import type { AssessmentEvent } from '../events.js';
import type { CommandMetadata, Decider } from '../shared/decider.js';
import { UnknownCommand, invalidState, notFound, validationFailed } from '../shared/errors.js';
import type { TestRef } from '../shared/types.js';
import { type AssessmentState, type ExistingAssessment, evolveAssessment, initialAssessmentState } from './assessment.state.js';
import { type CreateAssessmentCommand, MAX_TESTS_PER_ASSESSMENT, decideCreateAssessment } from './create-assessment.js';
import { type InviteCandidatesCommand, decideInvitations } from './invite-candidates.js';

export type AssessmentCommand =
  | (CreateAssessmentCommand & { lookupTest: (slug: string) => TestRef | undefined })
  | InviteCandidatesCommand
  | { type: 'AddTestToAssessment'; workspaceId?: string; test: TestRef; metadata: CommandMetadata }
  | { type: 'CloseAssessment'; workspaceId?: string; metadata: CommandMetadata };

/** An assessment of another workspace is answered exactly like one that does not exist. */
export const requireAssessment = (state: AssessmentState, workspaceId?: string): ExistingAssessment => {
  if (state.status === 'none' || (workspaceId !== undefined && state.workspaceId !== workspaceId)) throw notFound('assessment');
  return state;
};

export const decideAssessment = (command: AssessmentCommand, state: AssessmentState): AssessmentEvent[] => {
  switch (command.type) {
    case 'CreateAssessment':
      if (state.status !== 'none') throw invalidState('assessment exists');
      return decideCreateAssessment(command, command.lookupTest);
    case 'InviteCandidates':
      return decideInvitations(command, requireAssessment(state, command.workspaceId)).events;
    case 'AddTestToAssessment': {
      const assessment = requireAssessment(state, command.workspaceId);
      if (assessment.status === 'archived') throw invalidState('the assessment is closed');
      if (assessment.tests.some((test) => test.slug === command.test.slug)) throw validationFailed('the test is already on the assessment');
      if (assessment.tests.length >= MAX_TESTS_PER_ASSESSMENT) throw validationFailed(`an assessment has at most ${MAX_TESTS_PER_ASSESSMENT} tests`);
      return [{ type: 'AssessmentTestAdded', data: { assessmentId: assessment.id, workspaceId: assessment.workspaceId, test: command.test, addedAt: command.metadata.now } }];
    }
    case 'CloseAssessment': {
      const assessment = requireAssessment(state, command.workspaceId);
      if (assessment.status === 'archived') return [];
      return [{ type: 'AssessmentClosed', data: { assessmentId: assessment.id, workspaceId: assessment.workspaceId, closedAt: command.metadata.now } }];
    }
    default: {
      const unknown: never = command;
      throw new UnknownCommand(unknown);
    }
  }
};

export const assessmentDecider: Decider<AssessmentCommand, AssessmentState, AssessmentEvent> = {
  initialState: initialAssessmentState,
  evolve: evolveAssessment,
  decide: decideAssessment,
};
