/** GETs `/metrics` with the internal token and reads the Prometheus text it answers. */
export const scrape = async (baseUrl: string, token: string): Promise<MetricsText> => {
  const response = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  return new MetricsText(await response.text());
};

/** The samples of one scrape, looked up by name and (a subset of) labels. */
export class MetricsText {
  private readonly samples: { name: string; labels: Record<string, string>; value: number }[] = [];

  constructor(readonly text: string) {
    for (const line of text.split('\n')) {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) continue;
      const labels: Record<string, string> = {};
      for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key as string] = value as string;
      this.samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
    }
  }

  /** Families declared by `# TYPE` lines. */
  families(): Set<string> {
    return new Set([...this.text.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1] as string));
  }

  /** The samples of `name` whose labels include `labels`. */
  all(name: string, labels: Record<string, string> = {}): { labels: Record<string, string>; value: number }[] {
    return this.samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  }

  /** The sum of the matching samples' values (0 when none match). */
  sum(name: string, labels: Record<string, string> = {}): number {
    return this.all(name, labels).reduce((total, sample) => total + sample.value, 0);
  }
}

/** `GET path` without credentials: status and body, as an orchestrator's probe sees them. */
export const probe = async (url: string): Promise<{ status: number; body: unknown }> => {
  const response = await fetch(url);
  return { status: response.status, body: await response.json() };
};
