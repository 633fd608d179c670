import pg from 'pg';
import { sqlLiteral } from './sql-literal.js';

describe('sqlLiteral', () => {
  it("writes what pg's escapeLiteral writes, for every awkward character", () => {
    const values = [
      '', 'plain', "O'Brien", "''", 'back\\slash', '\\', "both ' and \\ here", "\\'", "'\\",
      'tab\there, new\nline, return\r', 'été \u{1F600} \u0002', JSON.stringify({ name: "d'Arc", path: 'C:\\temp', quote: '"' }),
    ];
    for (const value of values) expect(sqlLiteral(value)).toBe(pg.escapeLiteral(value));
  });

  it('round-trips through PostgreSQL', async () => {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' });
    await client.connect();
    try {
      const value = "O'Brien \\ C:\\temp '' \\' \u{1F600}";
      const { rows } = await client.query<{ value: string }>(`SELECT ${sqlLiteral(value)}::text AS value`);
      expect(rows[0]?.value).toBe(value);
    } finally {
      await client.end();
    }
  });
});
