export * from './shared/document-store.port.js';
export * from './shared/result-view.js';
export * from './shared/served-json.js';

export * from './document-store/postgres-document.store.js';
export * from './document-store/mongo-document.store.js';
export * from './document-store/replica-document.store.js';

export * from './projection-runner/projection-runner.js';
export * from './rebuild/rebuild-read-models.js';
export * from './all-projections.js';
export * from './read-models.wiring.js';

export * from './workspaces/workspaces.projection.js';
export * from './workspaces/workspaces.queries.js';
export * from './api-keys/api-keys.projection.js';
export * from './api-keys/api-keys.queries.js';
export * from './api-keys/api-key-cache.js';
export * from './assessments/assessments.projection.js';
export * from './assessments/assessments.queries.js';
export * from './assessments/assessment.view.js';
export * from './candidates/candidates.projection.js';
export * from './candidates/candidates.queries.js';
export * from './candidates/candidate.view.js';
export * from './results/results.queries.js';
export * from './completions/completions.queries.js';
export * from './completions/completion.view.js';
export * from './billing/billing.projection.js';
export * from './billing/billing.queries.js';
export * from './invitations/invitations.projection.js';
export * from './invitations/invitations.queries.js';
export * from './assessment-invitations/assessment-invitations.queries.js';
export * from './events/events.projection.js';
export * from './events/events.queries.js';
export * from './as-of/document-as-of.js';
