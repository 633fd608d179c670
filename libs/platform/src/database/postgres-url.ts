import { StartRefused } from '../config/start-refused.js';

/**
 * PostgreSQL URLs as libpq reads them, host lists included (`postgres://u@h1:p1,h2:p2/db?target_session_attrs=read-write`,
 * as `pg_autoctl show uri` prints), which WHATWG's URL refuses: each host gets a single-host URL of its own.
 */

export type TargetSessionAttrs = 'any' | 'read-write' | 'read-only' | 'primary' | 'standby' | 'prefer-standby';

const TARGET_SESSION_ATTRS: readonly TargetSessionAttrs[] = ['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby'];

export interface PostgresHost {
  host: string;
  port: number;
}

export interface PostgresTarget {
  hosts: readonly PostgresHost[];
  /**
   * Which host a connection may land on. A list without the parameter means `read-write` here (libpq
   * says `any`): this service only ever writes through these URLs, and a standby refuses every write.
   */
  targetSessionAttrs: TargetSessionAttrs;
  /** True when the host is chosen here (a list, or `target_session_attrs` given); false: node-postgres alone, as before. */
  hostList: boolean;
  /** `sslmode` as given, or null. */
  sslmode: string | null;
  /** hosts and database, never the credentials: for logs and metrics. */
  address: string;
  /** The URL for one host, without `target_session_attrs` (node-postgres does not know it), `sslmode` replaced when given. */
  urlFor(host: PostgresHost, sslmode?: string): string;
}

/** Refused configuration; the message names the setting, never the URL (it may hold a password). */
export class PostgresUrlError extends StartRefused {
  constructor(setting: string, problem: string) {
    super(`${setting} ${problem}`);
    this.name = 'PostgresUrlError';
  }
}

const DEFAULT_PORT = 5432;

export const postgresHostKey = (host: PostgresHost): string => (host.host.includes(':') ? `[${host.host}]:${host.port}` : `${host.host}:${host.port}`);

const parseHost = (text: string, setting: string): PostgresHost => {
  const bracketed = /^\[([^\]]+)\](?::(\d*))?$/.exec(text);
  const plain = /^([^:[\]]*)(?::(\d*))?$/.exec(text);
  const match = bracketed ?? plain;
  if (!match) throw new PostgresUrlError(setting, 'has a host it cannot read in its host list');
  const host = decodeURIComponent(match[1] ?? '');
  if (host === '') throw new PostgresUrlError(setting, 'has an empty host in its host list');
  const portText = match[2];
  const port = portText === undefined || portText === '' ? DEFAULT_PORT : Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new PostgresUrlError(setting, 'has a port that is not a number from 1 to 65535');
  return { host, port };
};

/** Reads a `postgres://` or `postgresql://` URL (see `hostList` for a single host without `target_session_attrs`). */
export const parsePostgresUrl = (url: string, setting = 'the PostgreSQL URL'): PostgresTarget => {
  const scheme = /^(postgres(?:ql)?:\/\/)/.exec(url);
  if (!scheme?.[1]) throw new PostgresUrlError(setting, 'must start with postgres:// or postgresql://');
  const afterScheme = url.slice(scheme[1].length);
  const authorityEnd = afterScheme.search(/[/?#]/);
  const authority = authorityEnd === -1 ? afterScheme : afterScheme.slice(0, authorityEnd);
  const rest = authorityEnd === -1 ? '' : afterScheme.slice(authorityEnd);
  const at = authority.lastIndexOf('@');
  const userinfo = at === -1 ? '' : authority.slice(0, at + 1);
  const hostspec = at === -1 ? authority : authority.slice(at + 1);
  const queryStart = rest.indexOf('?');
  const path = queryStart === -1 ? rest : rest.slice(0, queryStart);
  const params = new URLSearchParams(queryStart === -1 ? '' : rest.slice(queryStart + 1).replace(/#.*$/, ''));

  const hosts = hostspec === '' ? [] : hostspec.split(',').map((part) => parseHost(part, setting));
  const given = params.get('target_session_attrs');
  if (given !== null && !TARGET_SESSION_ATTRS.includes(given as TargetSessionAttrs)) {
    throw new PostgresUrlError(setting, `has target_session_attrs=${given}; expected one of ${TARGET_SESSION_ATTRS.join(', ')}`);
  }
  if (hosts.length > 1 || given !== null) {
    if (hosts.length === 0) throw new PostgresUrlError(setting, 'needs a host with target_session_attrs');
    if (params.has('host') || params.has('port') || params.has('hostaddr')) {
      throw new PostgresUrlError(setting, 'lists its hosts both in the address and in host/port parameters; keep one');
    }
  }
  const targetSessionAttrs: TargetSessionAttrs = (given as TargetSessionAttrs | null) ?? (hosts.length > 1 ? 'read-write' : 'any');
  params.delete('target_session_attrs');
  const database = path.replace(/^\//, '');
  return {
    hosts,
    targetSessionAttrs,
    hostList: hosts.length > 1 || given !== null,
    sslmode: params.get('sslmode'),
    address: `${hosts.map(postgresHostKey).join(',')}/${database}`,
    urlFor(host, sslmode) {
      const query = new URLSearchParams(params);
      if (sslmode !== undefined) query.set('sslmode', sslmode);
      const search = query.toString();
      return `${scheme[1]}${userinfo}${postgresHostKey(host)}${path}${search === '' ? '' : `?${search}`}`;
    },
  };
};

/** The kinds of host a URL of the primary (EVENT_STORE_URL, READ_STORE_URL) may ask for. */
export const WRITABLE_TARGETS: readonly TargetSessionAttrs[] = ['any', 'read-write', 'primary'];
