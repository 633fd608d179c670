import type pg from 'pg';
import type { Findings } from './findings.js';
import type { LogFacts } from './log.js';

/**
 * The events table itself, read with SQL: it holds exactly the events the internal application's
 * export showed for the workload's streams (same ids, revisions and types), and never an address of
 * the workload in the clear (personal data is sealed before it reaches the log).
 */
export const checkStoredLog = async (db: pg.Client, facts: LogFacts, addressSuffix: string, findings: Findings): Promise<void> => {
  const located = (await db.query<{ schema: string }>(
    `SELECT table_schema AS schema FROM information_schema.tables WHERE table_name = 'events' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
  )).rows;
  if (!findings.expect(located.length === 1, 'the log is one events table', () => `found ${located.length}`)) return;
  const table = `"${(located[0]?.schema ?? '').replaceAll('"', '""')}".events`;
  const streams = [...new Set(facts.events.map((event) => event.streamId))];
  const rows = (await db.query<{ id: string; stream_id: string; revision: number; type: string; clear: boolean }>(
    `SELECT id::text, stream_id, revision, type, strpos(data::text, $2) > 0 OR strpos(metadata::text, $2) > 0 AS clear FROM ${table} WHERE stream_id = ANY($1)`,
    [streams, addressSuffix],
  )).rows;
  const stored = new Set(rows.map((row) => `${row.stream_id}#${row.revision} ${row.type} ${row.id}`));
  const exported = new Set(facts.events.map((event) => `${event.streamId}#${event.revision} ${event.type} ${event.id}`));
  const missing = [...exported].filter((event) => !stored.has(event));
  const extra = [...stored].filter((event) => !exported.has(event));
  findings.expect(missing.length === 0 && extra.length === 0, 'the export shows the events table as it is', () =>
    `${missing.length} exported but not stored (${missing.slice(0, 2).join(', ')}), ${extra.length} stored but not exported (${extra.slice(0, 2).join(', ')})`);
  const clear = rows.filter((row) => row.clear);
  findings.expect(clear.length === 0, 'the log never stores an address in the clear', () =>
    `${clear.length} events, e.g. ${clear.slice(0, 3).map((row) => `${row.type} ${row.stream_id}#${row.revision}`).join(', ')}`);
};
