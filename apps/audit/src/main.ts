import 'reflect-metadata';
import { loadConfig } from '../../../libs/platform/src/config/config.js';
import { createLogger } from '../../../libs/platform/src/logging/logger.js';
import { allProjections, rebuildReadModels } from '../../../libs/read-models/src/index.js';
import { openStores } from '../../../libs/runtime/src/create-infrastructure.js';
import { runMain } from '../../../libs/runtime/src/process-main.js';
import { progressReporter } from './progress-bar.js';
import { foldStream, verifyLog } from './verify-log.js';

const USAGE = `usage: npm run audit -- <command>
  rebuild                 rebuild every read model from the log into fresh tables and switch over
  verify                  replay the whole log and check positions, revisions, types, metadata and folds
  replay [fromPosition]   print every event in global order (JSON lines)
  history <streamId>      print one stream's events (JSON lines)
  as-of <streamId> <time> the stream's state folded from the events recorded up to <time> (domain time)`;

const json = (value: unknown): string => JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item));

/** The auditors' command line. It opens the stores directly (for the embedded store: stop the service first). */
runMain(async () => {
  const [command, ...args] = process.argv.slice(2);
  const config = loadConfig();
  const logger = createLogger(process.env.LOG_LEVEL || 'warn', 'audit');
  if (!command || !['rebuild', 'verify', 'replay', 'history', 'as-of'].includes(command)) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  const stores = await openStores(config, logger);
  try {
    if (command === 'rebuild') {
      const report = progressReporter('rebuild');
      const result = await rebuildReadModels({
        eventStore: stores.eventStore, documentStore: stores.documents, projections: allProjections, logger,
        onProgress: (p) => report(p.eventsDone, p.headPosition === null ? null : Number(p.headPosition), p.eventsPerSecond, p.etaSeconds),
      });
      report(result.eventsDone, result.eventsDone, result.eventsPerSecond, 0, true);
      process.stdout.write(`rebuilt ${allProjections.length} read models from ${result.eventsDone} events (${Math.round(result.eventsPerSecond)} events/s)\n`);
    } else if (command === 'verify') {
      const head = await stores.eventStore.headPosition();
      const report = progressReporter('verify');
      const started = Date.now();
      const result = await verifyLog(stores.eventStore, (done) => report(done, head === null ? 0 : Number(head), done / Math.max(0.001, (Date.now() - started) / 1000), null));
      process.stdout.write(`${result.events} events in ${result.streams} streams, ${result.problems.length} problems\n`);
      for (const problem of result.problems) process.stdout.write(`  ${problem}\n`);
      if (result.problems.length > 0) process.exitCode = 1;
    } else if (command === 'replay') {
      let after: bigint | null = args[0] ? BigInt(args[0]) - 1n : null;
      for (;;) {
        const batch = await stores.eventStore.readAll({ after, maxCount: 1000 });
        if (batch.length === 0) break;
        for (const event of batch) process.stdout.write(`${json(event)}\n`);
        after = batch.at(-1)?.position ?? after;
      }
    } else if (command === 'history' || command === 'as-of') {
      const [streamId, time] = args;
      if (!streamId || (command === 'as-of' && (!time || Number.isNaN(Date.parse(time))))) throw new Error(USAGE);
      const events = await stores.eventStore.readStream(streamId);
      if (command === 'history') {
        for (const event of events) process.stdout.write(`${json(event)}\n`);
      } else {
        const limit = Date.parse(time ?? '');
        const upTo = events.filter((event) => Date.parse(event.metadata.time) <= limit);
        process.stdout.write(`${json({ streamId, asOf: time, revision: upTo.at(-1)?.revision ?? null, state: foldStream(streamId, upTo) })}\n`);
      }
    }
  } finally {
    await stores.stop();
  }
});
