import { isIP } from 'node:net';

/**
 * Whether an IP address may receive webhooks: loopback, private, link-local, carrier-grade NAT,
 * multicast and reserved ranges are refused (no SSRF into the service's own network).
 */
export const isPublicAddress = (address: string): boolean => {
  const version = isIP(address);
  if (version === 4) return isPublicIPv4(address);
  if (version === 6) return isPublicIPv6(address.toLowerCase());
  return false;
};

const isPublicIPv4 = (address: string): boolean => {
  const [a = 0, b = 0, c = 0] = address.split('.').map(Number);
  if (a === 0 || a === 10 || a === 127) return false;
  if (a === 100 && b >= 64 && b <= 127) return false;
  if (a === 169 && b === 254) return false;
  if (a === 172 && b >= 16 && b <= 31) return false;
  if (a === 192 && b === 168) return false;
  // Only 192.0.0.0/24 (IETF protocol assignments) and 192.0.2.0/24 (documentation) are special: the
  // rest of 192.0.0.0/16 is ordinary public address space.
  if (a === 192 && b === 0 && (c === 0 || c === 2)) return false;
  if (a === 198 && (b === 18 || b === 19)) return false;
  if ((a === 198 && b === 51 && c === 100) || (a === 203 && b === 0 && c === 113)) return false; // documentation
  return a < 224;
};

/** The eight 16-bit groups of a valid IPv6 address (dotted IPv4 tails and zone ids included). */
const ipv6Groups = (address: string): number[] => {
  let text = address.replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string): number[] => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const [left, right] = [parse(head), parse(tail ?? '')];
  return tail === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
};

const embeddedIPv4 = (groups: number[], at = 6): string =>
  [groups[at] ?? 0, groups[at + 1] ?? 0].flatMap((group) => [group >> 8, group & 0xff]).join('.');

const isPublicIPv6 = (address: string): boolean => {
  const groups = ipv6Groups(address);
  const [first = 0, second = 0] = groups;
  const zeroUpTo = (count: number): boolean => groups.slice(0, count).every((group) => group === 0);
  // Forms that carry an IPv4 address reach it, whichever way the URL parser wrote them (hex groups):
  // IPv4-mapped ::ffff:a.b.c.d, IPv4-translated ::ffff:0:a.b.c.d, IPv4-compatible ::a.b.c.d (also ::
  // and ::1), NAT64 64:ff9b::a.b.c.d. 6to4 2002:AABB:CCDD:: carries it in groups 1-2.
  const mapped = zeroUpTo(5) && groups[5] === 0xffff;
  const translated = zeroUpTo(4) && groups[4] === 0xffff && groups[5] === 0;
  const nat64 = first === 0x64 && second === 0xff9b && groups.slice(2, 6).every((group) => group === 0);
  if (mapped || translated || zeroUpTo(6) || nat64) return isPublicIPv4(embeddedIPv4(groups));
  if (first === 0x2002) return isPublicIPv4(embeddedIPv4(groups, 1));
  // Teredo 2001:0::/32 hides the client's IPv4 (obfuscated): refused outright, as are NAT64's local-use
  // prefix 64:ff9b:1::/48, documentation 2001:db8::/32, discard-only 100::/64 and ORCHIDs 2001:10::/28, 2001:20::/28.
  if (first === 0x2001 && (second === 0 || second === 0xdb8 || (second & 0xfff0) === 0x10 || (second & 0xfff0) === 0x20)) return false;
  if (first === 0x64 && second === 0xff9b && groups[2] === 1) return false;
  if (first === 0x100 && groups.slice(1, 4).every((group) => group === 0)) return false;
  if ((first & 0xfe00) === 0xfc00) return false; // unique local fc00::/7
  if ((first & 0xffc0) === 0xfe80) return false; // link-local fe80::/10
  if ((first & 0xffc0) === 0xfec0) return false; // site-local fec0::/10 (deprecated)
  if ((first & 0xff00) === 0xff00) return false; // multicast
  return true;
};

/** Host names that always mean this machine or its private network. */
export const isPrivateHostName = (host: string): boolean => {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost') || name.endsWith('.local') || name.endsWith('.internal') || !name.includes('.');
};

/**
 * The save-time check of a webhook address. Names are resolved again at delivery time
 * (a name can point at a private address later: DNS rebinding), this only refuses what is
 * refused whatever DNS says.
 */
export const webhookUrlProblem = (value: unknown, allowInsecure: boolean): string | null => {
  if (typeof value !== 'string' || value.length > 2048) return 'url must be an absolute https:// URL';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'url must be an absolute https:// URL';
  }
  if (url.username || url.password) return 'url must not carry credentials';
  if (allowInsecure) return url.protocol === 'https:' || url.protocol === 'http:' ? null : 'url must be an http(s):// URL';
  if (url.protocol !== 'https:') return 'url must be an absolute https:// URL';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) ? !isPublicAddress(host) : isPrivateHostName(host)) return 'url must point at a public host';
  return null;
};
