import { isIP } from 'node:net';
import { isPublicAddress } from '../shared/network.js';

/** The addresses a host name resolves to now; none when it does not resolve (the I/O is the caller's). */
export type ResolveHost = (host: string) => Promise<readonly { address: string }[]>;

/**
 * The save-time half of the webhook address check: a non-public address the URL's host resolves
 * to now, or null. A name that does not resolve is not refused: DNS may be down or not set up yet,
 * and every delivery resolves it again and refuses it then.
 */
export const nonPublicAddressOf = async (rawUrl: string, resolve: ResolveHost): Promise<string | null> => {
  let host: string;
  try {
    host = new URL(rawUrl).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return null;
  }
  if (isIP(host)) return isPublicAddress(host) ? null : host;
  const addresses = await resolve(host);
  return addresses.find(({ address }) => !isPublicAddress(address))?.address ?? null;
};
