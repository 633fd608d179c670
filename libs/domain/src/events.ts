import type { CandidateRef, Mode, ResultScores, TestRef, WebhookEventName } from './shared/types.js';

/**
 * Every domain event. Events carry what their consumers need (names, e-mail, the test) so that
 * read models, webhooks and e-mails are pure functions of the log: nothing is looked up at delivery.
 * Times are ISO 8601 strings from the domain clock.
 */
type Event<T extends string, D extends object> = { type: T; data: D };

// ---- workspace-{id} --------------------------------------------------------------------------
export type WorkspaceCreated = Event<'WorkspaceCreated', { workspaceId: string; name: string; freeAllowance: number; createdAt: string }>;
export type WorkspaceVerified = Event<'WorkspaceVerified', { workspaceId: string; verifiedAt: string }>;
/** `secretHash` is sha256 of the secret (hex); the secret itself is never recorded. */
export type ApiKeyIssued = Event<'ApiKeyIssued', { workspaceId: string; apiKeyId: string; mode: Mode; key: string; secretHash: string; issuedAt: string }>;
export type ApiKeyRegenerated = Event<'ApiKeyRegenerated', { workspaceId: string; apiKeyId: string; mode: Mode; previousKey: string; key: string; secretHash: string; regeneratedAt: string }>;
/** `encryptedSecret` is the webhook signing secret sealed with the service key (AES-256-GCM). */
export type WebhookConfigured = Event<'WebhookConfigured', { workspaceId: string; url: string; events: WebhookEventName[]; encryptedSecret: string; configuredAt: string }>;
export type WebhookSecretRotated = Event<'WebhookSecretRotated', { workspaceId: string; encryptedSecret: string; previousEncryptedSecret: string; rotatedAt: string }>;
export type WebhookDisabled = Event<'WebhookDisabled', { workspaceId: string; url: string; reason: 'gone' | 'failing'; disabledAt: string }>;
export type CustomTestCreated = Event<'CustomTestCreated', { workspaceId: string; slug: string; name: string; minutes: number; questionCount: number; createdAt: string }>;
/** Sandbox places used by new invitations (rolling 30 days). Schema version 2: version 1 named `places` `count`. */
export type SandboxPlacesUsed = Event<'SandboxPlacesUsed', { workspaceId: string; assessmentId: string; places: number; usedAt: string }>;
/** Billing: the first unlock of a live candidate either uses the free allowance or charges them. */
export type FreeAllowanceUsed = Event<'FreeAllowanceUsed', { workspaceId: string; candidateId: string; resultId: string; usedAt: string }>;
export type CandidateCharged = Event<'CandidateCharged', { workspaceId: string; candidateId: string; resultId: string; chargedAt: string }>;

export type WorkspaceEvent =
  | WorkspaceCreated | WorkspaceVerified | ApiKeyIssued | ApiKeyRegenerated | WebhookConfigured
  | WebhookSecretRotated | WebhookDisabled | CustomTestCreated | SandboxPlacesUsed | FreeAllowanceUsed | CandidateCharged;

// ---- assessment-{id} -------------------------------------------------------------------------
export type AssessmentCreated = Event<'AssessmentCreated', { assessmentId: string; workspaceId: string; name: string; tests: TestRef[]; deadline: string | null; inviteToken: string; createdAt: string }>;
export type CandidateInvited = Event<'CandidateInvited', {
  assessmentId: string; workspaceId: string; assessmentName: string; deadline: string | null;
  invitationId: string; invitationToken: string; mode: Mode;
  email: string; firstName: string; surname: string; invitedAt: string;
}>;
export type AssessmentTestAdded = Event<'AssessmentTestAdded', { assessmentId: string; workspaceId: string; test: TestRef; addedAt: string }>;
export type AssessmentClosed = Event<'AssessmentClosed', { assessmentId: string; workspaceId: string; closedAt: string }>;
/** A registered candidate joins the assessment (recorded with CandidateRegistered, atomically). */
export type AssessmentCandidateAdded = Event<'AssessmentCandidateAdded', { assessmentId: string; workspaceId: string; candidateId: string; email: string; mode: Mode; invitationId: string | null; addedAt: string }>;
/** A deleted test candidate leaves the assessment; their invitation goes with them. */
export type AssessmentCandidateRemoved = Event<'AssessmentCandidateRemoved', { assessmentId: string; workspaceId: string; candidateId: string; email: string; mode: Mode; invitationId: string | null; removedAt: string }>;
/** A pending invitation taken back: its person (a test candidate) was deleted before using it. */
export type InvitationWithdrawn = Event<'InvitationWithdrawn', { assessmentId: string; workspaceId: string; email: string; invitationId: string; withdrawnAt: string }>;

