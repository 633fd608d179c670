/**
 * A position in PostgreSQL's write-ahead log (`pg_lsn`, printed `16/B374D848`) as a number that
 * compares as the positions do. Positions of one server's history only: a primary and its standbys
 * (docs/architecture.md, "Reads on standbys").
 */
export const parseLsn = (text: string): bigint => {
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text);
  if (!match?.[1] || !match[2]) throw new Error(`not a WAL position: ${text}`);
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
};
