import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from '@eventstore/db-client';
import { pino, type Logger } from 'pino';
import { WrongExpectedRevisionError } from '../event-store.port.js';
import type {
  AppendResult,
  EventStore,
  ExpectedRevision,
  NewEvent,
  ReadAllOptions,
  RecordedEvent,
  StreamAppend,
  SubscribeOptions,
  Subscription,
} from '../event-store.port.js';
import { esdbConnectionString, fromPosition, isSystemEvent, toAppendExpectedRevision, toEventData, toRecordedEvent } from './esdb-mapping.js';
import { EsdbSubscription } from './esdb-subscription.js';

/**
 * EventStoreDB / KurrentDB adapter. Positions are $all commit positions; $-prefixed (system) events
 * are never returned. Streams read with readStream may carry position -1n: the server's stream index
 * does not always know the commit position (read $all for positions).
 */
export class EsdbEventStore implements EventStore {
  private readonly subscriptions = new Set<Subscription>();

  constructor(
    private readonly client: EventStoreDBClient,
    private readonly logger: Logger,
  ) {}

  async appendToStream(streamId: string, events: NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    try {
      const result = await this.client.appendToStream(streamId, events.map(toEventData), {
        expectedRevision: toAppendExpectedRevision(options.expectedRevision),
      });
      return { nextRevision: Number(result.nextExpectedRevision), position: result.position?.commit ?? -1n };
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError)) throw error;
      const actual = error.actualVersion;
      throw new WrongExpectedRevisionError(streamId, options.expectedRevision, typeof actual === 'bigint' ? Number(actual) : 'no_stream');
    }
  }

  /**
   * NOT ATOMIC across streams: EventStoreDB (this client, 6.x) has no multi-stream transaction, so
   * the streams are appended one after the other, each with its expected revision. Every expected
   * revision is checked first, so an ordinary conflict writes nothing; but a concurrent writer that
   * slips in between the check and the appends, or a failure midway, leaves the earlier streams
   * written and the later ones not. Callers needing all-or-nothing must use the PostgreSQL adapter
   * or make the later appends idempotent and retry them.
   */
  async appendToStreams(appends: StreamAppend[]): Promise<AppendResult> {
    for (const append of appends) {
      if (append.expectedRevision === 'any') continue;
      const actual = await this.lastRevision(append.streamId);
      const matches = append.expectedRevision === 'no_stream' ? actual === null : actual === append.expectedRevision;
      if (!matches) throw new WrongExpectedRevisionError(append.streamId, append.expectedRevision, actual ?? 'no_stream');
    }
    let result: AppendResult = { nextRevision: -1, position: -1n };
    for (const append of appends) {
      const appended = await this.appendToStream(append.streamId, append.events, { expectedRevision: append.expectedRevision });
      result = { nextRevision: appended.nextRevision, position: append.events.length > 0 ? appended.position : result.position };
    }
    return result;
  }

  async readStream(streamId: string, options?: { fromRevision?: number }): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    try {
      const read = this.client.readStream(streamId, { direction: FORWARDS, fromRevision: BigInt(options?.fromRevision ?? 0) });
      for await (const resolved of read) {
        const event = resolved.event === undefined ? null : toRecordedEvent(resolved.event);
        if (event !== null) events.push(event);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return events;
  }

  async readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    const after = options.after ?? null;
    const events: RecordedEvent[] = [];
    if (options.maxCount <= 0) return events;
    // Unbounded read, left early: system events are filtered here, so maxCount cannot go to the server.
    for await (const resolved of this.client.readAll({ direction: FORWARDS, fromPosition: fromPosition(after) })) {
      const raw = resolved.event;
      if (raw === undefined || isSystemEvent(raw) || (after !== null && raw.position.commit <= after)) continue;
      const event = toRecordedEvent(raw);
      if (event !== null) events.push(event);
      if (events.length >= options.maxCount) break;
    }
    return events;
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    const subscription = new EsdbSubscription(this.client, options, this.logger);
    this.subscriptions.add(subscription);
    return {
      stop: async () => {
        this.subscriptions.delete(subscription);
        await subscription.stop();
      },
    };
  }

  async headPosition(): Promise<bigint | null> {
    for await (const resolved of this.client.readAll({ direction: BACKWARDS, fromPosition: END })) {
      const raw = resolved.event;
      if (raw !== undefined && !isSystemEvent(raw)) return raw.position.commit;
    }
    return null;
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((subscription) => subscription.stop()));
    await this.client.dispose();
  }

  private async lastRevision(streamId: string): Promise<number | null> {
    try {
      for await (const resolved of this.client.readStream(streamId, { direction: BACKWARDS, fromRevision: END, maxCount: 1 })) {
        if (resolved.event !== undefined) return Number(resolved.event.revision);
      }
      return null;
    } catch (error) {
      if (error instanceof StreamNotFoundError) return null;
      throw error;
    }
  }
}

/** `connectionString`: EVENT_STORE_URL, `esdb://…` or `kurrentdb://…`. */
export async function createEsdbEventStore(options: { connectionString: string; logger?: Logger }): Promise<EsdbEventStore> {
  const client = EventStoreDBClient.connectionString(esdbConnectionString(options.connectionString));
  return new EsdbEventStore(client, options.logger ?? pino({ name: 'event-store' }));
}
