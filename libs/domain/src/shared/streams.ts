import { createHash } from 'node:crypto';

export const workspaceStream = (workspaceId: string): string => `workspace-${workspaceId}`;
export const assessmentStream = (assessmentId: string): string => `assessment-${assessmentId}`;
export const candidateStream = (candidateId: string): string => `candidate-${candidateId}`;

/**
 * One person per workspace and address, whatever the mode: the stream that claims an address is the
 * consistency boundary for "one candidate per (workspace, mode, e-mail)" and "never both live and test".
 * The address is hashed so that no e-mail address appears in a stream id.
 */
export const candidateEmailStream = (workspaceId: string, email: string): string =>
  `candidate-email-${workspaceId}-${createHash('sha256').update(email).digest('hex').slice(0, 40)}`;
