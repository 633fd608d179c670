import type { Deployment } from './deployment.js';
import type { Recorder } from './recorder.js';
import type { Random } from './settings.js';

export type Mode = 'live' | 'sandbox';

export const MODES: readonly Mode[] = ['live', 'sandbox'];

export const WEBHOOK_EVENTS = ['candidateCreated', 'candidateInvited', 'assessmentStarted', 'testCompleted', 'assessmentCompleted', 'resultUnlocked'];

const SLUGS = ['numerical-reasoning', 'verbal-reasoning', 'abstract-reasoning', 'critical-thinking', 'big-five-personality'];

export interface AssessmentWorld {
  id: string;
  tests: string[];
  /** Closed by an acknowledged close (the workload stops inviting to it on purpose, mostly). */
  closed: boolean;
}

export interface WorkspaceWorld {
  index: number;
  id: string;
  freeAllowance: number;
  /** One live and one sandbox credential (`key:secret`) per client: the rate limit is per API key. */
  clientKeys: Record<Mode, string>[];
  /** Credentials the checks read with, taken in turn. */
  checkerKeys: Record<Mode, string[]>;
  /** A small pool of addresses of this workspace only, so that invitations collide. */
  addresses: string[];
  /**
   * The first few addresses are invited no more once a deletion of theirs is acknowledged (requests in
   * flight may still invite them): so some deleted people stay deleted, and their erasure is checked.
   */
  oneShot: number;
  retired: Set<string>;
  /** Addresses handed out to hiring waves so far (`r<n>`, outside the small pool). */
  rushed: number;
  assessments: AssessmentWorld[];
  /** Idempotency-Key values of this workspace, shared by its clients (keys belong to the workspace). */
  idempotencyKeys: string[];
}

export interface World {
  seed: number;
  /** Makes addresses, names and keys of this workload unique in the shared Redis and database. */
  tag: string;
  workspaces: WorkspaceWorld[];
}

export const WORLD_SHAPE = { workspaces: 3, freeAllowance: 2, addresses: 16, oneShot: 4, assessments: 4, checkerKeys: 3, idempotencyKeys: 8 };

/** The addresses clients may still invite. */
export const invitable = (workspace: WorkspaceWorld): string[] => workspace.addresses.filter((address) => !workspace.retired.has(address));

/** Whether a deletion of this address retires it (see `oneShot`). */
export const isOneShot = (workspace: WorkspaceWorld, address: string): boolean => workspace.addresses.indexOf(address) < workspace.oneShot;

/** Runs `work` over `items`, `width` at a time. */
export const inParallel = async <T, R>(items: readonly T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> => {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  }));
  return results;
};

const must = (answer: { status: number; text: string }, what: string, status: number): void => {
  if (answer.status !== status) throw new Error(`set-up failed: ${what} answered ${answer.status} ${answer.text.slice(0, 300)}`);
};

/**
 * Workspaces of one workload: verified, a small free allowance, keys for every client and checker,
 * a webhook to the test's receiver for every event, and a few assessments of one to three tests.
 */
export const buildWorld = async (
  seed: number, random: Random, deployment: Deployment, recorder: Recorder, clients: number, webhookUrl: string,
): Promise<World> => {
  const tag = `${seed.toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const internal = (method: string, path: string, body?: unknown) =>
    recorder.call('setup', method, `${deployment.internalUrl()}${path}`, { headers: { authorization: `Bearer ${deployment.internalToken()}` }, body });
  const workspaces = await inParallel(Array.from({ length: WORLD_SHAPE.workspaces }, (_, index) => index), 3, async (index): Promise<WorkspaceWorld> => {
    const created = await internal('POST', '/internal/workspaces', { name: `Concurrency ${tag} ${index}`, freeAllowance: WORLD_SHAPE.freeAllowance });
    must(created, 'workspace creation', 201);
    const id: string = created.body.data.id;
    must(await internal('POST', `/internal/workspaces/${id}/verify`), 'verification', 200);
    must(await internal('PUT', `/internal/workspaces/${id}/webhook`, { url: webhookUrl, events: WEBHOOK_EVENTS }), 'webhook', 200);
    const issue = async (mode: Mode): Promise<string> => {
      const key = await internal('POST', `/internal/workspaces/${id}/api-keys`, { mode });
      must(key, 'API key', 201);
      return `${key.body.data.key}:${key.body.data.secret}`;
    };
    const clientKeys = await inParallel(Array.from({ length: clients }, (_, client) => client), 4, async () => ({ live: await issue('live'), sandbox: await issue('sandbox') }));
    const checkers = await inParallel(Array.from({ length: WORLD_SHAPE.checkerKeys }, (_, n) => n), 3, async () => ({ live: await issue('live'), sandbox: await issue('sandbox') }));
    return {
      index, id, freeAllowance: WORLD_SHAPE.freeAllowance, clientKeys,
      checkerKeys: { live: checkers.map((keys) => keys.live), sandbox: checkers.map((keys) => keys.sandbox) },
      addresses: Array.from({ length: WORLD_SHAPE.addresses }, (_, n) => `p${n}.w${index}.${tag}@example.com`),
      oneShot: WORLD_SHAPE.oneShot,
      retired: new Set(),
      rushed: 0,
      assessments: [],
      idempotencyKeys: Array.from({ length: WORLD_SHAPE.idempotencyKeys }, (_, n) => `cc-${tag}-w${index}-k${n}`),
    };
  });
  for (const workspace of workspaces) {
    for (let n = 0; n < WORLD_SHAPE.assessments; n += 1) {
      const created = await createAssessment(deployment, recorder, random, workspace, 'setup', workspace.clientKeys[0]?.live ?? '');
      if (created === null) throw new Error('set-up failed: assessment creation');
    }
  }
  return { seed, tag, workspaces };
};

/** An assessment of one to three catalogue tests, created through the public API and added to the world. */
export const createAssessment = async (
  deployment: Deployment, recorder: Recorder, random: Random, workspace: WorkspaceWorld, op: string, credential: string,
): Promise<AssessmentWorld | null> => {
  const tests = random.sample(SLUGS, random.int(1, 3));
  const url = `${random.pick(deployment.apiUrls())}/v1/assessments`;
  const answer = await recorder.call(op, 'POST', url, { headers: { authorization: `Bearer ${credential}` }, body: { name: `Role ${workspace.assessments.length}`, tests } });
  if (answer.status !== 201) return null;
  const assessment = { id: answer.body.data.id as string, tests, closed: false };
  workspace.assessments.push(assessment);
  return assessment;
};
