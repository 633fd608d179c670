import { type Channel, subscribe } from 'node:diagnostics_channel';
import { Counter, Gauge, Histogram, type Metric, Registry, collectDefaultMetrics } from 'prom-client';
import {
  APPEND_CHANNEL, type AppendObserved, FAILOVER_CHANNEL, type FailoverObserved, JOB_CHANNEL, type JobObserved, REFUSAL_CHANNEL, type RefusalReason,
  REPLICA_READ_CHANNEL, type ReplicaReadObserved, UNKNOWN_EVENT_CHANNEL, type UnknownEventObserved, WEBHOOK_ATTEMPT_CHANNEL, type WebhookAttemptObserved,
} from '#platform/instrumentation/channels.js';
import type { Infrastructure } from '../infrastructure.js';
import { type ReadSideLag, readSideLag } from './read-side-lag.js';
import { postgresHostKey } from '#platform';
import { Readiness, within } from './readiness.js';
import { RequestDurations } from './request-durations.js';

/** Distinct `type` labels of hiring_unknown_events_total; the rest count as `other`. */
const MAX_UNKNOWN_TYPE_LABELS = 20;

/** Each message of a channel (libs/platform/src/instrumentation/channels.ts), as the type published there. */
const on = <T>(published: Channel, handle: (message: T) => void): void => {
  subscribe(published.name, (message) => handle(message as T));
};

/** Where the process's one SQL pool points, named as create-infrastructure.ts names it in its logs. */
const poolName = (infra: Infrastructure): string => {
  const url = infra.config.eventStoreUrl;
  if (!url) return 'embedded';
  return /^postgres(ql)?:\/\//.test(url) ? 'log' : 'side';
};

/**
 * One Prometheus registry per process (metrics `hiring_…`, every label bounded, never an id or an address), fed
 * by the diagnostics channels and, at each scrape, by reads of the stores (docs/operations.md lists them).
 */
export class ProcessObservability {
  readonly registry = new Registry();
  readonly requests = new RequestDurations();
  readonly readiness: Readiness;
  private readonly gauges;
  /** A scrape and the probes that overlap it share one read of the lag. */
  private lagRead: Promise<ReadSideLag> | null = null;

