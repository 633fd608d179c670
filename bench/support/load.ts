import { Agent, request as httpRequest } from 'node:http';
import { cpus } from 'node:os';
import { type CpuShares, type CpuWatch, describeCpu, startCpuMeter } from './cpu.js';
import { logger, round } from './log.js';

export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadOptions {
  name: string;
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  concurrency: number;
  /** Measuring window; the load also stops once `request` returns null (no credential left). */
  seconds: number;
  warmupSeconds: number;
  /** The index counts every request, warm-up included. Null: nothing more to send. */
  request: (index: number) => RequestSpec | null;
  /** The status every answer must have (default 200). */
  status?: number;
  /**
   * Checks a body: every warm-up answer and a sample of the measured ones (the first 20, then one
   * in 100), so that the load generator's own parsing does not eat the CPU it shares with the server.
   */
  check?: (body: string) => boolean;
  /** Processes whose CPU time over the measured window is reported (the server, its database backends, Redis). */
  cpu?: CpuWatch[];
}

export interface LoadResult {
  name: string;
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  statuses: Record<string, number>;
  /** Why it stopped early, if it did. */
  stoppedBy: 'time' | 'requests';
  firstError: string | null;
  /** Mean response body size. */
  meanBytes: number;
  /** CPU over the measured window, in cores, per process group (see cpu.ts). */
  cpu: CpuShares;
  /** Requests completed in each second of the measured window. */
  perSecondTimeline: number[];
}

interface Answer {
  status: number;
  body: string;
}

const send = (agent: Agent, base: URL, spec: RequestSpec): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const body = spec.body === undefined ? undefined : Buffer.from(spec.body);
    const headers: Record<string, string> = { ...spec.headers };
    if (body) {
      headers['content-type'] ??= 'application/json';
      headers['content-length'] = String(body.length);
    }
    const req = httpRequest({ host: base.hostname, port: base.port, method: spec.method, path: spec.path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(30_000, () => req.destroy(new Error('request timed out after 30 s')));
    req.on('error', reject);
    req.end(body);
  });

const percentile = (sorted: Float64Array, share: number): number => {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1));
  return sorted[index] ?? 0;
};

/**
 * A bounded closed-loop load: `concurrency` requests in flight on keep-alive sockets, a warm-up
 * that is not recorded, then `seconds` of measured requests (latency of each, p50/p99).
 */
