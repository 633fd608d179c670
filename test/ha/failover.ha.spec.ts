import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { Redis } from 'ioredis';
import pg from 'pg';
import { PrimaryLocator, freeLoopbackPort, parsePostgresUrl } from '#platform';
import { request } from '../support/client.js';
import { probe, scrape } from '../support/metrics.js';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '../support/messaging-receivers.js';
import { type AppProcess, startApp } from '../support/processes.js';
import { type Formation, pgAutoctlInstalled, startFormation } from './support/pg-formation.js';
import { CLIENT_TIMEOUT_MS, type Load, recoveryAfter, startLoad } from './support/ha-load.js';
import { MASTER_NAME, type RedisSentinels, startRedisSentinels } from './support/redis-sentinels.js';

jest.setTimeout(360_000);

const pause = (ms: number) => new Promise((resolveLater) => setTimeout(resolveLater, ms));
const seconds = (ms: number | null | undefined): string => (ms === null || ms === undefined ? 'never' : `${(ms / 1000).toFixed(1)} s`);

/** Public reads by who served them and why, summed over the API processes (hiring_replica_reads_total). */
type ServedBy = Record<string, number>;
const servedShare = (counts: ServedBy): { replica: number; primary: number } => ({
  replica: Object.entries(counts).filter(([label]) => label.startsWith('replica:')).reduce((total, [, count]) => total + count, 0),
  primary: Object.entries(counts).filter(([label]) => label.startsWith('primary:')).reduce((total, [, count]) => total + count, 0),
});
const minus = (after: ServedBy, before: ServedBy): ServedBy =>
  Object.fromEntries(Object.entries(after).map(([label, count]) => [label, count - (before[label] ?? 0)]).filter(([, count]) => count !== 0));

/** The moment every API process had acknowledged an invitation again (Infinity when one never did). */
const everyApi = (perApi: readonly ({ ms: number } | null)[]): number => Math.max(...perApi.map((entry) => entry?.ms ?? Infinity));

/** When a store accepted writes, seen from outside the service: a write every 100 ms through the same host list / sentinels. */
interface Timeline { at: number; ok: boolean }
/** The first write that succeeded after the first that failed following `from` (the first success at all when none failed). */
const firstOkAfterFailure = (timeline: readonly Timeline[], from: number): number | null => {
  const after = timeline.filter((point) => point.at >= from);
  const firstFailure = after.find((point) => !point.ok)?.at ?? from;
  return after.find((point) => point.ok && point.at > firstFailure)?.at ?? null;
};

/**
 * High availability on real engines (docs/operations.md, "High availability"): a pg_auto_failover
 * formation (monitor, primary, synchronous secondary) and Redis behind three sentinels, all of the
 * tier's own; the separate-process deployment (a worker, two API processes, the internal
 * application) under a steady load of keyed invitations and reads, through a planned switchover, the
 * loss of the primary's host, kill -9 of the Redis master and SIGSTOP of it. The API processes read
 * from the formation's standby (READ_REPLICA_URL, prefer-standby) whenever it has replayed far enough.
 * Afterwards every acknowledged invitation is in the log, the events feed and the outbox exactly once
 * and was delivered once; no process exited, no request waited 10 s, every read after a write saw it,
 * and a real share of those reads was served by a standby, before and after the switchover.
 */
