/**
 * The links the service hands to people (API 2.3, 2.4, 2.5) and reads back at registration: both
 * directions live here so a link's shape is decided once. `appUrl` has no trailing slash.
 */
export const invitationUrl = (appUrl: string, assessmentId: string, token: string): string => `${appUrl}/invitations/${assessmentId}/${token}`;
export const inviteUrl = (appUrl: string, assessmentId: string, token: string): string => `${appUrl}/join/${assessmentId}/${token}`;
export const reportUrl = (appUrl: string, candidateId: string): string => `${appUrl}/candidates/${candidateId}/report`;

export type LinkKind = 'invitation' | 'invite';

const SEGMENT: Record<LinkKind, string> = { invitation: 'invitations', invite: 'join' };

const decodeSegment = (segment: string): string | null => {
  try {
    const decoded = decodeURIComponent(segment);
    // Ids and tokens are printable: a control character (U+0000 above all) names nothing we issued.
    return /[\u0000-\u001f\u007f]/.test(decoded) || !decoded.isWellFormed() ? null : decoded;
  } catch {
    return null;
  }
};

/**
 * The assessment and token of an invitation or sign-up link; null for a URL not of ours (another
 * host than APP_URL's, another path, segments that are not ids); undefined for no URL at all.
 */
export const parseLink = (value: string, kind: LinkKind, appUrl: string): { assessmentId: string; token: string } | null | undefined => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  const base = new URL(appUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  if (url.origin !== base.origin || !url.pathname.startsWith(`${basePath}/`)) return null;
  const path = url.pathname.slice(basePath.length).split('/').filter(Boolean).map(decodeSegment);
  const [segment, assessmentId, token] = path;
  return path.length === 3 && segment === SEGMENT[kind] && assessmentId && token ? { assessmentId, token } : null;
};