export const runLoad = async (options: LoadOptions): Promise<LoadResult> => {
  const base = new URL(options.baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency, maxFreeSockets: options.concurrency });
  const expected = options.status ?? 200;
  const ok = (status: number, body: string, sampled: boolean): boolean =>
    status === expected && (!sampled || options.check === undefined || options.check(body));
  let index = 0;
  let exhausted = false;
  const nextSpec = (): RequestSpec | null => {
    if (exhausted) return null;
    const spec = options.request(index);
    index += 1;
    if (spec === null) exhausted = true;
    return spec;
  };

  // Warm-up: same load, nothing recorded except failures (which abort the run: a broken set-up).
  const warmupEnd = performance.now() + options.warmupSeconds * 1000;
  let warmupFailure: string | null = null;
  await Promise.all(Array.from({ length: options.concurrency }, async () => {
    while (performance.now() < warmupEnd && warmupFailure === null) {
      const spec = nextSpec();
      if (!spec) return;
      const answer = await send(agent, base, spec);
      if (!ok(answer.status, answer.body, true)) warmupFailure = `${spec.method} ${spec.path} -> ${answer.status} ${answer.body.slice(0, 300)}`;
    }
  }));
  if (warmupFailure !== null) {
    agent.destroy();
    throw new Error(`${options.name}: warm-up request failed: ${warmupFailure}`);
  }

  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let bytes = 0;
  const timeline: number[] = [];
  let firstError: string | null = null;
  const stopCpu = await startCpuMeter(options.cpu ?? []);
  const started = performance.now();
  const end = started + options.seconds * 1000;
  let lastReport = started;
  const report = (final: boolean) => {
    const now = performance.now();
    if (!final && now - lastReport < 2000) return;
    lastReport = now;
    const elapsed = (now - started) / 1000;
    const perSecond = latencies.length / Math.max(elapsed, 0.001);
    logger.info(
      { phase: options.name, requests: latencies.length, requestsPerSec: Math.round(perSecond), errors, etaSeconds: final ? 0 : round(Math.max(0, (end - now) / 1000), 1) },
      `${options.name}: ${latencies.length} requests, ${Math.round(perSecond)} requests/s, ${errors} errors, ${final ? `done in ${elapsed.toFixed(1)}s` : `eta ${Math.max(0, Math.round((end - now) / 1000))}s`}`,
    );
  };
  const timer = setInterval(() => report(false), 2000);
  await Promise.all(Array.from({ length: options.concurrency }, async () => {
    while (performance.now() < end) {
      const spec = nextSpec();
      if (!spec) return;
      const sent = performance.now();
      let status = 0;
      let body = '';
      try {
        ({ status, body } = await send(agent, base, spec));
      } catch (error) {
        body = error instanceof Error ? error.message : String(error);
      }
      const answered = performance.now();
      latencies.push(answered - sent);
      const second = Math.floor((answered - started) / 1000);
      timeline[second] = (timeline[second] ?? 0) + 1;
      bytes += body.length;
      statuses[String(status)] = (statuses[String(status)] ?? 0) + 1;
      const count = latencies.length;
      if (!ok(status, body, count <= 20 || count % 100 === 0)) {
        errors += 1;
        firstError ??= `${spec.method} ${spec.path} -> ${status} ${body.slice(0, 300)}`;
      }
    }
  }));
  clearInterval(timer);
  const seconds = (performance.now() - started) / 1000;
  const cpu = await stopCpu();
  report(true);
  agent.destroy();
  const sorted = Float64Array.from(latencies).sort();
  if (errors > 0) logger.warn({ phase: options.name, errors, firstError }, `${options.name}: ${errors} failed requests`);
  return {
    name: options.name,
    requests: latencies.length,
    errors,
    seconds: round(seconds, 2),
    perSecond: round(latencies.length / seconds, 1),
    p50Ms: round(percentile(sorted, 0.5), 2),
    p99Ms: round(percentile(sorted, 0.99), 2),
    maxMs: round(sorted.at(-1) ?? 0, 2),
    statuses,
    stoppedBy: exhausted ? 'requests' : 'time',
    firstError,
    meanBytes: latencies.length === 0 ? 0 : Math.round(bytes / latencies.length),
    cpu,
    perSecondTimeline: Array.from(timeline, (value) => value ?? 0),
  };
};

/**
 * API keys are limited to 120 requests a minute each (not configurable), so a load spreads its
 * requests over many keys: each credential serves `perKey` requests, then the next one takes over.
 */
export class CredentialPool {
  private used = 0;

  constructor(private readonly credentials: readonly string[], private readonly perKey = 100) {}

  /** `Bearer key:secret`, or null once every key has served its share. */
  next(): string | null {
    const credential = this.credentials[Math.floor(this.used / this.perKey)];
    if (credential === undefined) return null;
    this.used += 1;
    return `Bearer ${credential}`;
  }

  get remaining(): number {
    return this.credentials.length * this.perKey - this.used;
  }

  /** The credentials not handed out yet (their whole minute's allowance left), for another load. */
  unused(): string[] {
    return this.credentials.slice(Math.ceil(this.used / this.perKey));
  }
}

/** A load's `request`: `GET path` with the pool's next credential each time, null once the pool is used up. */
export const getsWith = (credentials: CredentialPool, path: string) => (): RequestSpec | null => {
  const authorization = credentials.next();
  return authorization === null ? null : { method: 'GET', path, headers: { authorization } };
};

export const describeLoad = (result: LoadResult): string => {
  const server = result.cpu['server'];
  const perRequest = server === undefined ? '' : ` (server ${round((server * 1000) / Math.max(result.perSecond, 0.001), 2)} ms CPU/request)`;
  return `${result.requests} requests in ${result.seconds}s = ${result.perSecond} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, max ${result.maxMs} ms, ` +
    `${formatBytes(result.meanBytes)}/response, errors ${result.errors}${result.stoppedBy === 'requests' ? ' (stopped: no API key places left)' : ''}` +
    `${result.errors > 0 ? `, statuses ${JSON.stringify(result.statuses)}` : ''}\n      ${describeCpu(result.cpu, cpus().length)}${perRequest}`;
};

const formatBytes = (value: number): string => (value >= 1024 ? `${(value / 1024).toFixed(1)} KB` : `${value} B`);