describe('high availability: failovers of PostgreSQL and Redis under load (ha tier)', () => {
  const token = 'ha-internal-token';
  const queuePrefix = `ha-${Date.now().toString(36)}`;
  const apps: AppProcess[] = [];
  const notes: string[] = [];
  let formation: Formation;
  let redis: RedisSentinels;
  let receiver: WebhookReceiver;
  let dataDir = '';
  let internalUrl = '';
  const apiUrls: string[] = [];
  let assessmentId = '';
  let auth: Record<string, string> = {};
  const clientKeys: Record<string, string>[] = [];
  const pgTimeline: Timeline[] = [];
  const redisTimeline: Timeline[] = [];
  let probing = true;
  let probes: Promise<void>[] = [];

  const internal = (method: string, path: string, body?: unknown) =>
    request(`${internalUrl}${path}`, { method, headers: { authorization: `Bearer ${token}` }, body });

  /** The e-mail address of a received webhook's invitation (candidateInvited envelopes). */
  const invitedEmail = (body: unknown): string | null =>
    (body as { event?: string; data?: { invitation?: { email?: string } } } | null)?.event === 'candidateInvited'
      ? ((body as { data: { invitation?: { email?: string } } }).data.invitation?.email ?? null) : null;

  beforeAll(async () => {
    if (!pgAutoctlInstalled()) throw new Error('pg_autoctl is missing: apt-get install -y postgresql-15-auto-failover (.ci/run installs it)');
    const started = Date.now();
    // Each is kept as soon as it is up, so that afterAll stops whatever started even if the other failed.
    const [formationStarted, redisStarted] = await Promise.allSettled([
      startFormation((line) => notes.push(line)).then((started) => { formation = started; return started; }),
      startRedisSentinels((line) => notes.push(line)).then((started) => { redis = started; return started; }),
    ]);
    for (const outcome of [formationStarted, redisStarted]) if (outcome.status === 'rejected') throw outcome.reason;
    notes.push(`formation and sentinels ready in ${seconds(Date.now() - started)}: ${formation.uri}`);
    receiver = await startWebhookReceiver();
    dataDir = mkdtempSync(join(tmpdir(), 'hiring-ha-'));
    const internalPort = await freeLoopbackPort();
    internalUrl = `http://127.0.0.1:${internalPort}`;
    const env: Record<string, string> = {
      // As `pg_autoctl show uri` prints it; the user comes from PGUSER, as for libpq.
      EVENT_STORE_URL: formation.uri, PGUSER: 'postgres',
      REDIS_SENTINELS: redis.sentinels, REDIS_SENTINEL_NAME: MASTER_NAME,
      SERVICE_SECRET: 'ha-service-secret', INTERNAL_TOKEN: token, DATA_DIR: dataDir, QUEUE_PREFIX: queuePrefix,
      WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_BACKOFF_MS: '200', LOG_LEVEL: 'info',
      INTERNAL_PORT: String(internalPort), APP_URL: `http://localhost:${internalPort}`, HOST: '127.0.0.1',
    };
    // The worker first (it migrates), then the others together.
    apps.push(await startApp('worker', env, async (output) => output.includes('worker running')));
    const apiPorts = [await freeLoopbackPort(), await freeLoopbackPort()];
    apiUrls.push(...apiPorts.map((port) => `http://127.0.0.1:${port}`));
    // The API processes read from the standby: the same host list, asking for a standby first.
    const readReplicaUrl = formation.uri.replace('target_session_attrs=read-write', 'target_session_attrs=prefer-standby');
    expect(readReplicaUrl).toContain('target_session_attrs=prefer-standby');
    apps.push(...await Promise.all([
      startApp('simulator', env, async () => (await internal('GET', '/internal/health')).status === 200),
      ...apiPorts.map((port) => startApp('api', { ...env, PORT: String(port), READ_REPLICA_URL: readReplicaUrl }, async () => (await request(`http://127.0.0.1:${port}/v1/me`)).status === 401)),
    ]));
    notes.push(`deployment started in ${seconds(Date.now() - started)}`);

    const workspace = (await internal('POST', '/internal/workspaces', { name: 'High availability' })).body.data;
    await internal('POST', `/internal/workspaces/${workspace.id}/verify`);
    const newKey = async (): Promise<Record<string, string>> => {
      const key = (await internal('POST', `/internal/workspaces/${workspace.id}/api-keys`, { mode: 'live' })).body.data;
      return { authorization: `Bearer ${key.key}:${key.secret}` };
    };
    auth = await newKey();
    // A key per client: the contract's 120 requests a minute per key are never reached.
    for (let i = 0; i < 6; i += 1) clientKeys.push(await newKey());
    expect((await internal('PUT', `/internal/workspaces/${workspace.id}/webhook`, { url: receiver.url, events: ['candidateInvited'] })).status).toBe(200);
    const created = await request(`${apiUrls[0]}/v1/assessments`, { method: 'POST', headers: auth, body: { name: 'HA', tests: ['numerical-reasoning'] } });
    expect(created.status).toBe(201);
    assessmentId = created.body.data.id;

    // The stores seen from outside: when does a write succeed, through the same host list and sentinels?
    const locator = new PrimaryLocator(parsePostgresUrl(formation.uri.replace('postgres://', 'postgres://postgres@')), { probeTimeoutMs: 500 });
    const probePool = new pg.Pool({ ...locator.poolOptions(), max: 1, connectionTimeoutMillis: 500, query_timeout: 500 } as pg.PoolConfig);
    probePool.on('error', () => undefined);
    await locator.locate();
    await probePool.query('CREATE TABLE IF NOT EXISTS ha_probe (at timestamptz)');
    const sentinelClient = new Redis({
      sentinels: redis.sentinels.split(',').map((entry) => ({ host: '127.0.0.1', port: Number(entry.split(':')[1]) })), name: MASTER_NAME,
      failoverDetector: true, commandTimeout: 500, maxRetriesPerRequest: 0, enableOfflineQueue: false, sentinelCommandTimeout: 500,
    });
    sentinelClient.on('error', () => undefined);
    const probeLoop = async (timeline: Timeline[], write: () => Promise<unknown>, relocate: () => Promise<unknown>): Promise<void> => {
      while (probing) {
        const at = Date.now();
        const ok = await write().then(() => true, () => false);
        timeline.push({ at, ok });
        if (!ok) await relocate().catch(() => undefined);
        await pause(100);
      }
    };
    probes = [
      probeLoop(pgTimeline, () => probePool.query('INSERT INTO ha_probe VALUES (now())'), () => locator.locate()).finally(() => probePool.end()),
      probeLoop(redisTimeline, () => sentinelClient.set(`${queuePrefix}:probe`, String(Date.now())), async () => undefined).finally(() => sentinelClient.disconnect()),
    ];
  }, 240_000);

  afterAll(async () => {
    probing = false;
    await Promise.all(probes);
    if (process.env.DEBUG_HA) for (const app of apps) writeFileSync(`/tmp/ha-${app.name}-${apps.indexOf(app)}.log`, app.output());
    for (const app of [...apps].reverse()) await app.stop();
    await receiver?.close();
    await redis?.destroy();
    await formation?.destroy();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (notes.length > 0) console.log(notes.join('\n'));
  }, 60_000);

  /** hiring_replica_reads_total of every API process, summed; a process that does not answer /metrics now counts nothing. */
  const servedBy = async (): Promise<ServedBy> => {
    const counts: ServedBy = {};
    for (const url of apiUrls) {
      const metrics = await scrape(url, token).catch(() => null);
      for (const sample of metrics?.all('hiring_replica_reads_total') ?? []) {
        const label = `${sample.labels.served_by}:${sample.labels.reason}`;
        counts[label] = (counts[label] ?? 0) + sample.value;
      }
    }
    return counts;
  };

  /** The wait before the reads the standby served, over every API process: mean, and the share sent within 1 ms and within 5 ms. */
  const standbyWaits = async (): Promise<string> => {
    let sum = 0;
    let count = 0;
    let within1 = 0;
    let within5 = 0;
    for (const url of apiUrls) {
      const metrics = await scrape(url, token).catch(() => null);
      if (metrics === null) continue;
      sum += metrics.sum('hiring_replica_wait_seconds_sum', { served_by: 'replica' });
      count += metrics.sum('hiring_replica_wait_seconds_count', { served_by: 'replica' });
      within1 += metrics.sum('hiring_replica_wait_seconds_bucket', { served_by: 'replica', le: '0.001' });
      within5 += metrics.sum('hiring_replica_wait_seconds_bucket', { served_by: 'replica', le: '0.005' });
    }
    if (count === 0) return 'no read on the standby';
    return `mean ${(1000 * sum / count).toFixed(1)} ms, ${Math.round(100 * within1 / count)}% within 1 ms, ${Math.round(100 * within5 / count)}% within 5 ms`;
  };

  it('keeps every acknowledged invitation exactly once through a switchover, the primary\'s host loss, kill -9 and SIGSTOP of the Redis master', async () => {
    const servedAtStart = await servedBy();
    const load: Load = startLoad({ apiUrls, credentials: clientKeys, assessmentId, label: 'ha' });
    const measured: string[] = [];
    const checks: (() => void)[] = [];
    const webhookAfter = (from: number): number | null => {
      const fresh = new Set(load.invitations.filter((invitation) => (invitation.attempts[0]?.startedAt ?? 0) >= from).map((invitation) => invitation.email));
      const first = receiver.requests.filter((received) => fresh.has(invitedEmail(received.body) ?? '')).map((received) => received.receivedAt).sort((a, b) => a - b)[0];
      return first === undefined ? null : first - from;
    };
    const waitForWebhookAfter = (from: number, what: string) =>
      eventually(async () => webhookAfter(from), (ms) => ms !== null, 60_000, `a webhook of an invitation made after ${what}`);
    await pause(4000);
    const servedBeforeSwitchover = await servedBy();

    // 1. A planned switchover: the primary drains (read-only while it still answers), the secondary is promoted.
    const switchoverAt = Date.now();
    const oldPrimary = await formation.primary();
    await formation.switchover();
    await eventually(async () => formation.primary().catch(() => oldPrimary), (address) => address !== oldPrimary, 30_000, 'the new primary');
    await pause(6000);
    const switchoverEnd = Date.now();
    const servedAfterSwitchover = await servedBy();

    // 2. Host loss: kill -9 of the primary's keeper and PostgreSQL; the monitor fails over to the other node.
    const hostLossAt = Date.now();
    const lost = await formation.killPrimaryHost();
    // Orchestrators see it: not ready while no host takes writes (alive all along).
    await pause(2500);
    const readyDuringHostLoss = await probe(`${apiUrls[0]}/health/ready`);
    const liveDuringHostLoss = await probe(`${apiUrls[0]}/health/live`);
    await eventually(async () => formation.primary().catch(() => lost), (address) => address !== lost, 60_000, 'a primary after the host loss');
    await eventually(async () => firstOkAfterFailure(pgTimeline, hostLossAt), (at) => at !== null, 60_000, 'writes on the new primary');
    await pause(6000);
    const hostLossEnd = Date.now();

    // 3. kill -9 of the Redis master: the sentinels promote the replica; the old one comes back as a replica.
    const redisKillAt = Date.now();
    const killedMaster = await redis.killMaster();
    await eventually(async () => redis.master().catch(() => killedMaster), (address) => address !== killedMaster, 30_000, 'a new Redis master');
    await waitForWebhookAfter(redisKillAt, 'the Redis master was killed');
    // The restarted one must be a replica in sync before the next fault has something to fail over to.
    await pause(6000);
    const redisKillEnd = Date.now();

    // 4. SIGSTOP of the Redis master: it stops answering without closing a connection.
    const freezeAt = Date.now();
    const frozen = await redis.freezeMaster();
    await eventually(async () => redis.master().catch(() => frozen), (address) => address !== frozen, 30_000, 'a master in place of the frozen one');
    await waitForWebhookAfter(freezeAt, 'the Redis master was frozen');
    redis.thaw(frozen);
    await pause(4000);
    const freezeEnd = Date.now();
    await load.stop();
    const servedAtEnd = await servedBy();

    // ---------------------------------------------------------------- measurements
    const pgPhases = [['switchover', switchoverAt, switchoverEnd], ['host loss', hostLossAt, hostLossEnd]] as const;
    for (const [name, at, end] of pgPhases) {
      const primaryWritable = firstOkAfterFailure(pgTimeline, at);
      const perApi = apiUrls.map((_, api) => recoveryAfter(load.invitations, at, end, api));
      measured.push(`PostgreSQL ${name}: fault -> new primary takes writes ${seconds(primaryWritable === null ? null : primaryWritable - at)}; `
        + `fault -> invitations acknowledged again on every API process ${seconds(everyApi(perApi))} (each: ${perApi.map((entry) => seconds(entry?.ms)).join(', ')}; `
        + `${perApi.reduce((total, entry) => total + (entry?.failures ?? 0), 0)} requests answered 5xx or not at all meanwhile)`);
      // Promise 3: within 5 s of the new primary accepting writes, every process accepts writes again.
      checks.push(() => {
        expect(primaryWritable).not.toBeNull();
        for (const entry of perApi) expect({ phase: name, late: (entry?.ms ?? Infinity) + at - (primaryWritable ?? 0) > 5000 }).toEqual({ phase: name, late: false });
      });
    }
    const redisPhases = [['kill -9', redisKillAt, redisKillEnd], ['SIGSTOP', freezeAt, freezeEnd]] as const;
    for (const [name, at, end] of redisPhases) {
      const masterWritable = firstOkAfterFailure(redisTimeline, at);
      const perApi = apiUrls.map((_, api) => recoveryAfter(load.invitations, at, end, api));
      const webhook = webhookAfter(at);
      measured.push(`Redis master ${name}: fault -> new master takes writes ${seconds(masterWritable === null ? null : masterWritable - at)}; `
        + `fault -> first delivered webhook ${seconds(webhook)}; fault -> invitations acknowledged again on every API process ${seconds(everyApi(perApi))} `
        + `(${perApi.reduce((total, entry) => total + (entry?.failures ?? 0), 0)} failed meanwhile)`);
      checks.push(() => expect(webhook).not.toBeNull());
    }
    // Promise 4: a frozen master is treated as down within 10 s; webhooks and invitations flow again within that.
    checks.push(() => {
      expect(webhookAfter(freezeAt)).toBeLessThanOrEqual(10_000);
      expect(everyApi(apiUrls.map((_, api) => recoveryAfter(load.invitations, freezeAt, freezeEnd, api)))).toBeLessThanOrEqual(10_000);
    });
    console.log(`HA tier measurements (failovers):\n${measured.join('\n')}`);
    if (process.env.DEBUG_HA) writeFileSync('/tmp/ha-load.json', JSON.stringify({ invitations: load.invitations, reads: load.reads, pgTimeline, redisTimeline, phases: { switchoverAt, hostLossAt, redisKillAt, freezeAt } }));
    for (const check of checks) check();

    // ---------------------------------------------------------------- what must hold
    const attempts = load.invitations.flatMap((invitation) => invitation.attempts);
    const acknowledged = load.invitations.filter((invitation) => invitation.acknowledgedAt !== null);
    // Every invitation started was acknowledged in the end (the client retried it with its key).
    expect(load.invitations.filter((invitation) => invitation.acknowledgedAt === null).map((invitation) => ({ email: invitation.email, attempts: invitation.attempts }))).toEqual([]);
    // No request waited more than 10 s, reads included; every answer was a documented one.
    const slowest = Math.max(...attempts.map((attempt) => attempt.tookMs), ...load.reads.map((read) => read.tookMs));
    expect(slowest).toBeLessThan(10_000);
    expect(attempts.filter((attempt) => ![200, 409, 429, 500].includes(attempt.status)).map(({ status, code, tookMs }) => ({ status, code, tookMs }))).toEqual([]);
    for (const attempt of attempts.filter((entry) => entry.status === 500)) expect({ code: attempt.code, retryAfter: attempt.retryAfter !== null }).toEqual({ code: 'server_error', retryAfter: true });
    // Every read that began after its write was acknowledged and was answered saw it, whoever served it.
    const readsAnswered = load.reads.filter((read) => read.status === 200);
    expect(load.reads.filter((read) => read.status === 200 && !read.saw)).toEqual([]);
    // And the standby served a real share of them: before the switchover most, after it some again
    // (the old primary back as the standby); after the host loss there is no standby left.
    const steady = servedShare(minus(servedBeforeSwitchover, servedAtStart));
    const switchover = servedShare(minus(servedAfterSwitchover, servedBeforeSwitchover));
    const later = servedShare(minus(servedAtEnd, servedAfterSwitchover));
    measured.push(`public reads served by the standby / the primary: before the switchover ${steady.replica} / ${steady.primary}, `
      + `switchover phase ${switchover.replica} / ${switchover.primary}, host loss and Redis phases ${later.replica} / ${later.primary}; `
      + `all phases by reason ${JSON.stringify(minus(servedAtEnd, servedAtStart))}; wait before a standby read: ${await standbyWaits()}`);
    expect(steady.replica).toBeGreaterThanOrEqual(10);
    expect(steady.replica).toBeGreaterThan(steady.primary * 3);
    expect(switchover.replica).toBeGreaterThan(0);

    // Exactly once in the events feed (a read model of the log), in the log, in the outbox, delivered once.
    const emails = new Set(acknowledged.map((invitation) => invitation.email));
    const feed = new Map<string, number>();
    let cursor: string | null = null;
    for (;;) {
      const page = await request(`${apiUrls[0]}/v1/events?type=candidateInvited&limit=100${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`, { headers: auth });
      expect(page.status).toBe(200);
      for (const envelope of page.body.data as { data: { invitation?: { email?: string } } }[]) {
        const email = envelope.data.invitation?.email ?? '';
        feed.set(email, (feed.get(email) ?? 0) + 1);
      }
      if (!page.body.meta.hasMore) break;
      cursor = page.body.meta.nextCursor as string;
    }
    expect([...emails].filter((email) => feed.get(email) !== 1)).toEqual([]);
    expect(feed.size).toBe(emails.size);
    const log = new pg.Client({ connectionString: `postgres://postgres@${await formation.primary()}/test` });
    await log.connect();
    const inLog = Number((await log.query<{ count: string }>("SELECT count(*) AS count FROM events WHERE type = 'CandidateInvited'")).rows[0]?.count);
    await log.end();
    expect(inLog).toBe(emails.size);
    // The read model that decides: inviting them all again finds every one already invited.
    const everyone = [...emails];
    for (let from = 0; from < everyone.length; from += 100) {
      const again = await request(`${apiUrls[1]}/v1/assessments/${assessmentId}/invitations`, {
        method: 'POST', headers: auth, body: { candidates: everyone.slice(from, from + 100).map((email) => ({ email })) },
      });
      expect(again.status).toBe(200);
      expect((again.body.data as { status: string }[]).filter((entry) => entry.status !== 'already_invited')).toEqual([]);
    }
    await eventually(async () => {
      let wrong = 0;
      for (const email of everyone) {
        const outbox = await internal('GET', `/internal/emails?to=${encodeURIComponent(email)}`);
        if (outbox.status !== 200 || outbox.body.data.length !== 1) wrong += 1;
      }
      return wrong;
    }, (wrong) => wrong === 0, 60_000, 'one e-mail for every acknowledged invitation');
    const deliveries = (): Map<string, Set<string>> => {
      const ids = new Map<string, Set<string>>();
      for (const received of receiver.requests) {
        const email = invitedEmail(received.body);
        if (email === null) continue;
        const set = ids.get(email) ?? new Set<string>();
        set.add(String(received.headers['x-webhook-id']));
        ids.set(email, set);
      }
      return ids;
    };
    await eventually(async () => everyone.filter((email) => !deliveries().has(email)).length, (missing) => missing === 0, 90_000, 'a webhook for every acknowledged invitation');
    expect(everyone.filter((email) => deliveries().get(email)?.size !== 1)).toEqual([]);
    const posts = receiver.requests.filter((received) => invitedEmail(received.body) !== null).length;

    // What an operator sees: readiness during the host loss, and which host each process writes to.
    expect(readyDuringHostLoss).toEqual({ status: 503, body: { status: 'unavailable' } });
    expect(liveDuringHostLoss.status).toBe(200);
    const primaryNow = await formation.primary();
    for (const url of apiUrls) {
      // No standby is left (the lost host stays down): public reads are the primary's, and the process is ready.
      expect(await probe(`${url}/health/ready`)).toEqual({ status: 200, body: { status: 'ok' } });
      const metrics = await scrape(url, token);
      expect(metrics.sum('hiring_db_replica')).toBe(0);
      expect(metrics.all('hiring_db_primary', { setting: 'EVENT_STORE_URL', host: primaryNow }).map((sample) => sample.value)).toEqual([1]);
      expect(metrics.sum('hiring_db_primary', { setting: 'EVENT_STORE_URL' })).toBe(1);
      expect(metrics.sum('hiring_failovers_total', { store: 'postgres' })).toBe(2);
      expect(metrics.sum('hiring_failovers_total', { store: 'redis' })).toBe(2);
      expect(metrics.all('hiring_redis_master', { address: await redis.master() }).map((sample) => sample.value)).toEqual([1]);
    }

    // No process exited; one line per problem, never a stack trace; each followed the failovers.
    for (const app of apps) {
      expect({ app: app.name, exitCode: app.child.exitCode }).toEqual({ app: app.name, exitCode: null });
      const output = app.output();
      expect(output).not.toContain('Unhandled');
      expect(output.split('\n').filter((line) => /^\s+at /.test(line))).toEqual([]);
      // What an operator sees: one line per change of primary, in every process (docs/operations.md, "High availability").
      const lines = (text: string): number => output.split('\n').filter((line) => line.includes(text)).length;
      expect({ app: app.name, postgres: lines('the database primary changed'), redis: lines('the Redis master changed') }).toEqual({ app: app.name, postgres: 2, redis: 2 });
    }

    const replays = acknowledged.filter((invitation) => invitation.replayed).length;
    const retried = acknowledged.filter((invitation) => invitation.attempts.length > 1).length;
    measured.push(`invitations acknowledged ${acknowledged.length} (${retried} after retries, ${replays} answered by an idempotent replay); `
      + `in the feed ${feed.size}, in the log ${inLog}, e-mails ${everyone.length}, webhook deliveries ${deliveries().size} (${posts} POSTs); `
      + `reads ${load.reads.length} (${readsAnswered.length} answered, all saw their write); slowest request ${seconds(slowest)} (client limit ${seconds(CLIENT_TIMEOUT_MS)})`);
    console.log(`HA tier measurements:\n${measured.join('\n')}`);
  });
});
