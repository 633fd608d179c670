import type { DomainEventType } from '../events.js';

/**
 * The schema version of each event type as this code writes it (1 where it never changed). Every
 * event records the version it was written with in `metadata.schemaVersion`, omitted for version 1
 * (so events of unchanged types keep the metadata they always had, and every event written before
 * versions existed reads as version 1); an event is
 * never rewritten: the hash chain covers it as stored. Reading brings an older shape up to today's
 * one step at a time, so deciders, projections, the dispatcher and the audit views only ever see
 * the current shape (docs/architecture.md, "Event versions").
 */
export const CURRENT_SCHEMA_VERSIONS: Readonly<Partial<Record<DomainEventType, number>>> = {
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
