import { apiKeysProjection } from './api-keys/api-keys.projection.js';
import { assessmentInvitationsProjection } from './assessment-invitations/assessment-invitations.projection.js';
import { assessmentsProjection } from './assessments/assessments.projection.js';
import { billingProjection } from './billing/billing.projection.js';
import { candidatesProjection } from './candidates/candidates.projection.js';
import { eventsProjection } from './events/events.projection.js';
import { completionsProjection } from './completions/completions.projection.js';
import { invitationsProjection } from './invitations/invitations.projection.js';
import { resultsProjection } from './results/results.projection.js';
import type { AnyProjection } from './shared/projection.js';
import { workspacesProjection } from './workspaces/workspaces.projection.js';

/** Every read model of the service; the runner, the rebuild and `prepare` take this list. */
export const allProjections: readonly AnyProjection[] = [
  workspacesProjection,
  apiKeysProjection,
  assessmentsProjection,
  candidatesProjection,
  resultsProjection,
  completionsProjection,
  billingProjection,
  invitationsProjection,
  assessmentInvitationsProjection,
  eventsProjection,
];

export const allProjectionNames: readonly string[] = allProjections.map(({ name }) => name);
