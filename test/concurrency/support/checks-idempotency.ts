import { isDeepStrictEqual } from 'node:util';
import type { FaultLog } from './faults.js';
import type { Findings } from './findings.js';
import type { IdempotentUse, Knowledge } from './knowledge.js';

/**
 * An Idempotency-Key makes one original 200 answer in its workspace: every later 200 is a replay
 * (`Idempotent-Replayed: true`) of the same body from the same mode, answering the original response
 * exactly. The one exception is documented: deleting a test candidate erases the records holding
 * their address, and the same request then runs again (docs/audit.md). An answer is not kept either
 * when one of its addresses was deleted up to a second before the request began (the interceptor's
 * clock margin between the process and the database: invitation-idempotency.interceptor.ts).
 */
const CLOCK_MARGIN_MS = 1_000;

/**
 * Under faults (faults.ts) two more documented cases: a Redis restart loses the records
 * (docs/operations.md, "Redis comes back empty"), so a key used again after one runs again; and an
 * original whose answer a fault took (the client retried and was answered by its replay) is in no
 * client's hands, so a replay of a key with a lost attempt may answer what no client saw.
 */
export const checkIdempotency = (knowledge: Knowledge, findings: Findings, faults?: FaultLog): void => {
  const byKey = new Map<string, IdempotentUse[]>();
  for (const use of knowledge.idempotent) byKey.set(`${use.workspaceId} ${use.key}`, [...(byKey.get(`${use.workspaceId} ${use.key}`) ?? []), use]);
  let rerun = 0;
  let lostWithRedis = 0;
  let replayOfLost = 0;
  for (const [key, uses] of byKey) {
    const answered = uses.filter((use) => use.status === 200);
    const originals = answered.filter((use) => !use.replayed).sort((a, b) => a.startedAt - b.startedAt);
    originals.slice(1).forEach((later, index) => {
      const earlier = originals[index] as IdempotentUse;
      const erased = knowledge.deletions.some((deletion) => deletion.status === 204 && deletion.workspaceId === later.workspaceId
        && earlier.addresses.includes(deletion.email) && deletion.startedAt < later.finishedAt && deletion.finishedAt > earlier.startedAt - CLOCK_MARGIN_MS);
      if (erased) rerun += 1;
      else if ((faults?.redisRestartsBetween(earlier.startedAt, later.finishedAt).length ?? 0) > 0) lostWithRedis += 1;
      else findings.add('an Idempotency-Key makes one original answer', `${key}: originals at ${earlier.startedAt} and ${later.startedAt} (${later.path})`);
    });
    for (const replay of answered.filter((use) => use.replayed)) {
      const original = originals.find((use) => isDeepStrictEqual(use.answer, replay.answer));
      if (original === undefined && uses.some((use) => (use.lostAttempts ?? 0) > 0)) {
        replayOfLost += 1;
        continue;
      }
      if (!findings.expect(original !== undefined, 'a replay answers the original response', () => `${key}: replay ${JSON.stringify(replay.answer).slice(0, 200)}`)) continue;
      findings.expect(isDeepStrictEqual(original?.body, replay.body) && original?.path === replay.path, 'only the same body replays', () => `${key}: replayed for another body`);
      findings.expect(original?.mode === replay.mode, 'a key used in one mode is refused in the other', () => `${key}: ${original?.mode} original replayed to a ${replay.mode} key`);
    }
  }
  if (rerun > 0) findings.note(`idempotency: ${rerun} keyed requests ran again after their address was erased (documented)`);
  if (lostWithRedis > 0) findings.note(`idempotency: ${lostWithRedis} keyed requests ran again after a Redis restart lost their records (documented)`);
  if (replayOfLost > 0) findings.note(`idempotency: ${replayOfLost} replays answered an original whose answer a fault took`);
};
