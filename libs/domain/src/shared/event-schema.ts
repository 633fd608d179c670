import type { DomainEventType } from '../events.js';

/**
 * The schema version of each event type as this code writes it (1 where it never changed), recorded
 * in `metadata.schemaVersion`, omitted for 1 (so events written before versions existed read as 1).
 * An event is never rewritten (the hash chain covers it as stored): reading upcasts an older shape
 * step by step, so every reader only sees the current one (docs/architecture.md, "Event versions").
 */
const CURRENT_SCHEMA_VERSIONS: Readonly<Partial<Record<DomainEventType, number>>> = {
  SandboxPlacesUsed: 2,
};

type Data = Record<string, unknown>;

/** `UPCASTERS[type][n]` turns version n of the event's data into version n + 1. Pure, total, never removed. */
const UPCASTERS: Readonly<Partial<Record<DomainEventType, Readonly<Record<number, (data: Data) => Data>>>>> = {
  SandboxPlacesUsed: {
    // 1 -> 2: `count` became `places`, the product's word for what the allowance counts.
    1: (data) => {
      if (!('count' in data)) return data;
      const { count, ...rest } = data;
      return { ...rest, places: count };
    },
  },
};

export const schemaVersionOf = (type: string): number => CURRENT_SCHEMA_VERSIONS[type as DomainEventType] ?? 1;

/**
 * The data of an event of `type` written at `version`, in the current shape. The same object when
 * nothing changed (nearly every event): the check is a lookup. A version newer than this code
 * knows (written by a newer release during a rolling deploy) is returned as it is.
 */
export const upcastData = (type: string, data: Data, version: number): Data => {
  const current = CURRENT_SCHEMA_VERSIONS[type as DomainEventType];
  if (current === undefined || version >= current) return data;
  const steps = UPCASTERS[type as DomainEventType] ?? {};
  let shaped = data;
  for (let from = version; from < current; from += 1) {
    const step = steps[from];
    if (step === undefined) throw new Error(`no upcaster for ${type} version ${from}`);
    shaped = step(shaped);
  }
  return shaped;
};
