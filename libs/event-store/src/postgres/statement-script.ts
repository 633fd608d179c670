import type pg from 'pg';

/**
 * Several statements sent as ONE simple-protocol query, their results read back by name, not position.
 * Every `add` is one statement; the count is checked, so one that turns out to be two fails loudly.
 */
export class StatementScript {
  private readonly statements: { name: string | null; sql: string }[] = [];

  /** One statement; `name` to read its result back (results of one name come back in order). */
  add(sql: string, name: string | null = null): this {
    this.statements.push({ name, sql });
    return this;
  }

  addAll(sqls: readonly string[], name: string | null = null): this {
    for (const sql of sqls) this.add(sql, name);
    return this;
  }

  get text(): string {
    return this.statements.map(({ sql }) => sql).join('; ');
  }

  /** Runs the script on `client` and answers its results by name. */
  async run(client: pg.ClientBase): Promise<ScriptResults> {
    const answered = (await client.query(this.text)) as unknown as pg.QueryResult | pg.QueryResult[];
    const results = Array.isArray(answered) ? answered : [answered];
    if (results.length !== this.statements.length) {
      throw new Error(`a script of ${this.statements.length} statements got ${results.length} results: one of its parts is not one statement`);
    }
    const byName = new Map<string, pg.QueryResult[]>();
    this.statements.forEach(({ name }, index) => {
      const result = results[index];
      if (name === null || result === undefined) return;
      const named = byName.get(name);
      if (named === undefined) byName.set(name, [result]);
      else named.push(result);
    });
    return new ScriptResults(byName);
  }
}

export class ScriptResults {
  constructor(private readonly byName: ReadonlyMap<string, pg.QueryResult[]>) {}

  /** The results of the statements added under `name`, in the order they were added. */
  all(name: string): pg.QueryResult[] {
    return this.byName.get(name) ?? [];
  }

  /** The rows of the one statement added under `name`. */
  rows<Row>(name: string): Row[] {
    return (this.all(name)[0]?.rows ?? []) as Row[];
  }
}
