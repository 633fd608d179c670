import pg from 'pg';
import { type PostgresHost, type PostgresTarget, postgresHostKey } from './postgres-url.js';

/** One host of a list as the locator found it. */
export interface Endpoint {
  host: PostgresHost;
  key: string;
  /** The sslmode that reached this host: libpq's `prefer` and `allow` fall back, node-postgres cannot. */
  sslmode: string | undefined;
}

/** `prefer` (libpq's default) tries TLS, then plain; `allow` the other way; anything else as given. */
export const sslAttempts = (sslmode: string | null): (string | undefined)[] => {
  // pg's own name for "TLS without verifying the certificate", which is what libpq's prefer and allow do.
  if (sslmode === 'prefer') return ['no-verify', 'disable'];
  if (sslmode === 'allow') return ['disable', 'no-verify'];
  return [undefined];
};

const SSL_REFUSED = /does not support SSL|SSL off|no pg_hba\.conf entry .* no encryption|no encryption/i;

export interface Writability {
  inRecovery: boolean;
  readOnly: boolean;
}

export const writability = async (client: pg.ClientBase): Promise<Writability> => {
  const result = await client.query<{ in_recovery: boolean; read_only: string }>(
    "SELECT pg_is_in_recovery() AS in_recovery, current_setting('transaction_read_only') AS read_only",
  );
  const row = result.rows[0];
  if (!row) throw new Error('the writability check returned no row');
  return { inRecovery: row.in_recovery, readOnly: row.read_only === 'on' };
};

export const wanted = (target: PostgresTarget, found: Writability): boolean => {
  switch (target.targetSessionAttrs) {
    case 'any': return true;
    // Both ask for a host that takes writes: the spec makes `primary` a synonym of `read-write`.
    case 'read-write':
    case 'primary': return !found.inRecovery && !found.readOnly;
    case 'read-only': return found.readOnly || found.inRecovery;
    case 'standby':
    case 'prefer-standby': return found.inRecovery;
  }
};

export const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Why a host that answered is not what was asked for, in the words of an error. */
export const hostState = (found: Writability): string => (found.inRecovery ? 'in recovery' : found.readOnly ? 'read-only' : 'not in recovery');

export type ProbeOutcome =
  | { kind: 'wanted'; endpoint: Endpoint; reason: string }
  | { kind: 'unwanted'; endpoint: Endpoint; reason: string }
  | { kind: 'failed'; error: unknown; connectionProblem: boolean; reason: string };

/** Connects to one host on a connection of its own (TLS then plain for `prefer`) and asks what it is. */
export const probeHost = async (target: PostgresTarget, host: PostgresHost, timeoutMs: number): Promise<ProbeOutcome> => {
  const key = postgresHostKey(host);
  let lastError: unknown = null;
  for (const sslmode of sslAttempts(target.sslmode)) {
    const client = new pg.Client({ connectionString: target.urlFor(host, sslmode), connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
    client.on('error', () => undefined);
    try {
      await client.connect();
      const found = await writability(client);
      const endpoint = { host, key, sslmode };
      if (wanted(target, found)) return { kind: 'wanted', endpoint, reason: `${key}: ok` };
      return { kind: 'unwanted', endpoint, reason: `${key}: ${hostState(found)}` };
    } catch (error) {
      lastError = error;
      if (!SSL_REFUSED.test(errorMessage(error))) break;
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  const code = (lastError as { code?: unknown } | null)?.code;
  // Authentication (28xxx) and a missing database (3D000) are the operator's; anything else is the host being away.
  const connectionProblem = !(typeof code === 'string' && /^(28|3D)/.test(code));
  return { kind: 'failed', error: lastError, connectionProblem, reason: `${key}: ${errorMessage(lastError)}` };
};
