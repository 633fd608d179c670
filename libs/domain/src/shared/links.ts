/**
 * The links the service hands to people (API 2.3, 2.4, 2.5) and reads back at registration: both
 * directions live here so a link's shape is decided once. `appUrl` has no trailing slash.
 */
export const invitationUrl = (appUrl: string, assessmentId: string, token: string): string => `${appUrl}/invitations/${assessmentId}/${token}`;
export const inviteUrl = (appUrl: string, assessmentId: string, token: string): string => `${appUrl}/join/${assessmentId}/${token}`;
export const reportUrl = (appUrl: string, candidateId: string): string => `${appUrl}/candidates/${candidateId}/report`;

export type LinkKind = 'invitation' | 'invite';

const SEGMENT: Record<LinkKind, string> = { invitation: 'invitations', invite: 'join' };

/**
 * The assessment and token of a personal invitation link or a public sign-up link; null when the
 * value is a URL but not one of ours; undefined when it is not a URL at all. The host is not
 * compared: links keep working when APP_URL changes.
 */
export const parseLink = (value: string, kind: LinkKind): { assessmentId: string; token: string } | null | undefined => {
  let path: string[];
  try {
    path = new URL(value).pathname.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return undefined;
  }
  const [assessmentId, token] = path.slice(-2);
  return path.length >= 3 && path.at(-3) === SEGMENT[kind] && assessmentId && token ? { assessmentId, token } : null;
};
