export * from './shared/tokens.js';
export * from './shared/ports.js';
export * from './shared/event-writer.js';
export { warmUpFolds } from './shared/folds.js';
export * from './workspaces/workspace.commands.js';
export * from './workspaces/retired-api-keys.js';
export * from './workspaces/workspace.handlers.js';
export * from './assessments/assessment.handlers.js';
export * from './invitations/invite-candidates.handler.js';
export * from './registrations/register-candidate.handler.js';
export * from './progress/progress.handlers.js';
export * from './results/unlock-result.handler.js';
export * from './candidates/delete-candidate.handler.js';

import { assessmentHandlers } from './assessments/assessment.handlers.js';
import { DeleteCandidateHandler } from './candidates/delete-candidate.handler.js';
import { InviteCandidatesHandler } from './invitations/invite-candidates.handler.js';
import { progressHandlers } from './progress/progress.handlers.js';
import { RegisterCandidateHandler } from './registrations/register-candidate.handler.js';
import { UnlockResultHandler } from './results/unlock-result.handler.js';
import { workspaceHandlers } from './workspaces/workspace.handlers.js';

export const commandHandlers = [
  ...workspaceHandlers, ...assessmentHandlers, InviteCandidatesHandler, RegisterCandidateHandler, ...progressHandlers, UnlockResultHandler, DeleteCandidateHandler,
];
