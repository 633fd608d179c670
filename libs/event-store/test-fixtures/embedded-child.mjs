// A separate process using the compiled embedded store, for embedded-durability.int.spec.ts.
//   node embedded-child.mjs <compiled index.js> <DATA_DIR> append   appends forever, one line per acknowledged append
//   node embedded-child.mjs <compiled index.js> <DATA_DIR> open     opens DATA_DIR, reports, and stops
// Exit code 3 and a `refused:` line on stderr when DATA_DIR is held by another process.
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { pino } from 'pino';

const [indexPath, dataDir, mode] = process.argv.slice(2);
const { createEmbeddedEventStore, DataDirInUseError } = await import(pathToFileURL(indexPath).href);

function newEvent(index) {
  const id = randomUUID();
  const metadata = { correlationId: id, causationId: null, actor: 'system', requestId: id, time: new Date().toISOString() };
  return { id, type: 'DurabilityProbed', data: { index }, metadata };
}

let embedded;
try {
  embedded = await createEmbeddedEventStore({ dataDir, logger: pino({ level: 'warn' }, pino.destination(2)) });
} catch (error) {
  if (error instanceof DataDirInUseError) {
    process.stderr.write(`refused: ${error.message}\n`);
    process.exit(3);
  }
  throw error;
}

if (mode === 'open') {
  process.stdout.write('opened\n');
  await embedded.stop();
  process.exit(0);
}

process.stdout.write('ready\n');
for (let index = 0; ; index += 1) {
  const event = newEvent(index);
  const result = await embedded.store.appendToStream(`durability-${index % 4}`, [event], { expectedRevision: 'any' });
  // Writes to a pipe are synchronous on Linux: once this line is out, the parent knows of the ack.
  process.stdout.write(`ack ${event.id} ${result.position}\n`);
}
