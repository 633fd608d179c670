import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { pino } from 'pino';
import { IntegrityEventStore, LogSealer, SealStore, createPostgresEventStore, integrityKeys } from '#event-store';
import type { EventStore, NewEvent } from '#event-store';
import type { BenchRow } from './support/results.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const MEASURE_MS = 2000;
const STREAMS = 16;
/** Events linked and sealed in one pass (a busy minute of the service). */
const SEALED_EVENTS = 5_000;

const newEvent = (index: number): NewEvent => {
  const id = randomUUID();
  return {
    id, type: 'Benchmarked', data: { index, note: 'a short payload like most domain events', nested: { list: [1, 2, 3] } },
    metadata: { correlationId: id, causationId: null, actor: 'system', requestId: id, time: new Date().toISOString() },
  };
};

/** One append in flight for MEASURE_MS: appends per second and this process's CPU per append. */
const measureAppends = async (store: EventStore): Promise<{ perSecond: number; cpuMicros: number }> => {
  const prefix = randomUUID();
  const revisions = new Map<string, number>();
  const append = async (index: number): Promise<void> => {
    const streamId = `${prefix}-${index % STREAMS}`;
    const result = await store.appendToStream(streamId, [newEvent(index)], { expectedRevision: revisions.get(streamId) ?? 'no_stream' });
    revisions.set(streamId, result.nextRevision);
  };
  for (let index = 0; index < 50; index += 1) await append(index);
  const cpu = process.cpuUsage();
  const started = performance.now();
  let done = 0;
  while (performance.now() - started < MEASURE_MS) await append(50 + done++);
  const used = process.cpuUsage(cpu);
  return { perSecond: done / ((performance.now() - started) / 1000), cpuMicros: (used.user + used.system) / done };
};

/** Wall time and this process's CPU of `work` over `events` events: per-second and µs per event. */
const measurePass = async (events: number, work: () => Promise<unknown>): Promise<{ perSecond: number; cpuMicros: number }> => {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const used = process.cpuUsage(cpu);
  return { perSecond: events / ((performance.now() - started) / 1000), cpuMicros: (used.user + used.system) / events };
};

/**
 * What the audit trail costs (docs/audit.md): the hash chain on every append (IntegrityEventStore,
 * against the same adapter without it), and linking and sealing what was appended (LogSealer, against
 * reading the same events once, which the sealer must do at least). PostgreSQL server.
 */
export async function benchAudit(log: (line: string) => void): Promise<{ rows: BenchRow[]; details: string[] }> {
  const schema = `audit_bench_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
  const keys = integrityKeys(randomBytes(32).toString('base64url'));
  const rows: BenchRow[] = [];
  const details: string[] = [];
  try {
    const raw = await createPostgresEventStore({ pool, schema, listen: false });
    const hashed = new IntegrityEventStore(raw, keys.eventKey);
    log('audit: appends with and without the hash chain...');
    const without = await measureAppends(raw);
    const withChain = await measureAppends(hashed);
    const perAppend = 1_000_000 / withChain.perSecond - 1_000_000 / without.perSecond;
    rows.push({
      name: 'audit: appends with the hash chain (1 event, PostgreSQL server)',
      measured: `${Math.round(withChain.perSecond)} appends/s, ${Math.round(withChain.cpuMicros)} µs CPU each`,
      baseline: `${Math.round(without.perSecond)} appends/s, ${Math.round(without.cpuMicros)} µs CPU (no chain)`,
      ratio: Number((withChain.perSecond / without.perSecond).toFixed(2)),
    });
    details.push(`hash chain: ${Math.round(perAppend)} µs of wall time and ${Math.round(withChain.cpuMicros - without.cpuMicros)} µs of CPU per append (HMAC-SHA256 of the canonical event, one append in flight)`);

    const seals = new SealStore(pool, schema);
    await seals.prepare();
    const sealer = new LogSealer({ eventStore: hashed, seals, linkKey: keys.linkKey, signer: keys.signer, logger: pino({ level: 'silent' }), intervalMs: 60_000 });
    await sealer.sealPending();
    for (let batch = 0; batch < SEALED_EVENTS / 100; batch += 1) {
      await hashed.appendToStream(`sealed-${batch}`, Array.from({ length: 100 }, (_, index) => newEvent(index)), { expectedRevision: 'no_stream' });
    }
    const sealedFrom = (await seals.latest())?.toPosition ?? null;
    log(`audit: linking and sealing ${SEALED_EVENTS} events...`);
    const reading = await measurePass(SEALED_EVENTS, async () => {
      let after = sealedFrom === null ? null : BigInt(sealedFrom);
      for (;;) {
        const batch = await hashed.readAll({ after, maxCount: 1000 });
        if (batch.length === 0) return;
        after = batch.at(-1)?.position ?? after;
      }
    });
    const sealing = await measurePass(SEALED_EVENTS, () => sealer.sealPending());
    rows.push({
      name: `audit: linking and sealing ${SEALED_EVENTS} events (PostgreSQL server)`,
      measured: `${Math.round(sealing.perSecond)} events/s, ${sealing.cpuMicros.toFixed(1)} µs CPU each`,
      baseline: `${Math.round(reading.perSecond)} events/s read once, ${reading.cpuMicros.toFixed(1)} µs CPU each`,
      ratio: Number((sealing.perSecond / reading.perSecond).toFixed(2)),
    });
    details.push(`linking and sealing: ${(1_000_000 / sealing.perSecond).toFixed(1)} µs of the follower's time per event appended `
      + `(it reads each event twice: to link it, then to seal it), against ${(1_000_000 / reading.perSecond).toFixed(1)} µs to read it once; not on the request path`);
    await raw.close();
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await pool.end();
  }
  return { rows, details };
}
