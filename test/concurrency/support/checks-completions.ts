import { isDeepStrictEqual } from 'node:util';
import type { Findings } from './findings.js';
import type { LogFacts } from './log.js';
import { COMPLETIONS_BY_UPDATE, type Snapshot, snapshotKey } from './snapshot.js';
import { MODES, type Mode, type WorkspaceWorld } from './world.js';

/** What the snapshot reads of each list: the first 100 rows (`/v1/completions` has no cursor). */
const PAGE = 100;

interface LoggedCompletion {
  completedAt: string;
  updatedAt: string;
}

/**
 * The completions of a workspace and mode in the log, by id (`candidateId:assessmentId`): each
 * AssessmentCompleted of a candidate not deleted, its `updatedAt` the later of its `completedAt` and
 * the first unlock of each of the candidate's results on that assessment.
 */
export const loggedCompletions = (facts: LogFacts, workspaceId: string, mode: Mode): Map<string, LoggedCompletion> => {
  const completed = new Map<string, string>();
  const unlockedAt = new Map<string, { completion: string; at: string }>();
  for (const event of facts.events) {
    const { data } = event;
    if (data.workspaceId !== workspaceId) continue;
    const completion = `${data.candidateId}:${data.assessmentId}`;
    if (event.type === 'AssessmentCompleted' && !completed.has(completion)) completed.set(completion, data.completedAt);
    if (event.type === 'ResultUnlocked' && !unlockedAt.has(data.resultId)) unlockedAt.set(data.resultId, { completion, at: data.unlockedAt });
  }
  const completions = new Map<string, LoggedCompletion>();
  for (const [id, completedAt] of completed) {
    const candidate = facts.candidates.get(id.slice(0, id.indexOf(':')));
    if (candidate === undefined || candidate.deleted || candidate.mode !== mode) continue;
    completions.set(id, { completedAt, updatedAt: completedAt });
  }
  for (const { completion, at } of unlockedAt.values()) {
    const logged = completions.get(completion);
    if (logged !== undefined && at > logged.updatedAt) logged.updatedAt = at;
  }
  return completions;
};

/**
 * API 1.2.0 against the log: every completion listed carries the `completedAt` of its
 * AssessmentCompleted and an `updatedAt` that is the later of it and its latest unlock, and
 * `updated_since` from the beginning, ascending, lists the log's completions by (`updatedAt`, id).
 */
export const checkCompletionsUpdatedAt = (workspace: WorkspaceWorld, snapshot: Snapshot, facts: LogFacts, findings: Findings): void => {
  for (const mode of MODES) {
    const logged = loggedCompletions(facts, workspace.id, mode);
    for (const path of ['/v1/completions', COMPLETIONS_BY_UPDATE]) {
      const read = snapshot.get(snapshotKey(workspace, mode, path));
      if (!findings.expect(read?.status === 200, 'the completions list answers', () => `${workspace.id} ${mode} ${path}: ${read?.status}`)) continue;
      for (const row of (read?.body.data ?? []) as { id: string; completedAt: string; updatedAt: string }[]) {
        const expected = logged.get(row.id);
        findings.expect(
          expected !== undefined && row.completedAt === expected.completedAt && row.updatedAt === expected.updatedAt,
          'a completion\'s updatedAt is the later of its completedAt and its latest unlock in the log',
          () => `${workspace.id} ${mode} ${path} ${row.id}: completedAt ${row.completedAt}, updatedAt ${row.updatedAt}; the log: ${JSON.stringify(expected ?? null)}`,
        );
      }
    }
    const byUpdate = snapshot.get(snapshotKey(workspace, mode, COMPLETIONS_BY_UPDATE));
    if (byUpdate?.status !== 200) continue;
    const listed = ((byUpdate.body.data ?? []) as { id: string }[]).map((row) => row.id);
    const expected = [...logged]
      .sort(([a, x], [b, y]) => (x.updatedAt === y.updatedAt ? (a < b ? -1 : 1) : x.updatedAt < y.updatedAt ? -1 : 1))
      .slice(0, PAGE)
      .map(([id]) => id);
    findings.expect(isDeepStrictEqual(listed, expected), 'updated_since lists the log\'s completions by updatedAt', () =>
      `${workspace.id} ${mode}: listed ${listed.slice(0, 5).join(', ')}… (${listed.length}), expected ${expected.slice(0, 5).join(', ')}… (${expected.length})`);
  }
};
