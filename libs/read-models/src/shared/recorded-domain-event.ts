import type { DomainEvent, DomainEventType } from '#domain';
import type { RecordedEvent } from '#event-store';

type ToRecorded<E> = E extends { type: infer T extends string; data: infer D extends object } ? RecordedEvent<T, D> : never;

/** A recorded event whose `type` narrows its `data`, one member per domain event. */
export type RecordedDomainEvent = ToRecorded<DomainEvent>;

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

export const isDomainEventType = (type: string): type is DomainEventType => Object.hasOwn(DOMAIN_EVENT_TYPES, type);

/** Written to the log by something other than a decider: the simulated clock's moves. */
const OTHER_EVENT_TYPES = new Set(['SimulatedClockAdvanced']);

/**
 * Every type this version writes to the log. Any other was written by a newer version (a rolling
 * deploy): the followers skip and count it, and decisions are not taken on a stream holding one.
 */
export const isKnownEventType = (type: string): boolean => isDomainEventType(type) || OTHER_EVENT_TYPES.has(type);

/**
 * The store hands over untyped events; the type name is the only thing checked; the data is
 * trusted because only the domain appends to the store.
 */
export const asDomainEvent = (event: RecordedEvent): RecordedDomainEvent | null =>
  isDomainEventType(event.type) ? (event as RecordedDomainEvent) : null;
