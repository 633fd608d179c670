/** A committed write, as the read side needs it to know what to wait for. */
export interface CommittedWrite {
  /** The inline projectors whose work committed with the events (AppendResult.inline). */
  inline: readonly string[];
  events: readonly { type: string; data: object }[];
}

/** What the write side needs from the read side: waiting for it, and two id lookups. */
export interface ReadSideWaiter {
  /**
   * True once every reader has processed the event at `position`. With `write`, a reader whose
   * work on it committed inline (or that has nothing to do for its events) answers at once.
   */
  waitForPosition(position: bigint, timeoutMs: number, write?: CommittedWrite): Promise<boolean>;
}

export interface WriteLookups {
  workspaceOfApiKey(apiKeyId: string): Promise<string | null>;
  candidateOfResult(resultId: string): Promise<string | null>;
  /** The ids of a workspace's assessments (a deletion reads each from the log). */
  assessmentsOfWorkspace(workspaceId: string): Promise<string[]>;
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
