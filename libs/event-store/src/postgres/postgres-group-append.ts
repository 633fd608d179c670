import type pg from 'pg';
import type { Deployment } from '#platform';
import { reportAppend, reportStage, tracing } from '#platform/instrumentation/channels.js';
import type { Logger } from 'pino';
import { WrongExpectedRevisionError } from '../event-store.port.js';
import type { AppendResult, InlineProjector, InlineRows, NewEvent, RecordedEvent, StreamAppend } from '../event-store.port.js';
import { appendInTransaction, isStreamRevisionViolation, refusal } from './postgres-append.js';
import { APPEND_REFUSED_STATE, type PostgresTables } from './postgres-schema.js';
import { sqlLiteral } from './sql-literal.js';
import { StatementScript } from './statement-script.js';

/*
 * Group commit: appends that arrive while a transaction is being written go together in the next one, in
 * ONE round trip (BEGIN, the append lock, one INSERT for every stream, NOTIFY, COMMIT as one simple query).
 * The append lock (postgres-append.ts) keeps positions handed out and made visible in commit order. Each
 * caller stays all or nothing: one whose expected revisions do not all hold inserts nothing (the SQL checks
 * by caller); two callers on one stream never share a transaction; a statement error re-runs the callers
 * one by one, so only the one at fault fails. Inline projectors (read models, the e-mail outbox) take two
 * round trips: lock, their reads, the head and the insert; then their writes and COMMIT, all or nothing
 * with the events. A projector that fails sends the group again without them: the followers do it from the log.
 */

interface Waiting {
  appends: StreamAppend[];
  /** The caller's own statements (AppendOptions), run after the insert. */
  statements: readonly string[];
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

interface InsertedRow {
  position: string;
  stream_id: string;
  revision: string;
}

const MAX_CALLERS_PER_TRANSACTION = 64;

/**
 * How long a rehearsal waits for the connections others hold when it starts (followers' reads hand theirs
 * back within milliseconds). One left unrehearsed costs the first append on it a cold backend: the
 * statements prepared and the catalogue read (23 ms of a 57 ms first invitation on PostgreSQL here).
 */
const REHEARSAL_WAIT_MS = 200;

/** A connection from the pool, or null once `withinMs` has passed; one handed over later is handed back at once. */
const connectWithin = async (pool: pg.Pool, withinMs: number): Promise<pg.PoolClient | null> => {
  if (withinMs <= 0) return null;
  const connecting = pool.connect();
  let timer: NodeJS.Timeout | undefined;
  try {
    const client = await Promise.race([connecting, new Promise<null>((resolve) => { timer = setTimeout(resolve, withinMs, null); })]);
    if (client === null) void connecting.then((late) => late.release(), () => undefined);
    return client;
  } finally {
    clearTimeout(timer);
  }
};

const insertSql = (tables: PostgresTables, input: string, returning: string): string => `WITH input AS (
      SELECT (a.item->>'c')::int AS caller, a.ord, a.item->>'s' AS stream_id, a.item->>'k' AS kind, (a.item->>'r')::bigint AS expected, a.item->'e' AS events
      FROM jsonb_array_elements(${input}::jsonb) WITH ORDINALITY AS a(item, ord)
    ), current AS (
      SELECT input.*, (SELECT max(revision) FROM ${tables.events} WHERE stream_id = input.stream_id) AS revision FROM input
    ), accepted AS (
      SELECT caller FROM current GROUP BY caller
      HAVING bool_and(coalesce(kind = 'any' OR (kind = 'no_stream' AND revision IS NULL) OR revision = expected, false))
    )
    INSERT INTO ${tables.events} (id, stream_id, revision, type, data, metadata, recorded_at, hash)
    SELECT (e.event->>'id')::uuid, c.stream_id, coalesce(c.revision, -1) + e.ord, e.event->>'type', e.event->'data', e.event->'metadata',
      coalesce((e.event->'integrity'->>'recordedAt')::timestamptz, now()), e.event->'integrity'->>'hash'
    FROM current c JOIN accepted USING (caller) CROSS JOIN LATERAL jsonb_array_elements(c.events) WITH ORDINALITY AS e(event, ord)
    ORDER BY c.ord, e.ord
    RETURNING ${returning}`;

const headSql = (tables: PostgresTables): string => `SELECT max(position)::text AS head FROM ${tables.events}`;

const lockSql = (tables: PostgresTables): string => `SELECT pg_advisory_xact_lock(${tables.appendLock[0]}, ${tables.appendLock[1]})`;

const commitStatements = (tables: PostgresTables, notify: boolean): string[] => [...(notify ? [`NOTIFY ${tables.notifyChannel}`] : []), 'COMMIT'];

const PLAIN_RETURNING = 'position, stream_id, revision';
const RECORDED_RETURNING = 'position, stream_id, revision, id, recorded_at';

/**
 * The callers' own statements (AppendOptions.statements), after the insert and the refused-caller guard.
 * Statements are not conditional: a refused caller's would commit with the others' (a person key stored
 * or retired for events that never were). So the guard fails the whole transaction when a caller that
 * brings statements got no event of its first stream inserted by this transaction (`xmin`: one committed
 * before, as by a retry, does not count); `failed` then sends the others again. A function of the schema
 * (postgres-schema.ts): a `DO` block cost PGlite 0.37 ms a transaction.
 */
const callersStatements = (tables: PostgresTables, group: readonly Waiting[]): string[] => {
  const ids = group.filter((waiting) => waiting.statements.length > 0).map((waiting) => waiting.appends[0]?.events[0]?.id ?? '');
  const guard = ids.length === 0 ? [] : [`SELECT ${tables.appendedCheck}(ARRAY[${ids.map(sqlLiteral).join(', ')}]::uuid[])`];
  return [...guard, ...group.flatMap((waiting) => waiting.statements)];
};

const isRefusedCaller = (error: unknown): boolean => typeof error === 'object' && error !== null && 'code' in error && error.code === APPEND_REFUSED_STATE;

interface RecordedRow extends InsertedRow {
  id: string;
  recorded_at: Date;
}

/** Whose failure an error of a group with inline projectors is: a projector's, or the store's. */
interface Stage { at: 'projector' | 'store' }

/** What an inline projector made of a group's recorded events: its statements before the end. */
interface Finished { name: string; statements: readonly string[]; onCommitted?: () => void }

const streamsOf = (waiting: Waiting): string[] => waiting.appends.map((append) => append.streamId);

export class GroupAppender {
  private readonly queue: Waiting[] = [];
  private writing = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly tables: PostgresTables,
    private readonly notify: boolean,
    private readonly logger?: Logger,
    /** Prepare the insert once per connection (SQL PREPARE; EXECUTE in the transaction's query). */
    private readonly prepared = false,
    /**
     * `single-process`: every transaction goes through one connection (the embedded store), none can
     * overlap another, so positions are handed out and made visible in order without the append lock.
     */
    deployment: Deployment = 'multi-process',
  ) {
    this.appendLock = deployment === 'multi-process';
    this.begin = this.appendLock ? ['BEGIN', lockSql(tables)] : ['BEGIN'];
  }

