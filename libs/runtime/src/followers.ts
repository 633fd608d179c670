import type { Logger } from 'pino';
import type { LogSealer } from '#event-store';
import type { ServiceConfig } from '#platform';
import type { ProjectionRunner, ReadModels } from '#read-models';
import { type AuditStores, createSealer } from './audit-wiring.js';
import type { LeasedFollowers } from './infrastructure.js';
import type { CompositeReadSide } from './read-side.js';

interface FollowersDeps {
  mode: 'run' | 'leased' | 'none';
  readModels: ReadModels;
  /** The read models are projected inline too: the runner only catches up. */
  followsInline: boolean;
  stores: { audit: AuditStores };
  config: ServiceConfig;
  logger: Logger;
  readSide: CompositeReadSide;
  /** Stops run last first. */
  onStop: (stop: () => Promise<void>) => void;
}

/**
 * The loops that follow the log: the read models' runner and the sealer. `run`: here, for the
 * process's life; `leased`: a runner and a sealer per holding of the followers' lease (neither
 * restarts once stopped); `none`: writes wait on the checkpoints another process stores.
 */
export const startFollowers = async (deps: FollowersDeps): Promise<LeasedFollowers | null> => {
  const { mode, readModels, stores, config, logger, readSide } = deps;
  const newRunner = () => readModels.newRunner({ followsInline: deps.followsInline });
  if (mode === 'run') {
    const runner = newRunner();
    await runner.start();
    deps.onStop(() => runner.stop());
    readSide.add(readModels.waiterOn(runner));
  } else {
    readSide.add(readModels.storedCheckpointsWaiter());
  }
  // Followers link and seal the log as it grows; every process seals what was appended at a clean stop.
  const sealer = createSealer(stores, config, logger);
  if (mode === 'run') sealer.start();
  deps.onStop(() => sealer.stop());
  if (mode !== 'leased') return null;
  let leased: { runner: ProjectionRunner; sealer: LogSealer } | null = null;
  return {
    start: async () => {
      const started = { runner: newRunner(), sealer: createSealer(stores, config, logger) };
      await started.runner.start();
      started.sealer.start();
      leased = started;
    },
    stop: async () => {
      const running = leased;
      leased = null;
      await running?.runner.stop();
      await running?.sealer.stop();
    },
  };
};
