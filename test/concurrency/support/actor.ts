import type { Deployment } from './deployment.js';
import type { Findings } from './findings.js';
import type { Knowledge } from './knowledge.js';
import type { Answer, Recorder, Refusals } from './recorder.js';
import type { Random } from './settings.js';
import type { Mode, World, WorkspaceWorld } from './world.js';

/** One concurrent client of a workload: its own PRNG and keys, the shared world and knowledge. */
export interface Actor {
  client: number;
  random: Random;
  deployment: Deployment;
  recorder: Recorder;
  findings: Findings;
  world: World;
  knowledge: Knowledge;
}

/** A public API call with this client's key of the workspace, through one of the API processes at random. */
export const publicCall = (
  actor: Actor, op: string, workspace: WorkspaceWorld, mode: Mode, method: string, path: string,
  init: { body?: unknown; headers?: Record<string, string>; refusals?: Refusals } = {},
): Promise<Answer> => {
  const credential = workspace.clientKeys[actor.client % workspace.clientKeys.length]?.[mode] ?? '';
  const base = actor.random.pick(actor.deployment.apiUrls()) ?? '';
  return actor.recorder.call(op, method, `${base}${path}`, { ...init, headers: { authorization: `Bearer ${credential}`, ...init.headers } });
};

export const internalCall = (actor: Actor, op: string, method: string, path: string, init: { body?: unknown; refusals?: Refusals } = {}): Promise<Answer> =>
  actor.recorder.call(op, method, `${actor.deployment.internalUrl()}${path}`, { ...init, headers: { authorization: `Bearer ${actor.deployment.internalToken()}` } });

/**
 * A write whose outcome is unknown (no answer or 5xx, or, in faults mode, an attempt lost before the
 * answer a retry got) makes some log checks tolerant of it; counted, and failing anyway outside faults.
 */
export const noteOutcome = (actor: Actor, answer: Answer): void => {
  if (answer.status === 0 || answer.status >= 500 || (answer.lostAttempts ?? 0) > 0) actor.knowledge.unansweredWrites += 1;
};

/** Any candidate a read answers 200 must show real data: `[erased]` belongs to deleted people, who answer 404. */
export const expectNothingErased = (actor: Actor, op: string, answer: Answer): void => {
  if (answer.status === 200 && answer.text.includes('[erased]')) {
    actor.findings.add('reads never show erased personal data', `${op} answered 200 with "[erased]": ${answer.text.slice(0, 300)}`);
  }
};

export const workspaceOf = (actor: Actor, workspaceId: string): WorkspaceWorld | undefined =>
  actor.world.workspaces.find((workspace) => workspace.id === workspaceId);
