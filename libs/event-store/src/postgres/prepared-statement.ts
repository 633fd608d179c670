import { createHash } from 'node:crypto';

/** Names already made, per prefix: the read paths name their statement at every request. */
const named = new Map<string, Map<string, string>>();
/** Texts remembered at most (per prefix): statements built with values in them are named afresh. */
const REMEMBERED = 1_000;

/**
 * A name for a statement prepared once per connection, derived from its text: the same text gets the
 * same name on one connection, different texts (another schema or table) never share one.
 */
export const statementName = (prefix: string, text: string): string => {
  let names = named.get(prefix);
  if (names === undefined) {
    names = new Map();
    named.set(prefix, names);
  }
  let name = names.get(text);
  if (name === undefined) {
    name = `${prefix}_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
    if (names.size < REMEMBERED) names.set(text, name);
  }
  return name;
};

export interface PreparedStatement {
  /** What `EXECUTE` names. */
  name: string;
  /** The SQL `PREPARE` to run once on each connection that executes it. */
  prepare: string;
}

/** The named statement for `text`, with the types of its parameters ($1, $2, …). */
export const preparedStatement = (prefix: string, text: string, parameterTypes: readonly string[] = []): PreparedStatement => {
  const name = statementName(prefix, text);
  return { name, prepare: `PREPARE ${name}${parameterTypes.length > 0 ? `(${parameterTypes.join(', ')})` : ''} AS ${text}` };
};
