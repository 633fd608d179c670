import { type HttpAnswer, internal, request } from './client.js';
import { startService, type RunningService } from './service.js';

/**
 * Shared fixtures of the read-side end-to-end suites (test/reads-*.e2e.spec.ts): a running service,
 * workspaces with a pool of API keys per mode (reads are many, the rate limit is 120 a minute per key),
 * and the candidate's side of the world driven through the internal application.
 */

export const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Fails with the whole answer in the message, so a wrong status explains itself. */
export const expectStatus = (answer: HttpAnswer, status: number, what = ''): HttpAnswer => {
  if (answer.status !== status) throw new Error(`${what} expected HTTP ${status}, got ${answer.status}: ${answer.text}`);
  return answer;
};

export interface Credential {
  id: string;
  key: string;
  secret: string;
  mode: 'live' | 'sandbox';
  /** `key:secret` */
  credential: string;
}

/** Round-robins over several keys of one workspace and mode; every key reads the same data. */
export class KeyPool {
  private next = 0;
  constructor(private readonly service: RunningService, readonly keys: Credential[], private readonly base = '') {}

  credential(): string {
    const key = this.keys[this.next % this.keys.length];
    this.next += 1;
    if (!key) throw new Error('empty key pool');
    return key.credential;
  }

  get(path: string, extra: Record<string, string> = {}): Promise<HttpAnswer> {
    return request(`${this.service.baseUrl}${this.base}${path}`, { headers: { authorization: `Bearer ${this.credential()}`, ...extra } });
  }

  post(path: string, body: unknown, extra: Record<string, string> = {}): Promise<HttpAnswer> {
    return request(`${this.service.baseUrl}${this.base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${this.credential()}`, ...extra }, body });
  }

  /** The same keys on another base path (ALT_BASE_PATH). */
  on(base: string): KeyPool {
    return new KeyPool(this.service, this.keys, base);
  }

  /** GET expecting 200; returns the body. */
  async ok(path: string): Promise<any> {
    return expectStatus(await this.get(path), 200, `GET ${path}`).body;
  }

  /** Follows `meta.nextCursor` to the end; every page checked. */
  async all(path: string, onPage?: (page: any) => Promise<void> | void): Promise<any[]> {
    const rows: any[] = [];
    const separator = path.includes('?') ? '&' : '?';
    let cursor: string | null = null;
    for (let pages = 0; ; pages += 1) {
      if (pages > 200) throw new Error(`too many pages for ${path}`);
      const body = await this.ok(cursor === null ? path : `${path}${separator}cursor=${encodeURIComponent(cursor)}`);
      rows.push(...body.data);
      if (onPage) await onPage(body);
      cursor = body.meta.nextCursor;
      if (cursor === null) return rows;
      if (typeof cursor !== 'string' || cursor.length === 0) throw new Error(`nextCursor must be a string or null, got ${JSON.stringify(cursor)}`);
    }
  }
}

export interface Workspace {
  id: string;
  live: KeyPool;
  sandbox: KeyPool;
}

export interface Scores {
  scorePercentage: number;
  speedCompleted: number;
  questionsAnswered: number;
  questionsCorrect: number;
  questionsIncorrect: number;
  questionsTotal: number;
  result?: string | null;
  scores?: Record<string, unknown> | null;
}

export const defaultScores = (n = 0): Scores => ({
  scorePercentage: 50 + n, speedCompleted: 300 + n, questionsAnswered: 10, questionsCorrect: 6, questionsIncorrect: 4, questionsTotal: 12,
});

/** The shape of a result while locked (API 2.6 rule). */
export const lockedResult = (r: { id: string; testSlug: string; testName: string; testType?: string; completedAt: string }) => ({
  id: r.id, testSlug: r.testSlug, testName: r.testName, testType: r.testType ?? 'library', completedAt: r.completedAt,
  unlocked: false, unlockedAt: null, scorePercentage: null, speedCompleted: null, questionsAnswered: null,
  questionsCorrect: null, questionsIncorrect: null, questionsTotal: null, result: null, scores: null,
});

export const unlockedResult = (
  r: { id: string; testSlug: string; testName: string; testType?: string; completedAt: string },
  unlockedAt: string,
  s: Scores,
) => ({
  id: r.id, testSlug: r.testSlug, testName: r.testName, testType: r.testType ?? 'library', completedAt: r.completedAt,
  unlocked: true, unlockedAt, scorePercentage: s.scorePercentage, speedCompleted: s.speedCompleted, questionsAnswered: s.questionsAnswered,
  questionsCorrect: s.questionsCorrect, questionsIncorrect: s.questionsIncorrect, questionsTotal: s.questionsTotal,
  result: s.result ?? null, scores: s.scores ?? null,
});

export class ReadsWorld {
  readonly internal: ReturnType<typeof internal>;
  private constructor(readonly service: RunningService) {
    this.internal = internal(service);
  }

