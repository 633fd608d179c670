import type { HttpAnswer } from '../../support/client.js';
import { checkConformance } from '../../support/openapi-conformance.js';
import type { FaultLog } from './faults.js';
import type { Findings } from './findings.js';

/** One answer as a client saw it: `status` 0 when no answer came (connection dropped, timeout). */
export interface Answer {
  status: number;
  body: any;
  text: string;
  headers: Headers;
  /** The error code of an error body, if any. */
  code: string | null;
  /** Attempts before this answer that met a fault and got no answer or a 5xx (faults mode retries them): their outcome is unknown. */
  lostAttempts?: number;
}

export interface CallRecord {
  op: string;
  method: string;
  url: string;
  status: number;
  code: string | null;
  startedAt: number;
  finishedAt: number;
  failure: string | null;
}

/**
 * What an operation accepts besides 2xx: `status` or `status:code` (e.g. `409:already_completed`).
 * Anything else is a finding, even a documented answer: a registration refused with 404 while its
 * invitation stands is a bug the API document allows.
 */
export type Refusals = readonly string[];

const REQUEST_TIMEOUT_MS = 60_000;

/**
 * How long a client retries a request a fault cost it: past a crashed request's idempotency lock (a
 * minute, redis-idempotency-store.ts), after which the key is free and the retry runs.
 */
const RETRY_FOR_MS = 80_000;
const RETRY_PAUSE_MS = 500;

const uncertain = (answer: Answer): boolean => answer.status === 0 || answer.status >= 500;
/** Answers that ask to come back later (API document: Idempotency, rate limits): retried once a fault made the client retry at all. */
const askedToWait = (answer: Answer): boolean => answer.code === 'idempotency_request_in_progress' || answer.status === 429;

/** Marks an answer whose failure met a fault: not a finding, retried. */
const FAULTED = Symbol('faulted');

/**
 * Every HTTP answer of a workload goes through here and is recorded: dropped connections, 5xx,
 * answers the OpenAPI documents do not describe for the operation and refusals the operation does
 * not expect are findings; the counts per operation and status make the printed summary.
 */
export class Recorder {
  readonly records: CallRecord[] = [];

  /** With a fault log (faults mode), a request that met a fault is not a finding: it is retried as the API document says. */
  constructor(private readonly findings: Findings, private readonly faults?: FaultLog) {}

  /**
   * One request, recorded. In faults mode a dropped connection or a 5xx while a fault was under way
   * (or just over) is retried, with the same headers (an invitation's Idempotency-Key included), until a
   * definite answer or RETRY_FOR_MS; the answer says how many attempts were lost on the way.
   */
  async call(op: string, method: string, url: string, init: { headers?: Record<string, string>; body?: unknown; refusals?: Refusals } = {}): Promise<Answer> {
    let answer = await this.attempt(op, method, url, init);
    if (this.faults === undefined) return answer;
    const deadline = Date.now() + RETRY_FOR_MS;
    let lost = 0;
    while (Date.now() < deadline && ((uncertain(answer) && this.tolerated(answer)) || (lost > 0 && askedToWait(answer)))) {
      if (uncertain(answer)) lost += 1;
      const wait = askedToWait(answer) ? 1000 * Math.max(1, Number(answer.headers.get('retry-after') ?? 1)) : RETRY_PAUSE_MS;
      await new Promise((resolve) => setTimeout(resolve, wait));
      answer = await this.attempt(`${op}.retry`, method, url, { ...init, refusals: [...(init.refusals ?? []), '409:idempotency_request_in_progress', '429:rate_limited'] });
    }
    if (lost > 0) answer.lostAttempts = lost;
    return answer;
  }

  /** Whether the last record's failure was a fault's doing (set by `attempt`). */
  private tolerated(answer: Answer): boolean {
    return (answer as Answer & { [FAULTED]?: boolean })[FAULTED] === true;
  }

  private async attempt(op: string, method: string, url: string, init: { headers?: Record<string, string>; body?: unknown; refusals?: Refusals }): Promise<Answer> {
    // A connection of its own per request: the service closes keep-alive connections idle for 5 s, and a
    // loaded test process can reuse one at that very moment ("other side closed") through no fault of
    // the service. So a connection dropped here was dropped by the service while it had the request.
    const headers: Record<string, string> = { connection: 'close', ...init.headers };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const record: CallRecord = { op, method, url, status: 0, code: null, startedAt: Date.now(), finishedAt: 0, failure: null };
    this.records.push(record);
    let answer: Answer;
    try {
      const response = await fetch(url, {
        method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body), signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const text = await response.text();
      let body: any = null;
      try {
        body = text === '' ? null : JSON.parse(text);
      } catch {
        body = text;
      }
      answer = { status: response.status, body, text, headers: response.headers, code: typeof body?.error?.code === 'string' ? body.error.code : null };
    } catch (error) {
      record.finishedAt = Date.now();
      record.failure = `no answer after ${record.finishedAt - record.startedAt} ms: ${String((error as Error).cause ?? error)}`;
      const dropped: Answer = { status: 0, body: null, text: '', headers: new Headers(), code: null };
      if (this.faults?.covers(record.startedAt, record.finishedAt)) return Object.assign(dropped, { [FAULTED]: true });
      this.findings.add('no dropped connection', `${op}: ${method} ${url} ${record.failure}`);
      return dropped;
    }
    record.finishedAt = Date.now();
    record.status = answer.status;
    record.code = answer.code;
    this.judge(record, answer, init.refusals ?? []);
    return answer;
  }

  private judge(record: CallRecord, answer: Answer, refusals: Refusals): void {
    const where = `${record.op}: ${record.method} ${record.url} answered ${answer.status}`;
    if (answer.status >= 500) {
      record.failure = 'server error';
      if (this.faults?.covers(record.startedAt, record.finishedAt)) {
        Object.assign(answer, { [FAULTED]: true });
        return;
      }
      this.findings.add('no 5xx answer', `${where} ${answer.text.slice(0, 300)}`);
      return;
    }
    try {
      checkConformance(record.method, record.url, answer as HttpAnswer);
    } catch (error) {
      record.failure = 'undocumented';
      this.findings.add('every answer documented for its operation', String((error as Error).message).slice(0, 400));
      return;
    }
    if (answer.status < 300) return;
    if (!refusals.includes(String(answer.status)) && !refusals.includes(`${answer.status}:${answer.code}`)) {
      record.failure = 'unexpected refusal';
      this.findings.add('only the refusals an operation can meet', `${where} ${answer.text.slice(0, 300)}`);
    }
  }

  /** Counts per operation and status, one line per operation. */
  summary(): string {
    const byOp = new Map<string, Map<string, number>>();
    for (const record of this.records) {
      const statuses = byOp.get(record.op) ?? new Map<string, number>();
      const key = record.status === 0 ? 'dropped' : record.code ? `${record.status} ${record.code}` : String(record.status);
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      byOp.set(record.op, statuses);
    }
    const width = Math.max(...[...byOp.keys()].map((op) => op.length), 10);
    return [...byOp].sort(([a], [b]) => a.localeCompare(b)).map(([op, statuses]) =>
      `  ${op.padEnd(width)} ${[...statuses].sort(([a], [b]) => a.localeCompare(b)).map(([status, count]) => `${status} ×${count}`).join(', ')}`).join('\n');
  }
}
