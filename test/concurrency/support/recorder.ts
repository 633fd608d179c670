import type { HttpAnswer } from '../../support/client.js';
import { checkConformance } from '../../support/openapi-conformance.js';
import type { Findings } from './findings.js';

/** One answer as a client saw it: `status` 0 when no answer came (connection dropped, timeout). */
export interface Answer {
  status: number;
  body: any;
  text: string;
  headers: Headers;
  /** The error code of an error body, if any. */
  code: string | null;
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
 * Every HTTP answer of a workload goes through here and is recorded: dropped connections, 5xx,
 * answers the OpenAPI documents do not describe for the operation and refusals the operation does
 * not expect are findings; the counts per operation and status make the printed summary.
 */
export class Recorder {
  readonly records: CallRecord[] = [];

  constructor(private readonly findings: Findings) {}

  async call(op: string, method: string, url: string, init: { headers?: Record<string, string>; body?: unknown; refusals?: Refusals } = {}): Promise<Answer> {
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
      this.findings.add('no dropped connection', `${op}: ${method} ${url} ${record.failure}`);
      return { status: 0, body: null, text: '', headers: new Headers(), code: null };
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
