import type { DomainEventType } from '../events.js';

// A record rather than a list so that adding an event type to the domain fails to compile here.
const DOMAIN_EVENT_TYPES: Record<DomainEventType, true> = {
  WorkspaceCreated: true, WorkspaceVerified: true, ApiKeyIssued: true, ApiKeyRegenerated: true,
  WebhookConfigured: true, WebhookSecretRotated: true, WebhookDisabled: true, CustomTestCreated: true,
  SandboxPlacesUsed: true, FreeAllowanceUsed: true, CandidateCharged: true,
  AssessmentCreated: true, CandidateInvited: true, AssessmentTestAdded: true, AssessmentClosed: true,
  AssessmentCandidateAdded: true, AssessmentCandidateRemoved: true, InvitationWithdrawn: true,
  CandidateCreated: true, CandidateRegistered: true, AssessmentStarted: true, TestCompleted: true,
  AssessmentCompleted: true, ResultUnlocked: true, CandidateDeleted: true,
  CandidateEmailClaimed: true, CandidateEmailReleased: true,
};

/** Written to the log by something other than a decider: the simulated clock's moves. */
const OTHER_EVENT_TYPES = new Set(['SimulatedClockAdvanced']);

export const isDomainEventType = (type: string): type is DomainEventType => Object.hasOwn(DOMAIN_EVENT_TYPES, type);

/**
 * Every type this version writes to the log. Any other was written by a newer version (a rolling
 * deploy): the followers of the log skip and count it, and no decision is taken on a stream holding
 * one (docs/architecture.md, "Event types this version does not know").
 */
export const isKnownEventType = (type: string): boolean => isDomainEventType(type) || OTHER_EVENT_TYPES.has(type);