  private readonly appendLock: boolean;
  private readonly begin: readonly string[];

  /** Connections that hold this appender's own prepared statements (the inserts and the head). */
  private readonly ownPreparedOn = new WeakSet<pg.PoolClient>();
  /** Connections on which the current projectors' `setup` ran (a new set of projectors starts afresh). */
  private projectorsSetUpOn = new WeakSet<pg.PoolClient>();
  private projectors: readonly InlineProjector[] = [];

  /** Run inside every group transaction from now on (see useInlineProjectors). */
  useProjectors(projectors: readonly InlineProjector[]): void {
    this.projectors = projectors;
    this.projectorsSetUpOn = new WeakSet();
  }

  /**
   * Runs `statements` (PREPAREs) on this connection unless `done` says they ran: in one round trip, or
   * one at a time where another store object on this pool prepared some already (42P05: skipped).
   */
  private async prepareOnce(client: pg.PoolClient, done: WeakSet<pg.PoolClient>, statements: readonly string[]): Promise<void> {
    if (done.has(client)) return;
    const alreadyPrepared = (error: unknown): boolean => (error as { code?: string }).code === '42P05';
    if (statements.length > 0) {
      await client.query(statements.join('; ')).catch(async (error: unknown) => {
        if (!alreadyPrepared(error)) throw error;
        for (const statement of statements) {
          await client.query(statement).catch((failure: unknown) => {
            if (!alreadyPrepared(failure)) throw failure;
          });
        }
      });
    }
    done.add(client);
  }

