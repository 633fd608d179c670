import { randomBytes, randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import { Redis } from 'ioredis';
import pg from 'pg';

/**
 * The plain design: what a team would write instead of this service, doing only the durable part of
 * the same work on the same PostgreSQL and Redis (`node:http` + `pg` + `ioredis`, no framework). The
 * second baseline of `npm run bench` (issue 40):
 * - an invitation is one Redis round trip for the rate limit (120 a minute per key, one script) and
 *   one transaction writing the invitation row and an e-mail outbox row;
 * - a read is one SELECT of 50 stored JSON rows, answered in the list shape.
 * It authenticates nothing, keeps no log, no audit link, no idempotency record, no read model: the
 * ratio against it is the price of everything else the service does.
 * Env: DATABASE_URL, SCHEMA (made and filled by the bench), REDIS_URL, PORT.
 */
const schema = process.env.SCHEMA ?? 'plain';
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
pool.on('error', () => undefined);
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });

const RATE_LIMIT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

await pool.query(`
  CREATE SCHEMA IF NOT EXISTS ${schema};
  CREATE TABLE IF NOT EXISTS ${schema}.invitations (
    id text PRIMARY KEY, assessment_id text NOT NULL, email text NOT NULL, first_name text NOT NULL, surname text NOT NULL,
    token text NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), UNIQUE (assessment_id, email));
  CREATE TABLE IF NOT EXISTS ${schema}.email_outbox (id bigserial PRIMARY KEY, invitation_id text NOT NULL, address text NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
  CREATE TABLE IF NOT EXISTS ${schema}.results (id text PRIMARY KEY, completed_at timestamptz NOT NULL, doc jsonb NOT NULL);
  CREATE INDEX IF NOT EXISTS results_completed ON ${schema}.results (completed_at, id);
`);

const send = (response: ServerResponse, status: number, body: unknown): void => {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
};

const readBody = (request: IncomingMessage): Promise<string> => new Promise((resolve, reject) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  request.on('error', reject);
});

interface Candidate {
  email?: unknown;
  firstName?: unknown;
  surname?: unknown;
}

const invite = async (request: IncomingMessage, response: ServerResponse, assessmentId: string): Promise<void> => {
  const key = String(request.headers.authorization ?? '').slice('Bearer '.length).split(':')[0] ?? '';
  const count = Number(await redis.eval(RATE_LIMIT, 1, `plain:ratelimit:{${key}}`, 60_000));
  if (count > 120) return send(response, 429, { error: { code: 'rate_limited', message: 'Too many requests' } });
  let candidates: Candidate[];
  try {
    candidates = (JSON.parse(await readBody(request)) as { candidates: Candidate[] }).candidates;
  } catch {
    return send(response, 400, { error: { code: 'invalid_json', message: 'The body is not JSON' } });
  }
  const client = await pool.connect();
  const data: unknown[] = [];
  let invited = 0;
  try {
    await client.query('BEGIN');
    for (const candidate of candidates) {
      const email = String(candidate.email ?? '').trim().toLowerCase();
      const id = `inv_${randomUUID()}`;
      const token = randomBytes(16).toString('base64url');
      const inserted = await client.query(
        `INSERT INTO ${schema}.invitations (id, assessment_id, email, first_name, surname, token) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (assessment_id, email) DO NOTHING`,
        [id, assessmentId, email, String(candidate.firstName ?? ''), String(candidate.surname ?? ''), token],
      );
      if (inserted.rowCount === 1) {
        await client.query(`INSERT INTO ${schema}.email_outbox (invitation_id, address) VALUES ($1, $2)`, [id, email]);
        invited += 1;
        data.push({ email, status: 'invited', invitationId: id, invitationUrl: `http://127.0.0.1/invitations/${assessmentId}/${token}` });
      } else {
        data.push({ email, status: 'already_invited', invitationId: null, invitationUrl: null });
      }
    }
    await client.query('COMMIT');
    client.release();
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release();
    throw error;
  }
  send(response, 200, { data, meta: { assessmentId, invited, alreadyInvited: data.length - invited, failed: 0 } });
};

const results = async (response: ServerResponse, url: URL): Promise<void> => {
  const limit = Math.min(100, Math.max(1, Number(url.searchParams.get('limit') ?? 50)));
  const rows = await pool.query<{ doc: unknown }>(`SELECT doc FROM ${schema}.results ORDER BY completed_at, id LIMIT $1`, [limit]);
  send(response, 200, { data: rows.rows.map((row) => row.doc), meta: { nextCursor: null } });
};

const INVITATIONS = /^\/v1\/assessments\/([^/]+)\/invitations$/;

const server = createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const invitation = INVITATIONS.exec(url.pathname);
  const work = request.method === 'POST' && invitation ? invite(request, response, decodeURIComponent(invitation[1] ?? ''))
    : request.method === 'GET' && url.pathname === '/v1/results' ? results(response, url)
      : Promise.resolve(send(response, 404, { error: { code: 'not_found', message: 'Not found' } }));
  work.catch(() => {
    if (!response.headersSent) send(response, 500, { error: { code: 'server_error', message: 'Something went wrong' } });
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 3998), '127.0.0.1');

const stop = (): void => {
  server.close();
  void Promise.allSettled([pool.end(), redis.quit()]).finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
