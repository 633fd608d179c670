import pg from 'pg';
import { type DocumentStore, createPostgresDocumentStore } from '#read-models';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

const planShape = (node: PlanNode): string => {
  const removed = node['Rows Removed by Filter'] ?? 0;
  const here = `${node['Node Type']}${node['Index Name'] ? ` (${node['Index Name']})` : ''}${removed > 0 ? ` [${removed} rows removed by filter]` : ''}`;
  const children = (node.Plans ?? []).map(planShape);
  return children.length === 0 ? here : `${here} > ${children.join(', ')}`;
};

/**
 * The SQL a read-model query runs (captured from the real query code on a spying pool), then
 * EXPLAIN ANALYZE of it: what the database's share of a request is.
 */
export const explainQuery = async (pool: pg.Pool, query: (store: DocumentStore) => Promise<unknown>): Promise<string> => {
  let captured: { text: string; values: unknown[] } | null = null;
  const spy = { query: (text: string | pg.QueryConfig, values?: unknown[]) => {
    captured = typeof text === 'string' ? { text, values: values ?? [] } : { text: text.text, values: text.values ?? [] };
    return pool.query(text, values);
  } } as unknown as pg.Pool;
  await query(createPostgresDocumentStore({ pool: spy, schema: 'public', deployment: 'multi-process' }));
  const sql = captured as { text: string; values: unknown[] } | null;
  if (sql === null) return 'no query captured';
  const { rows } = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode; 'Planning Time': number; 'Execution Time': number }] }>(
    `EXPLAIN (ANALYZE, FORMAT JSON) ${sql.text}`, sql.values,
  );
  const [plan] = rows[0]?.['QUERY PLAN'] ?? [];
  if (!plan) return 'no plan';
  return `planning ${plan['Planning Time'].toFixed(2)} ms + execution ${plan['Execution Time'].toFixed(2)} ms: ${planShape(plan.Plan)}`;
};