  /** The insert of a group and the head before it: EXECUTEs of statements prepared on this connection, or the statements themselves. */
  private async ownStatementsOn(client: pg.PoolClient): Promise<{ insert: (input: string, returning: 'plain' | 'recorded') => string; head: string }> {
    if (!this.prepared) {
      return { insert: (input, returning) => insertSql(this.tables, input, returning === 'plain' ? PLAIN_RETURNING : RECORDED_RETURNING), head: headSql(this.tables) };
    }
    await this.prepareOnce(client, this.ownPreparedOn, [
      `PREPARE ${this.statementName('insert_plain')}(text) AS ${insertSql(this.tables, '$1', PLAIN_RETURNING)}`,
      `PREPARE ${this.statementName('insert_recorded')}(text) AS ${insertSql(this.tables, '$1', RECORDED_RETURNING)}`,
      `PREPARE ${this.statementName('head')} AS ${headSql(this.tables)}`,
    ]);
    return { insert: (input, returning) => `EXECUTE ${this.statementName(`insert_${returning}`)}(${input})`, head: `EXECUTE ${this.statementName('head')}` };
  }

  private statementName(statement: 'insert_plain' | 'insert_recorded' | 'head'): string {
    return `es_group_${statement}_${String(this.tables.appendLock[1]).replace('-', 'm')}`;
  }

