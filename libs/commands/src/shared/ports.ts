/** What the write side needs from the read side: waiting for it, and two id lookups. */
export interface ReadSideWaiter {
  /** True once every read model has processed the event at `position`. */
  waitForPosition(position: bigint, timeoutMs: number): Promise<boolean>;
}

export interface WriteLookups {
  workspaceOfApiKey(apiKeyId: string): Promise<string | null>;
  candidateOfResult(resultId: string): Promise<string | null>;
  /** Invitations to an address nobody has used yet, by assessment. */
  pendingInvitations(workspaceId: string, email: string): Promise<{ assessmentId: string; invitationId: string }[]>;
}

/** Who asked, for the metadata of every event (audit trail). */
export interface RequestContext {
  requestId: string;
  correlationId: string;
  causationId: string | null;
  /** API key id, `internal`, or `system`. */
  actor: string;
}

export const systemContext = (requestId: string): RequestContext => ({ requestId, correlationId: requestId, causationId: null, actor: 'system' });
