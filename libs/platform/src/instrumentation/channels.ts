import { channel } from 'node:diagnostics_channel';

/*
 * What the libraries tell the process's metrics and traces through Node's diagnostics channels: no registry is
 * handed down, and with nobody subscribed a report costs one property read. Fields are bounded: no id, no address.
 */

/** One group transaction of the SQL event store (PostgreSQL or embedded): how long, how many callers. */
export interface AppendObserved {
  seconds: number;
  callers: number;
}

export type WebhookAttemptOutcome = 'skipped' | 'endpoint_disabled' | 'succeeded' | 'retry' | 'failed' | 'gone' | 'failing' | 'error';

/** One run of a webhook delivery job: what became of it and how long it took. */
export interface WebhookAttemptObserved {
  outcome: WebhookAttemptOutcome;
  seconds: number;
}

/** A BullMQ job this process finished, by queue name (a constant of the service). */
export interface JobObserved {
  queue: string;
  outcome: 'completed' | 'failed';
}

/** `rate_limited`: a key past its own limit; `auth_failed`: a failed authentication answered 401/403; `auth_throttled`: one answered 429. */
export type RefusalReason = 'rate_limited' | 'auth_failed' | 'auth_throttled';

export const APPEND_CHANNEL = channel('hiring:event-store:append');
export const WEBHOOK_ATTEMPT_CHANNEL = channel('hiring:webhooks:attempt');
export const JOB_CHANNEL = channel('hiring:queues:job');
export const REFUSAL_CHANNEL = channel('hiring:http:refusal');

/** `started` from performance.now(). */
export const reportAppend = (started: number, callers: number): void => {
  if (APPEND_CHANNEL.hasSubscribers) APPEND_CHANNEL.publish({ seconds: (performance.now() - started) / 1000, callers } satisfies AppendObserved);
};

export const reportWebhookAttempt = (started: number, outcome: WebhookAttemptOutcome): void => {
  if (WEBHOOK_ATTEMPT_CHANNEL.hasSubscribers) WEBHOOK_ATTEMPT_CHANNEL.publish({ seconds: (performance.now() - started) / 1000, outcome } satisfies WebhookAttemptObserved);
};

export const reportRefusal = (reason: RefusalReason): void => {
  if (REFUSAL_CHANNEL.hasSubscribers) REFUSAL_CHANNEL.publish(reason);
};

/** Counts the jobs a BullMQ worker (or anything with its events) completes and fails. */
export const reportJobOutcomes = (worker: { name: string; on(event: 'completed' | 'failed', listener: () => void): unknown }): void => {
  for (const outcome of ['completed', 'failed'] as const) {
    worker.on(outcome, () => {
      if (JOB_CHANNEL.hasSubscribers) JOB_CHANNEL.publish({ queue: worker.name, outcome } satisfies JobObserved);
    });
  }
};

/*
 * Traces (observability/tracing.ts): a stage of the work done for requests, reported afterwards with its start
 * and end (epoch ms) and their request ids, which tie it to the request's span in this process or another.
 */
export interface StageTraced {
  stage: 'append' | 'projection' | 'webhook';
  requestIds: readonly string[];
  startTime: number;
  endTime: number;
  /** Bounded numbers and words only (counts, outcomes, flags). */
  attributes: Record<string, string | number | boolean>;
}

export const TRACE_CHANNEL = channel('hiring:trace:stage');

/** True while traces are being made: callers skip collecting request ids otherwise. */
export const tracing = (): boolean => TRACE_CHANNEL.hasSubscribers;

export const reportStage = (stage: StageTraced['stage'], requestIds: Iterable<string>, startTime: number, attributes: StageTraced['attributes']): void => {
  if (!TRACE_CHANNEL.hasSubscribers) return;
  const ids = [...new Set(requestIds)].filter((id) => id !== '');
  if (ids.length > 0) TRACE_CHANNEL.publish({ stage, requestIds: ids, startTime, endTime: Date.now(), attributes } satisfies StageTraced);
};

/**
 * An event of a type this version does not know (a newer one wrote it in a rolling deploy), skipped by a follower.
 * `type` is `other` unless it looks like one of ours (a PascalCase word); the listener caps how many it keeps.
 */
export interface UnknownEventObserved {
  follower: 'projections' | 'dispatcher';
  type: string;
}

export const UNKNOWN_EVENT_CHANNEL = channel('hiring:log:unknown-event');

const EVENT_TYPE_SHAPE = /^[A-Z][A-Za-z]{0,63}$/;

export const reportUnknownEvent = (follower: UnknownEventObserved['follower'], type: string): void => {
  if (UNKNOWN_EVENT_CHANNEL.hasSubscribers) UNKNOWN_EVENT_CHANNEL.publish({ follower, type: EVENT_TYPE_SHAPE.test(type) ? type : 'other' } satisfies UnknownEventObserved);
};

/** A change of primary this process saw: a PostgreSQL host list's writable host, or Redis's master behind Sentinel. */
export interface FailoverObserved {
  store: 'postgres' | 'redis';
}

export const FAILOVER_CHANNEL = channel('hiring:connections:failover');

export const reportFailover = (store: FailoverObserved['store']): void => {
  if (FAILOVER_CHANNEL.hasSubscribers) FAILOVER_CHANNEL.publish({ store } satisfies FailoverObserved);
};

/**
 * A public GET's read with READ_REPLICA_URL. The standby served it: `caught_up` at once, or `waited` for the
 * primary's position. The primary did: `behind` (not replayed in time), `error` (the standby or the position
 * failed), `no_standby` (none known now: none answers, or it was paused after errors).
 */
export interface ReplicaReadObserved {
  servedBy: 'replica' | 'primary';
  reason: 'caught_up' | 'waited' | 'behind' | 'error' | 'no_standby';
  /** Seconds from the read's start to the moment it could be sent (the primary's position, the standby's checks); 0 without them. */
  waitSeconds: number;
  /** Bytes of WAL the standby had still to replay at its first check; null when it was not asked. */
  lagBytes: number | null;
}

export const REPLICA_READ_CHANNEL = channel('hiring:read-models:replica-read');

export const reportReplicaRead = (observed: ReplicaReadObserved): void => {
  if (REPLICA_READ_CHANNEL.hasSubscribers) REPLICA_READ_CHANNEL.publish(observed);
};