  append(appends: StreamAppend[], statements: readonly string[] = []): Promise<AppendResult> {
    // A check without events needs the stream's revision back, and a stream named twice needs its
    // appends one after another: the one-caller transaction of postgres-append.ts does both.
    const streams = new Set(appends.map((append) => append.streamId));
    if (appends.length === 0 || streams.size < appends.length || appends.some((append) => append.events.length === 0)) {
      const started = performance.now();
      return appendInTransaction(this.pool, this.tables, appends, this.notify, statements, this.appendLock).finally(() => reportAppend(started, 1));
    }
    return new Promise<AppendResult>((resolve, reject) => {
      this.queue.push({ appends, statements, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length > 0) {
        const group = this.takeGroup();
        const started = performance.now();
        const startTime = Date.now();
        await this.write(group);
        reportAppend(started, group.length);
        if (tracing()) traceGroup(group, startTime, this.projectors.length > 0);
      }
    } finally {
      this.writing = false;
    }
  }

  /** The oldest callers that touch disjoint streams; the rest wait for the next transaction. */
  private takeGroup(): Waiting[] {
    const group: Waiting[] = [];
    const streams = new Set<string>();
    for (let index = 0; index < this.queue.length && group.length < MAX_CALLERS_PER_TRANSACTION;) {
      const waiting = this.queue[index] as Waiting;
      if (streamsOf(waiting).some((streamId) => streams.has(streamId))) {
        index += 1;
        continue;
      }
      for (const streamId of streamsOf(waiting)) streams.add(streamId);
      group.push(waiting);
      this.queue.splice(index, 1);
    }
    return group;
  }

  private async write(group: Waiting[], inline = true): Promise<void> {
    if (inline && this.projectors.length > 0) return this.writeInline(group);
    let rows: InsertedRow[];
    const client = await this.connect(group);
    if (client === null) return;
    try {
      const results = await (await this.plainScript(client, group)).addAll(commitStatements(this.tables, this.notify)).run(client);
      rows = results.rows<InsertedRow>('insert');
      client.release();
    } catch (error) {
      await this.failed(client, group, error, false);
      return;
    }
    await this.settle(group, rows, []);
  }

  /** A group's transaction without inline projectors, up to its end: BEGIN, the append lock, the insert, the callers' statements. */
  private async plainScript(client: pg.PoolClient, group: Waiting[]): Promise<StatementScript> {
    const insert = (await this.ownStatementsOn(client)).insert(sqlLiteral(JSON.stringify(this.inputOf(group))), 'plain');
    return new StatementScript().addAll(this.begin).add(insert, 'insert').addAll(callersStatements(this.tables, group));
  }

  /** The group with the inline projectors; a failure of a projector rolls back and sends the group again without them. */
  private async writeInline(group: Waiting[]): Promise<void> {
    const client = await this.connect(group);
    if (client === null) return;
    const stage: Stage = { at: 'projector' };
    try {
      const { rows, finished } = await this.inlineWork(client, group, stage);
      // A write refused here is the projectors' (the events are in): sent again without them.
      await new StatementScript().addAll(finished.flatMap(({ statements }) => statements)).addAll(commitStatements(this.tables, this.notify)).run(client);
      client.release();
      for (const { onCommitted } of finished) onCommitted?.();
      await this.settle(group, rows, finished.map(({ name }) => name));
    } catch (error) {
      await this.failed(client, group, error, stage.at === 'projector');
    }
  }

  /** Round trip 1 with inline projectors, and each projector's closing statements; `stage`: whose failure an error is. */
  private async inlineWork(client: pg.PoolClient, group: Waiting[], stage: Stage): Promise<{ rows: RecordedRow[]; finished: Finished[] }> {
    const byId = new Map<string, NewEvent>();
    for (const waiting of group) for (const append of waiting.appends) for (const event of append.events) byId.set(event.id, event);
    stage.at = 'projector';
    await this.prepareOnce(client, this.projectorsSetUpOn, this.projectors.flatMap((projector) => projector.setup ?? []));
    const steps = this.projectors.map((projector) => ({ name: projector.name, step: projector.prepare([...byId.values()]) }));
    stage.at = 'store';
    const own = await this.ownStatementsOn(client);
    const insert = own.insert(sqlLiteral(JSON.stringify(this.inputOf(group))), 'recorded');
    const first = new StatementScript().addAll(this.begin);
    for (const { name, step } of steps) for (const statement of step.statements) first.add(statement.sql, statement.name === undefined ? null : `${name}\u0000${statement.name}`);
    first.add(own.head, 'head').add(insert, 'insert').addAll(callersStatements(this.tables, group));
    const results = await first.run(client);
    const headRow = results.rows<{ head: string | null }>('head')[0];
    const head = headRow?.head == null ? null : BigInt(headRow.head);
    const rows = results.rows<RecordedRow>('insert');
    const recorded = rows.map((row) => recordedOf(row, byId.get(row.id))).sort((a, b) => (a.position < b.position ? -1 : 1));
    stage.at = 'projector';
    const finished: Finished[] = [];
    for (const { name, step } of steps) {
      const stepRows = (statement: string): InlineRows => results.all(`${name}\u0000${statement}`).flatMap((result) => result.rows as InlineRows);
      const done = recorded.length === 0 ? null : step.finish(stepRows, head, recorded);
      if (done !== null) finished.push({ name, ...done });
    }
    return { rows, finished };
  }

  /**
   * EventStore.rehearseAppend: this caller's transaction, rolled back, on each connection the pool may open,
   * those others hold (a follower's read) once they are handed back, for up to REHEARSAL_WAIT_MS (the
   * LISTEN connection never is); never grouped with real callers, no `onCommitted` runs.
   */
  async rehearse(appends: StreamAppend[], statements: readonly string[] = []): Promise<void> {
    const group: Waiting[] = [{ appends, statements, resolve: () => undefined, reject: () => undefined }];
    const clients: pg.PoolClient[] = [];
    try {
      const size = this.pool.options.max ?? 1;
      // Idle and new connections are taken at once; the deadline runs from the first wait for one held by another.
      let deadline: number | null = null;
      while (clients.length < size) {
        const waits = clients.length > 0 && this.pool.idleCount === 0 && this.pool.totalCount >= size;
        if (waits) deadline ??= performance.now() + REHEARSAL_WAIT_MS;
        const client = deadline === null || !waits ? await this.pool.connect() : await connectWithin(this.pool, deadline - performance.now());
        if (client === null) break;
        clients.push(client);
      }
    } catch (error) {
      for (const client of clients) client.release();
      throw error;
    }
    const outcomes = await Promise.allSettled(clients.map(async (client) => {
      try {
        const script = this.projectors.length > 0
          ? new StatementScript().addAll((await this.inlineWork(client, group, { at: 'store' })).finished.flatMap(({ statements: own }) => own))
          : await this.plainScript(client, group);
        await script.add('ROLLBACK').run(client);
        client.release();
      } catch (error) {
        await client.query('ROLLBACK').then(() => client.release(), (rollbackError: unknown) => client.release(rollbackError instanceof Error ? rollbackError : true));
        throw error;
      }
    }));
    const failure = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failure !== undefined) throw failure.reason;
  }

  private inputOf(group: Waiting[]): unknown[] {
    return group.flatMap((waiting, caller) => waiting.appends.map((append) => ({
      c: caller, s: append.streamId,
      k: typeof append.expectedRevision === 'number' ? 'revision' : append.expectedRevision,
      r: typeof append.expectedRevision === 'number' ? append.expectedRevision : null,
      e: append.events.map(({ id, type, data, metadata, integrity }) => ({ id, type, data, metadata, integrity })),
    })));
  }

  private connect(group: Waiting[]): Promise<pg.PoolClient | null> {
    return this.pool.connect().catch((error: unknown) => {
      for (const waiting of group) waiting.reject(error);
      return null;
    });
  }

  /** Rolls back; a projector's failure sends the group again without projectors, a store error re-runs the callers one by one. */
  private async failed(client: pg.PoolClient, group: Waiting[], error: unknown, byProjector: boolean): Promise<void> {
    await client.query('ROLLBACK').then(() => client.release(), (rollbackError: unknown) => client.release(rollbackError instanceof Error ? rollbackError : true));
    if (byProjector) {
      this.logger?.error({ err: error, callers: group.length }, 'inline projection failed; appending without it (the followers catch up from the log)');
      return this.write(group, false);
    }
    if (isRefusedCaller(error)) return this.withoutRefused(group);
    // Only a writer that skipped the append lock can cause this one: it is a lost race, a conflict.
    if (group.length === 1) group[0]?.reject(isStreamRevisionViolation(error) && group[0] ? await this.conflict(group[0]) : error);
    else for (const waiting of group) await this.write([waiting]);
  }

  /**
   * A caller with statements was refused (the guard of callersStatements): those whose expected revisions do not
   * hold now get their conflict, the rest go again. Revisions only grow, so a refused caller is refused
   * now too; if none is (an expected revision ahead of the stream, reached since), they go one by one.
   */
  private async withoutRefused(group: Waiting[]): Promise<void> {
    const rest: Waiting[] = [];
    for (const waiting of group) {
      const refused = waiting.statements.length === 0
        ? null
        : await refusal(this.pool, this.tables, waiting.appends).catch((error: unknown) => error);
      if (refused === null) rest.push(waiting);
      else waiting.reject(refused);
    }
    if (rest.length === 0) return;
    if (rest.length < group.length) return this.write(rest);
    if (group.length === 1) return group[0]?.reject(await this.conflict(group[0]));
    for (const waiting of group) await this.write([waiting]);
  }

  private async settle(group: Waiting[], rows: InsertedRow[], inline: readonly string[]): Promise<void> {
    const byStream = new Map<string, InsertedRow[]>();
    for (const row of rows) byStream.set(row.stream_id, [...(byStream.get(row.stream_id) ?? []), row]);
    for (const waiting of group) {
      const inserted = waiting.appends.map((append) => byStream.get(append.streamId) ?? []);
      if (inserted.every((streamRows) => streamRows.length > 0)) {
        const nextRevision = Math.max(...(inserted.at(-1) ?? []).map((row) => Number(row.revision)));
        const position = inserted.flat().reduce((highest, row) => (BigInt(row.position) > highest ? BigInt(row.position) : highest), 0n);
        waiting.resolve(inline.length > 0 ? { nextRevision, position, inline } : { nextRevision, position });
        continue;
      }
      waiting.reject(await this.conflict(waiting));
    }
  }

  /** The first stream whose expected revision did not hold, with its actual revision. */
  private async conflict(waiting: Waiting): Promise<unknown> {
    try {
      const refused = await refusal(this.pool, this.tables, waiting.appends);
      if (refused !== null) return refused;
      const first = waiting.appends[0];
      return new WrongExpectedRevisionError(first?.streamId ?? '', first?.expectedRevision ?? 'any', 'no_stream');
    } catch (error) {
      return error;
    }
  }
}

const recordedOf = (row: RecordedRow, event: NewEvent | undefined): RecordedEvent => ({
  id: row.id,
  streamId: row.stream_id,
  revision: Number(row.revision),
  position: BigInt(row.position),
  type: event?.type ?? '',
  data: event?.data ?? {},
  metadata: event?.metadata ?? { correlationId: '', causationId: null, actor: 'system', requestId: '', time: '' },
  recordedAt: row.recorded_at.toISOString(),
  ...(event?.integrity === undefined ? {} : { hash: event.integrity.hash }),
});

/** The group's transaction as a stage of each request whose events it appended (inline projections included). */
const traceGroup = (group: Waiting[], startTime: number, inline: boolean): void => {
  const events = group.flatMap((waiting) => waiting.appends.flatMap((append) => append.events));
  reportStage('append', events.map((event) => event.metadata.requestId), startTime, {
    'hiring.append.callers': group.length, 'hiring.append.events': events.length, 'hiring.append.inline_projections': inline,
  });
};
