import 'reflect-metadata';
import { createWriteStream, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { exportLines, fileLines, linesSource, type LogSeal, type LogSource } from '#event-store';
import { loadConfig, createLogger, type ServiceConfig } from '#platform';
import { allProjections, rebuildReadModels } from '#read-models';
import { runMain } from '#runtime/process-main.js';
import { knownKeys, openAccess } from './audit-access.js';
import { progressReporter } from './progress-bar.js';
import { foldStream, verifyLog } from './verify-log.js';

const USAGE = `usage: npm run audit -- <command>
  verify [--file <export>] [--anchor <kept seal>] [--public-key <key>]
                          recompute every hash chain, link and seal, check positions, revisions, types, metadata and folds;
                          exits 1 and names the first broken link on any finding. --file checks an export offline;
                          --anchor (or --seal) checks that the log still holds everything up to a seal kept outside
  head                    seal every event not sealed yet and print the latest seal: the anchor to keep outside the system
  seal                    the same as head
  export [--out <file>]   the log with its hashes and seals, as JSON lines
  rebuild                 rebuild every read model from the log into fresh tables and switch over
  replay [fromPosition]   print every event in global order (JSON lines)
  history <streamId>      print one stream's events (JSON lines)
  as-of <streamId> <time|position>
                          the stream's state folded from its events up to a domain time or a global position`;

const COMMANDS = ['rebuild', 'verify', 'head', 'seal', 'export', 'replay', 'history', 'as-of'];
const json = (value: unknown): string => JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item));
const option = (args: string[], name: string): string | null => {
  const index = args.indexOf(name);
  return index === -1 ? null : (args[index + 1] ?? null);
};
/** Kept seals (anchors): files holding what `head` printed (one seal a line), or that JSON itself. */
const keptSeals = (args: string[]): LogSeal[] => args.flatMap((arg, index) => {
  if (arg !== '--anchor' && arg !== '--seal') return [];
  const value = args[index + 1];
  if (value === undefined) throw new Error(`${arg} needs a file or a seal`);
  const text = value.trimStart().startsWith('{') ? value : readFileSync(value, 'utf8');
  return text.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as LogSeal);
});

/** The auditors' command line: beside a running service too (through it when it holds the embedded DATA_DIR). */
runMain(async () => {
  const [command, ...args] = process.argv.slice(2);
  const config = loadConfig();
  const logger = createLogger(process.env.LOG_LEVEL || 'warn', 'audit');
  if (!command || !COMMANDS.includes(command)) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  const file = option(args, '--file');
  if (command === 'verify' && file !== null) {
    await verifyCommand(() => linesSource(fileLines(file)), config, args);
    return;
  }
  const access = await openAccess(config, logger);
  try {
    if (command === 'verify') {
      await verifyCommand(() => access.source(), config, args);
    } else if (command === 'seal' || command === 'head') {
      const report = progressReporter('seal');
      const seal = await access.sealNow((done) => report(done, null));
      if (seal === null) throw new Error('the log is empty: nothing to seal');
      process.stdout.write(`${JSON.stringify(seal)}\n`);
    } else if (command === 'export') {
      const source = await access.source();
      const head = await source.head();
      const report = progressReporter('export');
      const out = option(args, '--out');
      const target = out === null ? process.stdout : createWriteStream(out);
      for await (const chunk of exportLines(source, (done) => report(done, head === null ? null : Number(head)))) {
        if (!target.write(chunk)) await once(target, 'drain');
      }
      if (target !== process.stdout) await new Promise<void>((resolve) => target.end(() => resolve()));
    } else if (command === 'rebuild') {
      if (access.stores === null) throw new Error('rebuild opens the stores itself: stop the service holding DATA_DIR first');
      const report = progressReporter('rebuild');
      const result = await rebuildReadModels({
        eventStore: access.stores.eventStore, documentStore: access.stores.documents, projections: allProjections, logger,
        onProgress: (p) => report(p.eventsDone, p.headPosition === null ? null : Number(p.headPosition), p.etaSeconds, false, p.eventsPerSecond),
      });
      report(result.eventsDone, result.eventsDone, 0, true, result.eventsPerSecond);
      process.stdout.write(`rebuilt ${allProjections.length} read models from ${result.eventsDone} events (${Math.round(result.eventsPerSecond)} events/s)\n`);
    } else if (command === 'replay') {
      const from = args[0] ? BigInt(args[0]) : null;
      for await (const batch of (await access.openedSource()).batches()) {
        for (const event of batch) if (from === null || event.position >= from) process.stdout.write(`${json(event)}\n`);
      }
    } else {
      const [streamId, time] = args;
      const byPosition = time !== undefined && /^\d+$/.test(time);
      if (!streamId || (command === 'as-of' && (!time || (!byPosition && Number.isNaN(Date.parse(time)))))) throw new Error(USAGE);
      const events = await access.readStream(streamId);
      if (command === 'history') {
        for (const event of events) process.stdout.write(`${json(event)}\n`);
      } else {
        const limit = byPosition ? BigInt(time ?? '0') : Date.parse(time ?? '');
        const upTo = events.filter((event) => (typeof limit === 'bigint' ? event.position <= limit : Date.parse(event.metadata.time) <= limit));
        const asOf = byPosition ? { position: time } : { time };
        process.stdout.write(`${json({ streamId, asOf, revision: upTo.at(-1)?.revision ?? null, state: foldStream(streamId, upTo) })}\n`);
      }
    }
  } finally {
    await access.stop();
  }
});

async function verifyCommand(openSource: () => Promise<LogSource>, config: ServiceConfig, args: string[]): Promise<void> {
  const keys = knownKeys(config);
  const source = await openSource();
  const eventKey = keys?.eventKey ?? null;
  const kept = keptSeals(args);
  const trustedPublicKey = option(args, '--public-key') ?? keys?.signer.publicKey ?? null;
  const head = await source.head();
  const report = progressReporter('verify');
  const result = await verifyLog(source, { eventKey, linkKey: keys?.linkKey ?? null, trustedPublicKey, keptSeals: kept }, (done) =>
    report(done, head === null ? 0 : Number(head)));
  report(result.events, result.events, 0, true);
  if (eventKey === null) process.stdout.write('no service secret here: hashes and links checked for linkage only, not recomputed (set SERVICE_SECRET)\n');
  process.stdout.write(`${result.events} events in ${result.streams} streams, ${result.seals} seals, ${result.unsealedEvents} events after the last seal, `
    + `${result.unlinkedEvents} after the last link, ${kept.length} anchors, ${result.problems.length} problems\n`);
  if (result.problems.length > 0) process.stdout.write(`first broken link: ${result.problems[0]}\n`);
  for (const problem of result.problems) process.stdout.write(`  ${problem}\n`);
  if (result.problems.length > 0) process.exitCode = 1;
}
