import { loadConfig, createLogger } from '#platform';
import { ensureRedis } from '#runtime/local-redis.js';
import { runMain } from '#runtime/process-main.js';

/** `npm start`: the whole service in one process (API, internal app, projections, dispatcher, workers). */
runMain(async () => {
  const logger = createLogger(loadConfig().logLevel, 'standalone');
  // Before anything slow: without Redis and without redis-server the start is refused at once. The
  // rest (Nest, the stores) is imported only then: on a busy machine that alone takes seconds.
  const { config } = await ensureRedis(loadConfig(), logger);
  const { startStandalone } = await import('./start-standalone.js');
  await startStandalone(config, logger);
});