export type AssessmentEvent =
  | AssessmentCreated | CandidateInvited | AssessmentTestAdded | AssessmentClosed | AssessmentCandidateAdded | AssessmentCandidateRemoved
  | InvitationWithdrawn;

// ---- candidate-{id} --------------------------------------------------------------------------
export type CandidateCreated = Event<'CandidateCreated', { candidateId: string; workspaceId: string; mode: Mode; email: string; firstName: string; surname: string; createdAt: string }>;
export type CandidateRegistered = Event<'CandidateRegistered', {
  candidateId: string; workspaceId: string; mode: Mode; assessmentId: string; assessmentName: string;
  tests: TestRef[]; invitationId: string | null; registeredAt: string;
}>;
export type AssessmentStarted = Event<'AssessmentStarted', { candidateId: string; workspaceId: string; mode: Mode; assessmentId: string; candidate: CandidateRef; assessmentName: string; startedAt: string }>;
export type TestCompleted = Event<'TestCompleted', {
  candidateId: string; workspaceId: string; mode: Mode; assessmentId: string; resultId: string;
  candidate: CandidateRef; assessmentName: string; test: TestRef; completedAt: string; scores: ResultScores;
}>;
export type AssessmentCompleted = Event<'AssessmentCompleted', { candidateId: string; workspaceId: string; mode: Mode; assessmentId: string; candidate: CandidateRef; assessmentName: string; completedAt: string }>;
export type ResultUnlocked = Event<'ResultUnlocked', { candidateId: string; workspaceId: string; mode: Mode; assessmentId: string; resultId: string; candidate: CandidateRef; assessmentName: string; unlockedAt: string; charged: boolean }>;
/** Only test candidates can be deleted; the ids let every read model drop what it holds of them. */
export type CandidateDeleted = Event<'CandidateDeleted', { candidateId: string; workspaceId: string; mode: Mode; email: string; assessmentIds: string[]; resultIds: string[]; deletedAt: string }>;

export type CandidateEvent =
  | CandidateCreated | CandidateRegistered | AssessmentStarted | TestCompleted | AssessmentCompleted | ResultUnlocked | CandidateDeleted;

// ---- candidate-email-{workspaceId}-{hash} ----------------------------------------------------
export type CandidateEmailClaimed = Event<'CandidateEmailClaimed', { workspaceId: string; email: string; candidateId: string; mode: Mode; claimedAt: string }>;
export type CandidateEmailReleased = Event<'CandidateEmailReleased', { workspaceId: string; email: string; candidateId: string; releasedAt: string }>;

export type CandidateEmailEvent = CandidateEmailClaimed | CandidateEmailReleased;

export type DomainEvent = WorkspaceEvent | AssessmentEvent | CandidateEvent | CandidateEmailEvent;
export type DomainEventType = DomainEvent['type'];

/**
 * Events that end their person (a deleted test candidate): the personal-data layer retires the key
 * with them, and erasure follows. Nothing about the same address may be sealed with them: a later decision is about a new person.
 */
export const PERSON_ENDING_EVENTS: readonly DomainEventType[] = ['CandidateDeleted'];
export type EventOfType<T extends DomainEventType> = Extract<DomainEvent, { type: T }>;
