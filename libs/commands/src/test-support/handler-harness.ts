import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { DomainEvent } from '#domain';
import { type EmbeddedEventStore, type RecordedEvent, createEmbeddedEventStore } from '#event-store';
import { loadConfig, systemClock } from '#platform';
import { EventWriter } from '../shared/event-writer.js';
import { type RequestContext, type WriteLookups, systemContext } from '../shared/ports.js';

/**
 * Handler specs on the real write path (EventWriter on the embedded PGlite store, as `npm start`
 * runs it): given events in streams, when a handler runs a command, then the events it appended or
 * the code of its refusal. The look-ups a few handlers make of the read side are answered from the
 * log itself, so no read model is needed.
 */
export interface HandlerHarness {
  readonly writer: EventWriter;
  readonly lookups: WriteLookups;
  readonly context: RequestContext;
  /** Appends the events to their streams (each stream must not exist yet). */
  given(streams: Record<string, readonly DomainEvent[]>): Promise<void>;
  /** What the command did: the events appended since the last `given` or `when`, or the refusal's code. */
  when(command: () => Promise<unknown>): Promise<{ events: { streamId: string; type: string; data: Record<string, unknown> }[] } | { refused: string }>;
  stop(): Promise<void>;
}

export const startHandlerHarness = async (): Promise<HandlerHarness> => {
  const dataDir = await mkdtemp(join(tmpdir(), 'handlers-'));
  const embedded: EmbeddedEventStore = await createEmbeddedEventStore({ dataDir, logger: pino({ level: 'silent' }) });
  const store = embedded.store;
  const writer = new EventWriter(store, systemClock, { waitForPosition: async () => true }, loadConfig({}), pino({ level: 'silent' }));
  let head = await store.headPosition();
  const all = async (): Promise<RecordedEvent[]> => store.readAll({ after: null, maxCount: 100_000 });
  const lookups: WriteLookups = {
    workspaceOfApiKey: async (apiKeyId) => (await all()).find((event) => event.data.apiKeyId === apiKeyId)?.data.workspaceId as string | undefined ?? null,
    candidateOfResult: async (resultId) => (await all()).find((event) => event.type === 'TestCompleted' && event.data.resultId === resultId)?.data.candidateId as string | undefined ?? null,
    assessmentsOfWorkspace: async (workspaceId) =>
      (await all()).filter((event) => event.type === 'AssessmentCreated' && event.data.workspaceId === workspaceId).map((event) => event.data.assessmentId as string),
  };
  return {
    writer,
    lookups,
    context: systemContext(`handler-spec-${randomUUID()}`),
    given: async (streams: Record<string, readonly DomainEvent[]>) => {
      for (const [streamId, events] of Object.entries(streams)) {
        const recorded = events.map((event) => ({ id: randomUUID(), type: event.type, data: event.data as unknown as Record<string, unknown>, metadata: { correlationId: 'given', causationId: null, actor: 'system', requestId: 'given', time: new Date().toISOString() } }));
        await store.appendToStream(streamId, recorded, { expectedRevision: 'no_stream' });
      }
      head = await store.headPosition();
    },
    when: async (command: () => Promise<unknown>) => {
      try {
        await command();
      } catch (error) {
        if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') return { refused: error.code };
        throw error;
      }
      const events = await store.readAll({ after: head, maxCount: 10_000 });
      head = await store.headPosition();
      return { events: events.map(({ streamId, type, data }) => ({ streamId, type, data })) };
    },
    stop: async () => {
      await writer.flushSnapshots();
      await embedded.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
};
