/** A broken invariant, with what shows it. */
export interface Finding {
  invariant: string;
  detail: string;
}

const SHOWN_PER_INVARIANT = 8;

/** The findings of one workload: each check adds what it saw; the run fails when any is there. */
export class Findings {
  readonly items: Finding[] = [];
  /** Counts reported but not failing (duplicate webhook deliveries, replays made again after an erasure). */
  readonly notes: string[] = [];

  add(invariant: string, detail: string): void {
    this.items.push({ invariant, detail });
  }

  /** Adds a finding unless `holds`; returns `holds`. */
  expect(holds: boolean, invariant: string, detail: () => string): boolean {
    if (!holds) this.add(invariant, detail());
    return holds;
  }

  note(text: string): void {
    this.notes.push(text);
  }

  /** Every invariant that broke, with its first few findings and how many there were. */
  report(): string {
    const byInvariant = new Map<string, string[]>();
    for (const { invariant, detail } of this.items) byInvariant.set(invariant, [...(byInvariant.get(invariant) ?? []), detail]);
    return [...byInvariant].map(([invariant, details]) => [
      `- ${invariant} (${details.length})`,
      ...details.slice(0, SHOWN_PER_INVARIANT).map((detail) => `    ${detail}`),
      ...(details.length > SHOWN_PER_INVARIANT ? [`    ... and ${details.length - SHOWN_PER_INVARIANT} more`] : []),
    ].join('\n')).join('\n');
  }
}
