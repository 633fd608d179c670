import type { Actor } from './actor.js';
import { idempotentBurst, invite, inviteBurst } from './invite-operations.js';
import { advanceClock, close, complete, deleteCandidate, register, start, unlock, unlockBurst, unlockRush } from './progress-operations.js';
import { read } from './read-operations.js';
import type { TierSettings } from './settings.js';

const OPERATIONS = {
  invite, inviteBurst, idempotentBurst, register, start, complete, unlock, unlockBurst, unlockRush, deleteCandidate, close, read, advanceClock,
} satisfies Record<string, (actor: Actor) => Promise<unknown>>;

type Operation = keyof typeof OPERATIONS;

/** How often each operation is picked; the clock moves only in a soak, where the sandbox allowance would otherwise run dry for good. */
const weights = (soak: boolean): Record<Operation, number> => ({
  invite: 24, inviteBurst: 3, idempotentBurst: 2, register: 15, start: 5, complete: 12, unlock: 6, unlockBurst: 4, unlockRush: 0.5,
  deleteCandidate: 5, close: 1, read: 18, advanceClock: soak ? 0.3 : 0,
});

/**
 * Runs the workload: every client picks operations with its own seeded PRNG until the shared budget
 * (a number of operations, or seconds) is spent. Which target an operation picks depends on what the
 * clients have learned so far, so a seed repeats the mix, not the exact interleaving.
 */
export const runWorkload = async (
  actors: Actor[], settings: TierSettings, progress: { done: number; finished: boolean } = { done: 0, finished: false },
): Promise<{ operations: number; ms: number }> => {
  const startedAt = Date.now();
  const deadline = settings.seconds === null ? Infinity : startedAt + settings.seconds * 1000;
  let remaining = settings.seconds === null ? settings.operations : Infinity;
  let done = 0;
  const table = weights(settings.soak);
  await Promise.all(actors.map(async (actor) => {
    while (remaining > 0 && Date.now() < deadline) {
      remaining -= 1;
      const operation = actor.random.weighted(table);
      await OPERATIONS[operation](actor);
      done += 1;
      progress.done = done;
    }
  }));
  progress.finished = true;
  return { operations: done, ms: Date.now() - startedAt };
};
