import { randomUUID } from 'node:crypto';
import type { EventStore, NewEvent, RecordedEvent } from '../event-store.port.js';

/** What a contract spec hands the suite: a ready store and how to dispose of it. */
export interface ContractSubject {
  store: EventStore;
  close(): Promise<void>;
}

export interface ContractCapabilities {
  /** appendToStreams is all-or-nothing. False for EventStoreDB (sequential appends). */
  atomicMultiStreamAppend: boolean;
}

export interface ContractContext {
  subject(): ContractSubject;
  capabilities: ContractCapabilities;
}

/**
 * Streams are prefixed per test so that the suite also runs against a shared server (EventStoreDB)
 * whose log holds other runs' events: every global read filters on the prefix.
 */
export function streamPrefix(): string {
  return `contract${randomUUID().replaceAll('-', '').slice(0, 12)}`;
}

export function newEvent(type: string, data: Record<string, unknown> = {}): NewEvent {
  const id = randomUUID();
  return {
    id,
    type,
    data,
    metadata: { correlationId: id, causationId: null, actor: 'system', requestId: `req-${id}`, time: '2024-01-01T00:00:00.000Z' },
  };
}

export function newEvents(count: number, type = 'Counted'): NewEvent[] {
  return Array.from({ length: count }, (_, index) => newEvent(type, { index }));
}

/** Reads every event after `after` whose stream starts with `prefix`, page by page. */
export async function readAllWithPrefix(store: EventStore, after: bigint | null, prefix: string): Promise<RecordedEvent[]> {
  const found: RecordedEvent[] = [];
  let cursor = after;
  for (;;) {
    const page = await store.readAll({ after: cursor, maxCount: 200 });
    found.push(...page.filter((event) => event.streamId.startsWith(prefix)));
    const last = page.at(-1);
    if (last === undefined) return found;
    cursor = last.position;
  }
}

export async function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
