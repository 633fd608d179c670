import { lookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { isPublicAddress } from '#domain';

export interface DeliveryTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

export class AddressRefusedError extends Error {
  constructor(readonly url: string, reason: string) {
    super(`webhook address refused: ${reason}`);
    this.name = 'AddressRefusedError';
  }
}

/**
 * Checks a webhook address at delivery time. Every address the name resolves to must be public: a name
 * can point at a private address long after it was saved (DNS rebinding), and refusing when any one of
 * them is private leaves nothing to chance about which one the connection would use.
 */
export const resolveDeliveryTarget = async (rawUrl: string, allowInsecure: boolean): Promise<DeliveryTarget> => {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new AddressRefusedError(rawUrl, 'not a URL');
  }
  if (url.username || url.password) throw new AddressRefusedError(rawUrl, 'credentials in the URL');
  const allowedProtocol = url.protocol === 'https:' || (allowInsecure && url.protocol === 'http:');
  if (!allowedProtocol) throw new AddressRefusedError(rawUrl, `protocol ${url.protocol} is not allowed`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true, verbatim: true }).catch(() => []);
  const first = addresses[0];
  if (!first) throw new AddressRefusedError(rawUrl, `${host} does not resolve`);
  if (!allowInsecure) {
    const refused = addresses.find(({ address }) => !isPublicAddress(address));
    if (refused) throw new AddressRefusedError(rawUrl, `${host} resolves to the non-public address ${refused.address}`);
  }
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
};

/**
 * A `lookup` for http(s).request that always answers the address that was checked, so the connection
 * goes where the check looked, whatever DNS answers a second time. The TLS name stays the URL's host.
 */
export const pinnedLookup = (target: Pick<DeliveryTarget, 'address' | 'family'>): LookupFunction =>
  (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
