import { isDeepStrictEqual } from 'node:util';
import type { Deployment } from './deployment.js';
import type { Findings } from './findings.js';
import type { LogFacts } from './log.js';
import type { Answer, Recorder } from './recorder.js';
import { MODES, type Mode, type World, type WorkspaceWorld, inParallel } from './world.js';

export interface Read {
  status: number;
  body: any;
}

/** API 1.2.0: every completion by updatedAt, oldest first (the check of updatedAt, and the rebuild comparison). */
export const COMPLETIONS_BY_UPDATE = '/v1/completions?updated_since=2000-01-01&order=asc';

/** What the public API (and the billing list) answered after the workload, keyed `<workspace>:<mode>:<path>`. */
export type Snapshot = Map<string, Read>;

export const snapshotKey = (workspace: WorkspaceWorld, mode: Mode, path: string): string => `${workspace.index}:${mode}:${path}`;

/** The checks' reads: the checker keys taken in turn, both API processes, a 429 waited out (the checks are not what is limited). */
export class Reader {
  private turn = 0;

  constructor(private readonly deployment: Deployment, private readonly recorder: Recorder) {}

  async get(workspace: WorkspaceWorld, mode: Mode, path: string, op = 'check.read'): Promise<Answer> {
    for (;;) {
      this.turn += 1;
      const keys = workspace.checkerKeys[mode];
      const urls = this.deployment.apiUrls();
      const answer = await this.recorder.call(op, 'GET', `${urls[this.turn % urls.length]}${path}`, {
        headers: { authorization: `Bearer ${keys[this.turn % keys.length]}` }, refusals: ['404:not_found', '429:rate_limited'],
      });
      if (answer.status !== 429) return answer;
      await new Promise((resolve) => setTimeout(resolve, 1000 * Math.max(1, Number(answer.headers.get('retry-after') ?? 1))));
    }
  }

  /** Every page of a list (`limit=100`), as one `data` array (to the end: no `nextCursor`, or the feed's `hasMore: false`). */
  async list(workspace: WorkspaceWorld, mode: Mode, path: string): Promise<Read> {
    const rows: unknown[] = [];
    let cursor: string | null = null;
    for (;;) {
      const separator = path.includes('?') ? '&' : '?';
      const answer = await this.get(workspace, mode, `${path}${separator}limit=100${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`, 'check.list');
      if (answer.status !== 200) return { status: answer.status, body: answer.body };
      rows.push(...(answer.body.data as unknown[]));
      cursor = answer.body.meta?.nextCursor ?? null;
      if (cursor === null || answer.body.meta?.hasMore === false) return { status: 200, body: { data: rows } };
    }
  }
}

/** Reads everything the checks and the rebuild comparison look at, for every workspace and mode. */
export const takeSnapshot = async (world: World, facts: LogFacts, deployment: Deployment, recorder: Recorder): Promise<Snapshot> => {
  const reader = new Reader(deployment, recorder);
  const snapshot: Snapshot = new Map();
  const jobs = world.workspaces.flatMap((workspace) => MODES.map((mode) => ({ workspace, mode })));
  await inParallel(jobs, 6, async ({ workspace, mode }) => {
    const keep = (path: string, read: Read) => snapshot.set(snapshotKey(workspace, mode, path), read);
    const single = async (path: string) => {
      const answer = await reader.get(workspace, mode, path);
      keep(path, { status: answer.status, body: answer.body });
    };
    await single('/v1/me');
    for (const list of ['/v1/assessments', '/v1/candidates', '/v1/results', '/v1/completions', '/v1/events']) keep(list, await reader.list(workspace, mode, list));
    keep(COMPLETIONS_BY_UPDATE, await reader.list(workspace, mode, COMPLETIONS_BY_UPDATE));
    for (const { id } of workspace.assessments) {
      await single(`/v1/assessments/${id}`);
      keep(`/v1/candidates?assessment=${id}`, await reader.list(workspace, mode, `/v1/candidates?assessment=${id}`));
      keep(`/v1/assessments/${id}/invitations`, await reader.list(workspace, mode, `/v1/assessments/${id}/invitations`));
    }
    for (const candidate of facts.candidates.values()) {
      if (candidate.workspaceId === workspace.id && candidate.mode === mode) await single(`/v1/candidates/${candidate.id}`);
    }
  });
  for (const workspace of world.workspaces) {
    const billing = await recorder.call('check.billing', 'GET', `${deployment.internalUrl()}/internal/workspaces/${workspace.id}/billing`, {
      headers: { authorization: `Bearer ${deployment.internalToken()}` },
    });
    snapshot.set(snapshotKey(workspace, 'live', 'billing'), { status: billing.status, body: billing.body });
  }
  return snapshot;
};

/** Read models rebuilt from the log answer exactly what the live ones answered. */
export const compareSnapshots = (before: Snapshot, after: Snapshot, findings: Findings): void => {
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const was = before.get(key);
    const is = after.get(key);
    if (!isDeepStrictEqual(was, is)) findings.add('read models equal a rebuild from the log', `${key}: ${firstDifference(was, is, '')}`);
  }
};

/** Where two answers first differ, as a path and both values. */
const firstDifference = (before: unknown, after: unknown, path: string): string => {
  if (before !== null && after !== null && typeof before === 'object' && typeof after === 'object' && Array.isArray(before) === Array.isArray(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    for (const key of keys) {
      const left = (before as Record<string, unknown>)[key];
      const right = (after as Record<string, unknown>)[key];
      if (!isDeepStrictEqual(left, right)) return firstDifference(left, right, `${path}/${key}`);
    }
  }
  const show = (value: unknown) => (value === undefined ? 'nothing' : JSON.stringify(value).slice(0, 160));
  return `${path || '/'} was ${show(before)} before the rebuild, ${show(after)} after`;
};
