import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { EventStore, RecordedEvent } from '../event-store.port.js';
import type { LogSeal } from './log-seal.js';
import type { SealStore } from './seal-store.js';

/** What verify and export read: the seals, then the events in global order. Same shape from a store, a file or the service. */
export interface LogSource {
  publicKey: string | null;
  head(): Promise<bigint | null>;
  seals(): Promise<LogSeal[]>;
  batches(): AsyncIterable<RecordedEvent[]>;
}

export const storeSource = (eventStore: EventStore, seals: SealStore, publicKey: string): LogSource => ({
  publicKey,
  head: () => eventStore.headPosition(),
  seals: () => seals.list(),
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
  | ({ kind: 'event' } & Omit<RecordedEvent, 'position'> & { position: string });

export const EXPORT_FORMAT = 'hiring-test-audit-export/1';

export const eventLine = (event: RecordedEvent): string => JSON.stringify({ kind: 'event', ...event, position: event.position.toString() });

/** Reads an export (a file, or the service's export answer) as a source; seals precede events in it. */
export const linesSource = async (lines: AsyncIterable<string>): Promise<LogSource> => {
  const iterator = lines[Symbol.asyncIterator]();
  const first = await iterator.next();
  const header = first.done ? null : (JSON.parse(first.value) as ExportLine);
  if (header?.kind !== 'header' || header.format !== EXPORT_FORMAT) throw new Error(`not an audit export (expected a ${EXPORT_FORMAT} header line)`);
  const seals: LogSeal[] = [];
  let pending: RecordedEvent | null = null;
  for (;;) {
    const next = await iterator.next();
    if (next.done || next.value.trim() === '') break;
    const line = JSON.parse(next.value) as ExportLine;
    if (line.kind === 'seal') {
      const { kind: _kind, ...seal } = line;
      seals.push(seal);
    } else if (line.kind === 'event') {
      pending = toEvent(line);
      break;
    }
  }
  return {
    publicKey: header.publicKey,
    head: async () => (header.head === null ? null : BigInt(header.head)),
    seals: async () => seals,
    async *batches() {
      let batch: RecordedEvent[] = pending === null ? [] : [pending];
      for (;;) {
        const next = await iterator.next();
        if (next.done) break;
        if (next.value.trim() === '') continue;
        const line = JSON.parse(next.value) as ExportLine;
        if (line.kind !== 'event') throw new Error(`a ${line.kind} line after the events`);
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
  const { kind: _kind, position, ...event } = line;
  return { ...event, position: BigInt(position) };
};

export const fileLines = (path: string): AsyncIterable<string> => createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });

/** The export: a header, the seals, then every event in global order, one JSON document a line. */
export async function* exportLines(source: LogSource, onProgress?: (done: number) => void): AsyncIterable<string> {
  const head = await source.head();
  yield `${JSON.stringify({ kind: 'header', format: EXPORT_FORMAT, exportedAt: new Date().toISOString(), publicKey: source.publicKey, head: head?.toString() ?? null })}\n`;
  for (const seal of await source.seals()) yield `${JSON.stringify({ kind: 'seal', ...seal })}\n`;
  let done = 0;
  for await (const batch of source.batches()) {
    yield batch.map((event) => `${eventLine(event)}\n`).join('');
    done += batch.length;
    onProgress?.(done);
  }
}
