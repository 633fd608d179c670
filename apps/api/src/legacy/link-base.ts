/**
 * Where the original endpoint's `next`/`previous` links point: the Host header (the client's to
 * write) only selects among the configured addresses (API_URL), the first for any other Host.
 */
export class LinkBase {
  /** Configured address by its host (lower case, default port dropped, as `URL.host` spells it). */
  private readonly byHost = new Map<string, string>();

  constructor(private readonly apiUrls: readonly string[]) {
    if (apiUrls.length === 0) throw new Error('LinkBase needs at least one configured address');
    for (const url of apiUrls) if (!this.byHost.has(new URL(url).host)) this.byHost.set(new URL(url).host, url);
  }

  /** The configured address for a request's Host header (the first configured one when it names none). */
  for(host: string | undefined): string {
    return (host === undefined ? undefined : this.byHost.get(hostOf(host))) ?? this.apiUrls[0]!;
  }
}

/** A Host header as `URL.host` spells it, or '' when it is not a host at all. */
const hostOf = (header: string): string => {
  try {
    const parsed = new URL(`http://${header}`);
    return parsed.pathname === '/' && parsed.username === '' && !parsed.search && !parsed.hash ? parsed.host : '';
  } catch {
    return '';
  }
};
