/*
 * The DDL of the release before migrations (commit 3f1e655), as its code issued it at start for the
 * schemas the service uses (`public` for the log and the audit, `messaging`), with a little data in
 * every table: "a database from before", on which the migrations must start without error.
 */
export const PREVIOUS_RELEASE_DDL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS public.events (
      position bigserial PRIMARY KEY,
      id uuid NOT NULL CONSTRAINT events_id_unique UNIQUE,
      stream_id text NOT NULL,
      revision bigint NOT NULL,
      type text NOT NULL,
      data jsonb NOT NULL,
      metadata jsonb NOT NULL,
      recorded_at timestamptz NOT NULL DEFAULT now(),
      hash text,
      CONSTRAINT events_stream_revision_unique UNIQUE (stream_id, revision)
    )`,
  `CREATE OR REPLACE FUNCTION public.events_assert_appended(ids uuid[]) RETURNS void LANGUAGE plpgsql AS $fn$
    BEGIN
      IF (SELECT count(*) FROM public.events WHERE id = ANY(ids) AND xmin = pg_current_xact_id()::xid) <> cardinality(ids) THEN
        RAISE EXCEPTION 'an append whose expected revision failed runs no statements' USING ERRCODE = 'ES409';
      END IF;
    END $fn$`,
  'CREATE TABLE IF NOT EXISTS "public".audit_links (position bigint PRIMARY KEY, link text NOT NULL)',
  'CREATE TABLE IF NOT EXISTS "public".audit_seals (sequence bigint PRIMARY KEY, seal jsonb NOT NULL)',
  `CREATE TABLE IF NOT EXISTS "public".person_keys (key_id text PRIMARY KEY, workspace_id text NOT NULL, address_hash text NOT NULL,
        sealed_key text, created_at timestamptz NOT NULL DEFAULT now(), destroyed_at timestamptz)`,
  'ALTER TABLE "public".person_keys ADD COLUMN IF NOT EXISTS retired_at timestamptz',
  'CREATE UNIQUE INDEX IF NOT EXISTS person_keys_current ON "public".person_keys (workspace_id, address_hash) WHERE sealed_key IS NOT NULL AND retired_at IS NULL',
  'CREATE INDEX IF NOT EXISTS person_keys_destroyed ON "public".person_keys (workspace_id, destroyed_at) WHERE sealed_key IS NULL',
  'CREATE INDEX IF NOT EXISTS person_keys_retired ON "public".person_keys (workspace_id, retired_at) WHERE retired_at IS NOT NULL',
  `CREATE TABLE IF NOT EXISTS "public".state_snapshots (stream_id text NOT NULL, fold text NOT NULL, revision integer NOT NULL,
      version integer NOT NULL, key_id text NOT NULL, body text NOT NULL, taken_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (stream_id, fold))`,
  'CREATE SCHEMA IF NOT EXISTS "messaging"',
  `CREATE TABLE IF NOT EXISTS "messaging"."webhook_deliveries" (
      id text COLLATE "C" PRIMARY KEY, seq bigserial NOT NULL, workspace_id text COLLATE "C" NOT NULL, event_id text COLLATE "C" NOT NULL,
      event text NOT NULL, url text NOT NULL, envelope json NOT NULL, status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
      attempts integer NOT NULL DEFAULT 0, attempt_log jsonb NOT NULL DEFAULT '[]'::jsonb, last_response_status integer, last_error text,
      sandbox boolean NOT NULL DEFAULT false, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)`,
  'CREATE INDEX IF NOT EXISTS webhook_deliveries__workspace ON "messaging"."webhook_deliveries" (workspace_id, created_at DESC, seq DESC)',
  'CREATE INDEX IF NOT EXISTS webhook_deliveries__address ON "messaging"."webhook_deliveries" (workspace_id, url)',
  'CREATE INDEX IF NOT EXISTS webhook_deliveries__created ON "messaging"."webhook_deliveries" (created_at)',
  `CREATE INDEX IF NOT EXISTS webhook_deliveries__pending ON "messaging"."webhook_deliveries" (updated_at, seq) WHERE status = 'pending'`,
  `CREATE TABLE IF NOT EXISTS "messaging"."email_outbox" (
        id text COLLATE "C" PRIMARY KEY, seq bigserial NOT NULL, event_id text COLLATE "C" NOT NULL UNIQUE,
        recipient text NOT NULL, subject text NOT NULL, body_text text NOT NULL, body_html text NOT NULL,
        sent_at timestamptz NOT NULL, smtp_accepted_at timestamptz)`,
  'CREATE INDEX IF NOT EXISTS email_outbox__recipient ON "messaging"."email_outbox" (recipient, sent_at DESC, seq DESC)',
  'CREATE TABLE IF NOT EXISTS "messaging"."dispatch_checkpoints" (name text COLLATE "C" PRIMARY KEY, position bigint NOT NULL)',
  'CREATE TABLE IF NOT EXISTS public.service_leases (name text COLLATE "C" PRIMARY KEY, holder text NOT NULL, fence bigint NOT NULL, expires_at timestamptz NOT NULL)',
  'CREATE TABLE IF NOT EXISTS public.service_members (member text COLLATE "C" PRIMARY KEY, settings jsonb NOT NULL, expires_at timestamptz NOT NULL)',
];

export const PREVIOUS_RELEASE_DATA: readonly string[] = [
  `INSERT INTO public.events (id, stream_id, revision, type, data, metadata, hash)
    VALUES ('6f1c1c1e-0000-4000-8000-000000000001', 'assessment-a1', 0, 'AssessmentCreated', '{"title":"Old"}', '{"now":"2026-11-01T09:00:00.000Z"}', 'h1')`,
  `INSERT INTO public.audit_links (position, link) VALUES (1, 'link-1')`,
  `INSERT INTO public.audit_seals (sequence, seal) VALUES (1, '{"sequence":1}')`,
  `INSERT INTO public.person_keys (key_id, workspace_id, address_hash, sealed_key) VALUES ('pk_1', 'ws_1', 'abc', 'sealed')`,
  `INSERT INTO public.state_snapshots (stream_id, fold, revision, version, key_id, body) VALUES ('assessment-a1', 'assessment', 0, 1, 'pk_1', 'body')`,
  `INSERT INTO messaging.webhook_deliveries (id, workspace_id, event_id, event, url, envelope, status, created_at, updated_at)
    VALUES ('whd_1', 'ws_1', 'ev_1', 'candidateCreated', 'https://hooks.example.com/in', '{"b":1, "a":2}', 'pending', now(), now())`,
  `INSERT INTO messaging.email_outbox (id, event_id, recipient, subject, body_text, body_html, sent_at)
    VALUES ('em_1', 'ev_1', 'old@example.com', 'Old invitation', 'text', '<p>html</p>', '2026-11-01T09:00:00Z')`,
  `INSERT INTO messaging.dispatch_checkpoints (name, position) VALUES ('dispatcher', 1)`,
  `INSERT INTO public.service_leases (name, holder, fence, expires_at) VALUES ('followers', 'old-worker', 3, now())`,
];