  constructor(private readonly infra: Infrastructure) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'hiring_' });
    this.registry.registerMetric(this.requests as unknown as Metric);
    this.readiness = new Readiness(infra, () => this.lag());

    const appendSeconds = new Histogram({
      name: 'hiring_event_store_append_seconds', help: 'Time of one append transaction (a group of concurrent appends, or one alone)',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5], registers,
    });
    const appendCallers = new Histogram({
      name: 'hiring_event_store_append_group_size', help: 'Appends committed together in one transaction (group commit)',
      buckets: [1, 2, 4, 8, 16, 32, 64], registers,
    });
    on<AppendObserved>(APPEND_CHANNEL, ({ seconds, callers }) => {
      appendSeconds.observe(seconds);
      appendCallers.observe(callers);
    });
    const webhookAttempts = new Histogram({
      name: 'hiring_webhook_attempt_duration_seconds', help: 'Webhook delivery jobs run by this process, by outcome, and how long each took',
      labelNames: ['outcome'], buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers,
    });
    on<WebhookAttemptObserved>(WEBHOOK_ATTEMPT_CHANNEL, ({ outcome, seconds }) => webhookAttempts.observe({ outcome }, seconds));
    const jobs = new Counter({ name: 'hiring_queue_jobs_finished_total', help: 'Jobs this process finished, by queue and outcome', labelNames: ['queue', 'outcome'], registers });
    on<JobObserved>(JOB_CHANNEL, ({ queue, outcome }) => jobs.inc({ queue, outcome }));
    const refusals = new Counter({
      name: 'hiring_http_refusals_total', help: 'Requests refused by the per-key rate limit or for failed authentication, by reason', labelNames: ['reason'], registers,
    });
    for (const reason of ['rate_limited', 'auth_failed', 'auth_throttled'] as const) refusals.inc({ reason }, 0);
    on<RefusalReason>(REFUSAL_CHANNEL, (reason) => refusals.inc({ reason }));
    const unknownEvents = new Counter({
      name: 'hiring_unknown_events_total', help: 'Events skipped by a follower of the log because this version does not know their type (a rolling deploy)',
      labelNames: ['follower', 'type'], registers,
    });
    // The type is a label only for the first few distinct ones: the log could hold any number.
    const namedTypes = new Set<string>();
    on<UnknownEventObserved>(UNKNOWN_EVENT_CHANNEL, ({ follower, type }) => {
      if (!namedTypes.has(type) && namedTypes.size < MAX_UNKNOWN_TYPE_LABELS) namedTypes.add(type);
      unknownEvents.inc({ follower, type: namedTypes.has(type) ? type : 'other' });
    });

    const failovers = new Counter({
      name: 'hiring_failovers_total', help: 'Changes of primary this process followed: a PostgreSQL host list\'s writable host, or the Redis master behind Sentinel',
      labelNames: ['store'], registers,
    });
    for (const store of ['postgres', 'redis'] as const) failovers.inc({ store }, 0);
    on<FailoverObserved>(FAILOVER_CHANNEL, ({ store }) => failovers.inc({ store }));

    this.observeReplicaReads(registers);

    this.gauges = {
      replica: new Gauge({
        name: 'hiring_db_replica', help: 'With READ_REPLICA_URL, for each host it lists: 1 for the standby this process serves public reads from, 0 for the others (all 0: the primary serves them)',
        labelNames: ['host'], registers,
      }),
      primary: new Gauge({
        name: 'hiring_db_primary', help: 'For each host of a PostgreSQL host list: 1 for the one this process writes to now, 0 for the others',
        labelNames: ['setting', 'host'], registers,
      }),
      redisMaster: new Gauge({ name: 'hiring_redis_master', help: 'The Redis server (the master, behind Sentinel) this process\'s connection reached last: 1', labelNames: ['address'], registers }),
      pool: new Gauge({ name: 'hiring_db_pool_connections', help: 'Connections of the SQL pool: total open, idle, and requests waiting for one', labelNames: ['pool', 'state'], registers }),
      head: new Gauge({ name: 'hiring_event_store_head_position', help: 'Position of the last event in the log', registers }),
      projectionEvents: new Gauge({ name: 'hiring_projection_lag_events', help: 'Events in the log after the read model\'s stored checkpoint', labelNames: ['projection'], registers }),
      projectionSeconds: new Gauge({ name: 'hiring_projection_lag_seconds', help: 'Age of the oldest event the read model has not handled (0: caught up)', labelNames: ['projection'], registers }),
      dispatcherEvents: new Gauge({ name: 'hiring_dispatcher_lag_events', help: 'Events in the log after the dispatcher\'s stored checkpoint', registers }),
      dispatcherSeconds: new Gauge({ name: 'hiring_dispatcher_lag_seconds', help: 'Age of the oldest event the dispatcher has not handled (0: caught up)', registers }),
      queue: new Gauge({ name: 'hiring_queue_jobs', help: 'Jobs in each BullMQ queue, by state', labelNames: ['queue', 'state'], registers }),
      ready: new Gauge({ name: 'hiring_ready', help: '1 while GET /health/ready answers ok, 0 otherwise (as of this scrape)', registers }),
      check: new Gauge({ name: 'hiring_ready_check', help: 'Each readiness check as of this scrape (1: passes)', labelNames: ['check'], registers }),
    };
  }

  /** Public reads with READ_REPLICA_URL (replica-document.store.ts): who served them, how long they waited, how far behind the standby was. */
  private observeReplicaReads(registers: Registry[]): void {
    if (this.infra.publicReads.replica === null) return;
    const reads = new Counter({
      name: 'hiring_replica_reads_total', help: 'Reads of public GETs, by who served them (replica, primary) and why (caught_up, waited; behind, error, no_standby)',
      labelNames: ['served_by', 'reason'], registers,
    });
    for (const reason of ['caught_up', 'waited'] as const) reads.inc({ served_by: 'replica', reason }, 0);
    for (const reason of ['behind', 'error', 'no_standby'] as const) reads.inc({ served_by: 'primary', reason }, 0);
    const wait = new Histogram({
      name: 'hiring_replica_wait_seconds', help: 'Time a public read spent before it was sent: the primary\'s WAL position and the standby\'s replay checks, by who served it',
      labelNames: ['served_by'], buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5], registers,
    });
    const lag = new Gauge({ name: 'hiring_replica_lag_bytes', help: 'WAL the standby had still to replay when a public read last asked it (0: none)', registers });
    on<ReplicaReadObserved>(REPLICA_READ_CHANNEL, ({ servedBy, reason, waitSeconds, lagBytes }) => {
      reads.inc({ served_by: servedBy, reason });
      if (reason !== 'no_standby') wait.observe({ served_by: servedBy }, waitSeconds);
      if (lagBytes !== null) lag.set(lagBytes);
    });
  }

  /** The Prometheus text, after reading what is only known by asking the stores. */
  async scrape(): Promise<string> {
    await Promise.all([this.readLag(), this.readQueues(), this.readReadiness()]);
    this.readPool();
    this.readPrimaries();
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private lag(): Promise<ReadSideLag> {
    this.lagRead ??= readSideLag(this.infra).finally(() => { this.lagRead = null; });
    return this.lagRead;
  }

  private readPool(): void {
    const { pool } = this.gauges;
    const pools = [[poolName(this.infra), this.infra.sidePool], ['replica', this.infra.publicReads.replicaPool]] as const;
    for (const [name, sql] of pools) {
      if (sql === null) continue;
      pool.set({ pool: name, state: 'total' }, sql.totalCount);
      pool.set({ pool: name, state: 'idle' }, sql.idleCount);
      pool.set({ pool: name, state: 'waiting' }, sql.waitingCount);
    }
  }

  /** Hosts are those the configuration lists: a bounded label. */
  private readPrimaries(): void {
    const { primary, redisMaster, replica } = this.gauges;
    replica.reset();
    const replicaLocator = this.infra.publicReads.replica?.locator;
    if (replicaLocator) {
      const standby = replicaLocator.matches ? replicaLocator.primary : null;
      for (const host of replicaLocator.target.hosts.map(postgresHostKey)) replica.set({ host }, host === standby ? 1 : 0);
    }
    primary.reset();
    for (const { locator, name } of this.infra.databaseServers.all) {
      for (const host of locator?.target.hosts.map(postgresHostKey) ?? []) {
        primary.set({ setting: name, host }, host === locator?.primary ? 1 : 0);
      }
    }
    redisMaster.reset();
    const master = this.infra.redisHealth.master;
    if (master !== null) redisMaster.set({ address: master }, 1);
  }

  /**
   * A lag that cannot be read now (the database is down) is absent from this scrape, or NaN where
   * the gauge has no labels: never a stale value, nor a 0 that would read as caught up.
   */
  private async readLag(): Promise<void> {
    const { head, projectionEvents, projectionSeconds, dispatcherEvents, dispatcherSeconds } = this.gauges;
    for (const gauge of [projectionEvents, projectionSeconds]) gauge.reset();
    for (const gauge of [head, dispatcherEvents, dispatcherSeconds]) gauge.set(Number.NaN);
    const lag: ReadSideLag | null = await within(this.lag(), 2_000).catch(() => null);
    if (lag === null) return;
    head.set(lag.head === null ? 0 : Number(lag.head));
    for (const [projection, { events, seconds }] of lag.projections) {
      projectionEvents.set({ projection }, events);
      projectionSeconds.set({ projection }, seconds);
    }
    if (lag.dispatcher !== null) {
      dispatcherEvents.set(lag.dispatcher.events);
      dispatcherSeconds.set(lag.dispatcher.seconds);
    }
  }

  private async readQueues(): Promise<void> {
    const { queue } = this.gauges;
    queue.reset();
    const counts = this.infra.messaging === null ? null : await within(this.infra.messaging.queueHealth(), 1_000).catch(() => null);
    if (counts === null) return;
    for (const [name, states] of Object.entries(counts)) {
      for (const [state, count] of Object.entries(states)) queue.set({ queue: name, state }, count);
    }
  }

  private async readReadiness(): Promise<void> {
    const report = await this.readiness.check();
    this.gauges.ready.set(report.ready ? 1 : 0);
    const checks = { database: report.database, redis: report.redis, read_side: report.readSide };
    for (const [check, passes] of Object.entries(checks)) this.gauges.check.set({ check }, passes ? 1 : 0);
  }
}

/** The process's observability, made by the first endpoint that serves it (one registry per process). */
export const observabilityOf = (infra: Infrastructure): ProcessObservability => {
  infra.observability ??= new ProcessObservability(infra);
  return infra.observability;
};