  static async start(env: Record<string, string> = {}): Promise<ReadsWorld> {
    return new ReadsWorld(await startService(env));
  }

  stop(): Promise<void> {
    return this.service.stop();
  }

  get appUrl(): string {
    return `http://localhost:${new URL(this.service.internalUrl).port}`;
  }

  reportUrl(candidateId: string): string {
    return `${this.appUrl}/candidates/${candidateId}/report`;
  }

  async call(method: string, path: string, body?: unknown, status?: number): Promise<any> {
    const answer = await this.internal.call(method, path, body);
    if (status !== undefined) expectStatus(answer, status, `${method} ${path}`);
    else if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${answer.text}`);
    return answer.body;
  }

  async key(workspaceId: string, mode: 'live' | 'sandbox'): Promise<Credential> {
    const data = (await this.call('POST', `/internal/workspaces/${workspaceId}/api-keys`, { mode }, 201)).data;
    return { id: data.id, key: data.key, secret: data.secret, mode, credential: `${data.key}:${data.secret}` };
  }

  async workspace(options: { name?: string; freeAllowance?: number; keys?: number } = {}): Promise<Workspace> {
    const created = (await this.call('POST', '/internal/workspaces', { name: options.name ?? 'Reads Inc', freeAllowance: options.freeAllowance ?? 0 }, 201)).data;
    await this.call('POST', `/internal/workspaces/${created.id}/verify`, undefined, 200);
    const size = options.keys ?? 2;
    const live: Credential[] = [];
    const sandbox: Credential[] = [];
    for (let i = 0; i < size; i += 1) {
      live.push(await this.key(created.id, 'live'));
      sandbox.push(await this.key(created.id, 'sandbox'));
    }
    return { id: created.id, live: new KeyPool(this.service, live), sandbox: new KeyPool(this.service, sandbox) };
  }

  async assessment(pool: KeyPool, name: string, tests: string[]): Promise<{ id: string; name: string; inviteUrl: string; tests: { slug: string; name: string; type: string }[] }> {
    return expectStatus(await pool.post('/v1/assessments', { name, tests }), 201, 'create assessment').body.data;
  }

  /** Invites one person; returns the invitation entry (status `invited` expected). */
  async invite(pool: KeyPool, assessmentId: string, person: { email: string; firstName?: string; surname?: string }): Promise<any> {
    const answer = expectStatus(await pool.post(`/v1/assessments/${assessmentId}/invitations`, { candidates: [person] }), 200, 'invite');
    return answer.body.data[0];
  }

  /** Invite and register through the personal invitation link; returns the candidate id. */
  async candidate(pool: KeyPool, assessmentId: string, person: { email: string; firstName?: string; surname?: string }): Promise<string> {
    const entry = await this.invite(pool, assessmentId, person);
    if (entry.status !== 'invited') throw new Error(`invitation not sent: ${JSON.stringify(entry)}`);
    const registered = await this.internal.register({ invitationUrl: entry.invitationUrl });
    expectStatus(registered, 201, 'register');
    return registered.body.data.candidateId;
  }

  async start(candidateId: string, assessmentId: string): Promise<void> {
    expectStatus(await this.internal.start(candidateId, assessmentId), 200, 'start');
  }

  async complete(candidateId: string, assessmentId: string, slug: string, scores: Scores = defaultScores()): Promise<{ resultId: string; assessmentCompleted: boolean }> {
    const answer = await this.internal.call('POST', `/internal/candidates/${candidateId}/assessments/${assessmentId}/tests/${slug}/complete`, scores);
    return expectStatus(answer, 201, `complete ${slug}`).body.data;
  }

  async unlock(resultId: string): Promise<{ resultId: string; unlockedAt: string; charged: boolean }> {
    return expectStatus(await this.internal.unlock(resultId), 200, 'unlock').body.data;
  }

  /** Moves the simulated clock forward (SIMULATED_CLOCK=true); returns the new time. */
  async advance(seconds: number): Promise<string> {
    return (await this.call('POST', '/internal/clock', { advanceSeconds: seconds }, 200)).data.now;
  }
}

/** Library tests used by the suites (the catalogue ships with the service). */
export const SLUGS = ['numerical-reasoning', 'verbal-reasoning', 'abstract-reasoning'] as const;

/** A time written by the API shifted by `ms` milliseconds, in the API's own format. */
export const shift = (time: string, ms: number): string => new Date(Date.parse(time) + ms).toISOString();

/** The same instant written with an offset such as `+02:00` or `-05:30`. */
export const withOffset = (time: string, offsetMinutes: number): string => {
  const local = new Date(Date.parse(time) + offsetMinutes * 60_000).toISOString().slice(0, 23);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
};

export const ids = (rows: { id: string }[]): string[] => rows.map((row) => row.id);
