import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { EventStore, RecordedEvent } from '../event-store.port.js';
import type { StoredLink } from './log-links.js';
import type { LogSeal } from './log-seal.js';
import type { SealStore } from './seal-store.js';

/** What verify and export read: the seals, then the events in global order. Same shape from a store, a file or the service. */
export interface LogSource {
  publicKey: string | null;
  head(): Promise<bigint | null>;
  /**
   * The newest link when reading starts (null: every link the source has, as in a file). Every link
   * up to it was made over an event committed before it: one of those no longer in the log was removed.
   */
  linkedHead(): Promise<bigint | null>;
  seals(): Promise<LogSeal[]>;
  batches(): AsyncIterable<RecordedEvent[]>;
  /** The stored links after `after` up to `upTo` (null: to the end), for the events of batches read so far. */
  links(after: bigint | null, upTo: bigint | null): Promise<StoredLink[]>;
}

export const storeSource = (eventStore: EventStore, seals: SealStore, publicKey: string): LogSource => ({
  publicKey,
  head: () => eventStore.headPosition(),
  linkedHead: async () => (await seals.links.latest())?.position ?? null,
  seals: () => seals.list(),
  links: (after, upTo) => seals.links.range(after, upTo),
  async *batches() {
    let after: bigint | null = null;
    for (;;) {
      const batch = await eventStore.readAll({ after, maxCount: 2000 });
      if (batch.length === 0) return;
      yield batch;
      after = batch.at(-1)?.position ?? after;
    }
  },
});

export type ExportLine =
  | { kind: 'header'; format: string; exportedAt: string; publicKey: string | null; head: string | null }
  | ({ kind: 'seal' } & LogSeal)
  | ({ kind: 'event' } & Omit<RecordedEvent, 'position'> & { position: string; link?: string })
  /** A stored link whose event is not in the log: exported as found, for verify to name. */
  | { kind: 'link'; position: string; link: string };

/** Version 1 had no links; its files still read (their events unlinked). */
export const EXPORT_FORMAT = 'hiring-test-audit-export/2';
const READABLE_FORMATS = new Set(['hiring-test-audit-export/1', EXPORT_FORMAT]);

export const eventLine = (event: RecordedEvent, link?: string): string =>
  JSON.stringify({ kind: 'event', ...event, position: event.position.toString(), ...(link === undefined ? {} : { link }) });
const linkLine = (link: StoredLink): string => JSON.stringify({ kind: 'link', position: link.position.toString(), link: link.link });

/** Reads an export (a file, or the service's export answer) as a source; seals precede events in it. */
export const linesSource = async (lines: AsyncIterable<string>): Promise<LogSource> => {
  const iterator = lines[Symbol.asyncIterator]();
  const first = await iterator.next();
  const header = first.done ? null : (JSON.parse(first.value) as ExportLine);
  if (header?.kind !== 'header' || !READABLE_FORMATS.has(header.format)) throw new Error(`not an audit export (expected a ${EXPORT_FORMAT} header line)`);
  const seals: LogSeal[] = [];
  // Links read with the events (on their lines, or alone for a removed event), handed out by links().
  let links: StoredLink[] = [];
  const keepLink = (line: Extract<ExportLine, { kind: 'event' | 'link' }>): void => {
    if (line.link !== undefined) links.push({ position: BigInt(line.position), link: line.link });
  };
  let pending: RecordedEvent | null = null;
  for (;;) {
    const next = await iterator.next();
    if (next.done || next.value.trim() === '') break;
    const line = JSON.parse(next.value) as ExportLine;
    if (line.kind === 'seal') {
      const { kind: _kind, ...seal } = line;
      seals.push(seal);
    } else if (line.kind === 'link') {
      keepLink(line);
    } else if (line.kind === 'event') {
      keepLink(line);
      pending = toEvent(line);
      break;
    }
  }
  return {
    publicKey: header.publicKey,
    head: async () => (header.head === null ? null : BigInt(header.head)),
    linkedHead: async () => null,
    seals: async () => seals,
    links: async (after, upTo) => {
      const wanted = links.filter((link) => (after === null || link.position > after) && (upTo === null || link.position <= upTo));
      links = links.filter((link) => upTo !== null && link.position > upTo);
      return wanted;
    },
    async *batches() {
      let batch: RecordedEvent[] = pending === null ? [] : [pending];
      for (;;) {
        const next = await iterator.next();
        if (next.done) break;
        if (next.value.trim() === '') continue;
        const line = JSON.parse(next.value) as ExportLine;
        if (line.kind === 'link') {
          keepLink(line);
          continue;
        }
        if (line.kind !== 'event') throw new Error(`a ${line.kind} line after the events`);
        keepLink(line);
        batch.push(toEvent(line));
        if (batch.length === 2000) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
    },
  };
};

const toEvent = (line: Extract<ExportLine, { kind: 'event' }>): RecordedEvent => {
  const { kind: _kind, position, link: _link, ...event } = line;
  return { ...event, position: BigInt(position) };
};

/**
 * Every batch of the source's events with the stored links up to its last event, in order; at the
 * end, the links up to the source's linked head that no event answered (removed events).
 */
export async function* linkedBatches(source: LogSource): AsyncIterable<{ events: RecordedEvent[]; links: StoredLink[] }> {
  const linkedHead = await source.linkedHead();
  let after: bigint | null = null;
  for await (const events of source.batches()) {
    const last: bigint | null = events.at(-1)?.position ?? after;
    yield { events, links: await source.links(after, last) };
    after = last;
  }
  if (linkedHead === null || after === null || linkedHead > after) {
    const rest = await source.links(after, linkedHead);
    if (rest.length > 0) yield { events: [], links: rest };
  }
}

export const fileLines = (path: string): AsyncIterable<string> => createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });

/** The export: a header, the seals, then every event in global order, one JSON document a line. */
export async function* exportLines(source: LogSource, onProgress?: (done: number) => void): AsyncIterable<string> {
  const head = await source.head();
  yield `${JSON.stringify({ kind: 'header', format: EXPORT_FORMAT, exportedAt: new Date().toISOString(), publicKey: source.publicKey, head: head?.toString() ?? null })}\n`;
  for (const seal of await source.seals()) yield `${JSON.stringify({ kind: 'seal', ...seal })}\n`;
  let done = 0;
  for await (const { events, links } of linkedBatches(source)) {
    const lines: string[] = [];
    let index = 0;
    for (const event of events) {
      for (; links[index] !== undefined && (links[index]?.position ?? 0n) < event.position; index += 1) lines.push(linkLine(links[index] as StoredLink));
      const own = links[index]?.position === event.position ? links[index]?.link : undefined;
      if (own !== undefined) index += 1;
      lines.push(eventLine(event, own));
    }
    for (; index < links.length; index += 1) lines.push(linkLine(links[index] as StoredLink));
    yield lines.map((line) => `${line}\n`).join('');
    done += events.length;
    onProgress?.(done);
  }
}
