/**
 * The event store on PostgreSQL, for a team that has outgrown one machine: several `cairn
 * serve` nodes, many writers at once. Same {@linkcode EventStore} interface, same event rows
 * (data and meta kept as the JSON text the SQLite store keeps, so a copy between the two is
 * byte-for-byte), same schema checks on append (`events/exact_check.ts`).
 *
 * **Positions.** An append runs as one call of the server-side function `cairn_append`
 * (one round trip), which first locks the single `log_head` row (`SELECT … FOR UPDATE`), then
 * checks the idempotency key and the stream's expected version, inserts the rows at head + 1…
 * and moves the head. The row lock is held until the transaction ends, so appends assign
 * positions one transaction after another *in commit order*: a transaction can only take
 * positions once the one before it has committed (or rolled back, which moves nothing), and a
 * committed transaction is visible to every later snapshot before its locks are released. So
 * positions are gap-free (no sequence whose values a rollback burns) and a reader that has seen
 * position N never finds an event with a position ≤ N committed later. The alternative of the
 * anchors (Marten, Emmett) — positions from a sequence plus a transaction-id column read
 * only below `pg_snapshot_xmin(pg_current_snapshot())` — lets writers overlap longer but leaves
 * gaps where a transaction rolled back; the log here promises gap-free positions (the SQLite
 * store's), and the lock is held for one function call and the commit only.
 *
 * **Live reads.** Each append sends `NOTIFY cairn_events` (delivered on commit); a subscriber
 * LISTENs on one connection of its store, wakes, and reads by position from where it was, so
 * an append made by any node reaches every node's SSE streams. A slow poll (1 s) covers a lost
 * notification.
 *
 * **Layout.** The tables come from {@linkcode PG_MIGRATIONS}, applied in order under an
 * advisory lock (two nodes starting at once migrate once) and recorded in `schema_migrations`;
 * a database of a newer layout is refused.
 *
 * @module
 */
import postgres from "postgres";
import { createHash } from "node:crypto";
import {
  type AppendBatch,
  type AppendOptions,
  type AppendResult,
  type Blob,
  ConcurrencyError,
  type EventStore,
  NotFoundError,
  type ReadOptions,
  StoreFileError,
  type StreamInfo,
} from "./event_store.ts";
import type { BlobRef, NewEvent, StoredEvent } from "./schemas.ts";
import {
  duplicateOf,
  type IdempotencyRow,
  isoNow,
  prepareBatch,
  type PreparedBatch,
} from "./batch.ts";
import { type EventRow, toEvent, unreadableRow } from "./rows.ts";
import { PAGE_SIZE } from "./sqlite_event_store.ts";

/** A postgres.js client (a pool). */
export type Sql = postgres.Sql<Record<string, never>>;

/** How often a live subscription reads the log without a notification. */
const POLL_MS = 1000;
/** The advisory lock key under which migrations run. */
const MIGRATION_LOCK = 7_243_001;

/** Whether a `--db` value or `CAIRN_DB` names a PostgreSQL database rather than a file. */
export function isPostgresUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//i.test(db);
}

/**
 * A URL as messages show it: the password replaced by `***`.
 *
 * @param url a `postgres://` URL
 * @returns it without its password
 * @example
 * ```ts
 * import { redactUrl } from "./postgres_event_store.ts";
 * if (redactUrl("postgres://u:secret@h/db") !== "postgres://u:***@h/db") throw new Error();
 * ```
 */
export function redactUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]+:)[^@]*@/i, "$1***@");
}

/** One step of the PostgreSQL layout. */
export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}

/** Every PostgreSQL migration, oldest first. Append new ones; never edit an applied one. */
export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    name: "initial",
    sql: `
      CREATE TABLE events (
        position bigint PRIMARY KEY,
        stream_id text NOT NULL,
        stream_version integer NOT NULL,
        type text NOT NULL,
        schema_version integer NOT NULL,
        data text NOT NULL,
        meta text NOT NULL,
        UNIQUE (stream_id, stream_version)
      );
      CREATE INDEX events_type ON events (type);
      CREATE TABLE streams (
        stream_id text PRIMARY KEY,
        version integer NOT NULL,
        first_position bigint NOT NULL,
        last_position bigint NOT NULL,
        created_at text NOT NULL
      );
      CREATE TABLE log_head (id integer PRIMARY KEY CHECK (id = 1), position bigint NOT NULL);
      INSERT INTO log_head VALUES (1, 0);
      CREATE TABLE idempotency (
        key text PRIMARY KEY,
        stream_id text NOT NULL,
        positions text NOT NULL,
        stream_version integer NOT NULL,
        fingerprint text
      );
      CREATE INDEX idempotency_stream ON idempotency (stream_id);
      CREATE TABLE blobs (
        hash text PRIMARY KEY,
        media_type text NOT NULL,
        size bigint NOT NULL,
        bytes bytea NOT NULL
      );
      CREATE FUNCTION cairn_append(
        p_stream text, p_expected bigint, p_no_stream boolean, p_key text, p_fingerprint text,
        p_types text[], p_versions integer[], p_data text[], p_meta text[], p_created_at text
      ) RETURNS TABLE (
        status text, head bigint, version integer,
        seen_stream text, seen_positions text, seen_fingerprint text
      ) LANGUAGE plpgsql AS $fn$
      DECLARE
        v_head bigint;
        v_version integer;
        v_exists boolean;
        n integer := coalesce(array_length(p_types, 1), 0);
        r record;
      BEGIN
        -- positions are assigned one transaction after another, in commit order
        SELECT l.position INTO v_head FROM log_head l WHERE l.id = 1 FOR UPDATE;
        IF p_key IS NOT NULL THEN
          SELECT i.stream_id, i.positions, i.stream_version, i.fingerprint INTO r
            FROM idempotency i WHERE i.key = p_key;
          IF FOUND THEN
            RETURN QUERY SELECT 'duplicate'::text, v_head, r.stream_version, r.stream_id,
              r.positions, r.fingerprint;
            RETURN;
          END IF;
        END IF;
        SELECT s.version INTO v_version FROM streams s WHERE s.stream_id = p_stream;
        v_exists := FOUND;
        v_version := coalesce(v_version, 0);
        IF (p_no_stream AND v_exists) OR (p_expected IS NOT NULL AND p_expected <> v_version) THEN
          RETURN QUERY SELECT 'conflict'::text, v_head, v_version, NULL::text, NULL::text, NULL::text;
          RETURN;
        END IF;
        IF n = 0 THEN
          RETURN QUERY SELECT 'ok'::text, v_head, v_version, NULL::text, NULL::text, NULL::text;
          RETURN;
        END IF;
        INSERT INTO events (position, stream_id, stream_version, type, schema_version, data, meta)
          SELECT v_head + i, p_stream, v_version + i, p_types[i], p_versions[i], p_data[i], p_meta[i]
          FROM generate_series(1, n) AS i;
        UPDATE log_head SET position = v_head + n WHERE id = 1;
        IF v_exists THEN
          UPDATE streams SET version = v_version + n, last_position = v_head + n
            WHERE stream_id = p_stream;
        ELSE
          INSERT INTO streams VALUES (p_stream, n, v_head + 1, v_head + n, p_created_at);
        END IF;
        IF p_key IS NOT NULL THEN
          INSERT INTO idempotency VALUES (p_key, p_stream,
            (SELECT '[' || string_agg((v_head + i)::text, ',' ORDER BY i) || ']'
              FROM generate_series(1, n) AS i),
            v_version + n, p_fingerprint);
        END IF;
        PERFORM pg_notify('cairn_events', (v_head + n)::text);
        RETURN QUERY SELECT 'ok'::text, v_head, v_version + n, NULL::text, NULL::text, NULL::text;
      END
      $fn$;
    `,
  },
  {
    version: 2,
    name: "run_queue",
    // playbacks and validations waiting for, or held by, a `cairn serve --worker` node
    sql: `
      CREATE TABLE run_queue (
        id text PRIMARY KEY,
        kind text NOT NULL,
        payload text NOT NULL,
        status text NOT NULL DEFAULT 'queued',
        attempts integer NOT NULL DEFAULT 0,
        worker text,
        lease_until timestamptz,
        enqueued_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        started_at timestamptz,
        finished_at timestamptz,
        error text
      );
      CREATE INDEX run_queue_waiting ON run_queue (enqueued_at) WHERE status = 'queued';
      CREATE INDEX run_queue_leased ON run_queue (lease_until) WHERE status = 'running';
    `,
  },
  {
    version: 3,
    name: "stream_prefix_index",
    // lets `streams(prefix)` (every SESSION a command resolves) read an index range (LIKE prefix%)
    sql: "CREATE INDEX streams_prefix ON streams (stream_id text_pattern_ops);",
  },
  {
    version: 4,
    name: "derived",
    // what a reader computed from a blob (a hierarchy's parsed screen), kept to skip the work
    // next time: a cache, so rows may be missing and deleting them loses nothing
    sql: `
      CREATE TABLE derived (
        hash text NOT NULL,
        kind text NOT NULL,
        bytes bytea NOT NULL,
        PRIMARY KEY (hash, kind)
      );
    `,
  },
];

/** The newest PostgreSQL layout this Cairn knows. */
export const PG_LATEST_VERSION = PG_MIGRATIONS[PG_MIGRATIONS.length - 1]!.version;

/** `LIKE` pattern of the ids starting with `prefix` (its `%`, `_` and `\\` taken literally). */
function likePrefix(prefix: string): string {
  return prefix.replace(/[\\%_]/g, (c) => `\\${c}`) + "%";
}

/** Options of {@linkcode PostgresEventStore.open}. */
export interface PgOpenOptions {
  /** How errors name the database (default the URL without its password). */
  name?: string;
  /** Pool size (default 10). */
  max?: number;
}

/** Opens a postgres.js pool with positions (int8) read as numbers. */
export function pgClient(url: string, max = 10): Sql {
  return postgres(url, {
    max,
    onnotice: () => {},
    connect_timeout: 10,
    types: {
      bigint: {
        to: 20,
        from: [20],
        serialize: (x: number) => String(x),
        parse: (x: string) => Number(x),
      },
    },
  }) as unknown as Sql;
}

/**
 * Brings a database's layout up to date, once even when several nodes start at once.
 *
 * @param sql the client
 * @returns the layout version afterwards
 * @throws {StoreFileError} `NAME: written by a newer Cairn …` for a newer layout
 */
export async function migratePg(sql: Sql, name: string): Promise<number> {
  return await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at text NOT NULL)`;
    const [row] = await tx`SELECT coalesce(max(version), 0) AS v FROM schema_migrations`;
    const current = Number(row!.v);
    if (current > PG_LATEST_VERSION) {
      throw new StoreFileError(
        name,
        "newer",
        `${name}: written by a newer Cairn (layout version ${current}; this Cairn knows up to ${PG_LATEST_VERSION})`,
      );
    }
    for (const m of PG_MIGRATIONS) {
      if (m.version <= current) continue;
      await tx.unsafe(m.sql);
      await tx`INSERT INTO schema_migrations VALUES (${m.version}, ${m.name}, ${isoNow()})`;
    }
    return PG_LATEST_VERSION;
  }) as number;
}

/** A connection failure as a {@linkcode StoreFileError} naming the database; others as they are. */
export function asPgError(err: unknown, name: string): unknown {
  if (err instanceof StoreFileError) return err;
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === "string" ? e.code : "";
  if (
    /^(ECONNREFUSED|ENOTFOUND|ECONNRESET|ETIMEDOUT|CONNECT_TIMEOUT|CONNECTION_)/.test(code) ||
    code === "3D000" || code === "28P01" || code === "28000"
  ) {
    return new StoreFileError(
      name,
      "cannot open",
      `${name}: cannot use the PostgreSQL database (${String(e?.message ?? code)})`,
    );
  }
  return err;
}

interface AppendRow {
  status: "ok" | "duplicate" | "conflict";
  head: number;
  version: number;
  seen_stream: string | null;
  seen_positions: string | null;
  seen_fingerprint: string | null;
}

/** {@linkcode EventStore} on a PostgreSQL database. */
export class PostgresEventStore implements EventStore {
  readonly #sql: Sql;
  readonly #name: string;
  readonly #ready: Promise<void>;
  readonly #listeners = new Set<() => void>();
  #listening: Promise<unknown> | undefined;
  /** Notifications received: a subscriber that saw it change since it read does not wait. */
  #wakeups = 0;
  #closed = false;
  #ended: Promise<void> | undefined;

  private constructor(sql: Sql, name: string) {
    this.#sql = sql;
    this.#name = name;
    this.#ready = migratePg(sql, name).then(
      () => {},
      (err) => Promise.reject(asPgError(err, name)),
    );
    // a failure is reported by the first call that awaits it; none may be left unhandled
    this.#ready.catch(() => {});
  }

  /**
   * Opens a store on a database URL. The pool connects, and the layout is brought up to date,
   * in the background: the first call waits for it (and reports a failure). Use
   * {@linkcode connect} to wait at once.
   *
   * @param url `postgres://user:password@host:port/database`
   * @param options how errors name it, pool size
   */
  static open(url: string, options: PgOpenOptions = {}): PostgresEventStore {
    return new PostgresEventStore(
      pgClient(url, options.max ?? 10),
      options.name ?? redactUrl(url),
    );
  }

  /** {@linkcode open}, then waits until the database is reachable and migrated. */
  static async connect(url: string, options: PgOpenOptions = {}): Promise<PostgresEventStore> {
    const store = PostgresEventStore.open(url, options);
    try {
      await store.ready();
    } catch (err) {
      await store.end();
      throw err;
    }
    return store;
  }

  /** Resolves once the database is reachable and its layout current. */
  ready(): Promise<void> {
    return this.#ready;
  }

  /** The pool, for the queue and the copy tool sharing this store's database. */
  get sql(): Sql {
    return this.#sql;
  }

  /** How errors name the database. */
  get name(): string {
    return this.#name;
  }

  /** See {@linkcode EventStore.append}. */
  async append(
    streamId: string,
    events: NewEvent[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    const now = isoNow();
    const batch = prepareBatch(streamId, events, options, now);
    await this.#ready;
    try {
      const result = await this.#appendOne(this.#sql, batch, now);
      if (!result.duplicate && batch.rows.length > 0) this.#wake();
      return result;
    } catch (err) {
      throw asPgError(err, this.#name);
    }
  }

  /** See {@linkcode EventStore.appendMany}: one transaction, all of the batches or none. */
  async appendMany(batches: AppendBatch[]): Promise<AppendResult[]> {
    const now = isoNow();
    const prepared = batches.map((b) => {
      try {
        return prepareBatch(b.streamId, b.events, b.options ?? {}, now);
      } catch (err) {
        if (err instanceof TypeError) throw new TypeError(`Stream ${b.streamId}: ${err.message}`);
        throw err;
      }
    });
    await this.#ready;
    try {
      const results = await this.#sql.begin(async (tx) => {
        const out: AppendResult[] = [];
        for (const b of prepared) out.push(await this.#appendOne(tx as unknown as Sql, b, now));
        return out;
      }) as unknown as AppendResult[];
      this.#wake();
      return results;
    } catch (err) {
      throw asPgError(err, this.#name);
    }
  }

  async #appendOne(sql: Sql, batch: PreparedBatch, now: string): Promise<AppendResult> {
    const { streamId, rows, expected, key } = batch;
    const [row] = await sql<AppendRow[]>`SELECT * FROM cairn_append(
      ${streamId}, ${typeof expected === "number" ? expected : null}, ${expected === "no_stream"},
      ${key ?? null}, ${batch.fingerprint ?? null},
      ${sql.array(rows.map((r) => r.type))}::text[],
      ${sql.array(rows.map((r) => r.schemaVersion))}::integer[],
      ${sql.array(rows.map((r) => r.data))}::text[],
      ${sql.array(rows.map((r) => r.meta))}::text[],
      ${rows[0]?.recordedAt ?? now})`;
    const r = row!;
    if (r.status === "duplicate") {
      const seen: IdempotencyRow = {
        stream_id: r.seen_stream!,
        positions: r.seen_positions!,
        stream_version: r.version,
        fingerprint: r.seen_fingerprint,
      };
      return duplicateOf(seen, batch);
    }
    if (r.status === "conflict") throw new ConcurrencyError(streamId, expected, r.version);
    const positions: number[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) positions[i] = Number(r.head) + i + 1;
    return { positions, streamVersion: r.version, duplicate: false };
  }

  /** See {@linkcode EventStore.readStream}: pages of {@linkcode PAGE_SIZE} rows. */
  async *readStream(streamId: string, options: ReadOptions = {}): AsyncIterable<StoredEvent> {
    await this.#ready;
    let from = options.from ?? 1;
    let left = options.limit ?? Infinity;
    while (left > 0) {
      const n = Math.min(PAGE_SIZE, left);
      const rows = await this.#rows(
        this.#sql`SELECT position, stream_id, stream_version, type, schema_version, data, meta
          FROM events WHERE stream_id = ${streamId} AND stream_version >= ${from}
          ORDER BY stream_version LIMIT ${n}`,
      );
      for (const r of rows) yield this.#toEvent(r);
      if (rows.length < n) return;
      from = rows[rows.length - 1]![2] + 1;
      left -= rows.length;
    }
  }

  /** See {@linkcode EventStore.readAll}: pages of {@linkcode PAGE_SIZE} rows, in position order. */
  async *readAll(options: ReadOptions = {}): AsyncIterable<StoredEvent> {
    await this.#ready;
    let next = options.from ?? 0;
    let left = options.limit ?? Infinity;
    while (left > 0) {
      const n = Math.min(PAGE_SIZE, left);
      const rows = await this.#rows(
        this.#sql`SELECT position, stream_id, stream_version, type, schema_version, data, meta
          FROM events WHERE position >= ${next} ORDER BY position LIMIT ${n}`,
      );
      for (const r of rows) yield this.#toEvent(r);
      if (rows.length < n) return;
      next = rows[rows.length - 1]![0] + 1;
      left -= rows.length;
    }
  }

  async #rows(query: postgres.PendingQuery<postgres.Row[]>): Promise<EventRow[]> {
    try {
      return await query.values() as unknown as EventRow[];
    } catch (err) {
      throw asPgError(err, this.#name);
    }
  }

  #toEvent(r: EventRow): StoredEvent {
    try {
      return toEvent(r);
    } catch (err) {
      throw unreadableRow(r, err);
    }
  }

  /**
   * See {@linkcode EventStore.subscribe}: appends by any process on the database wake it through
   * `LISTEN cairn_events`; it then reads by position from where it was.
   */
  async *subscribe(options: { from?: number; signal: AbortSignal }): AsyncIterable<StoredEvent> {
    const { signal } = options;
    await this.#ready;
    await this.#listen();
    let next = options.from ?? 0;
    while (!signal.aborted && !this.#closed) {
      const seen = this.#wakeups;
      // every position ≤ head is committed and visible: none can appear below it later
      const head = await this.headPosition();
      for await (const e of this.readAll({ from: next })) {
        next = e.position + 1;
        yield e;
        if (signal.aborted || this.#closed) return;
      }
      if (next <= head) next = head + 1;
      if (this.#wakeups !== seen) continue;
      await this.#waitForAppend(signal);
    }
  }

  #listen(): Promise<unknown> {
    this.#listening ??= this.#sql.listen("cairn_events", () => this.#wake()).catch((err) => {
      this.#listening = undefined;
      throw asPgError(err, this.#name);
    });
    return this.#listening;
  }

  #wake(): void {
    this.#wakeups++;
    for (const l of [...this.#listeners]) l();
  }

  #waitForAppend(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#listeners.delete(done);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, POLL_MS);
      this.#listeners.add(done);
      signal.addEventListener("abort", done, { once: true });
      if (this.#closed || signal.aborted) done();
    });
  }

  /** See {@linkcode EventStore.headPosition}. */
  async headPosition(): Promise<number> {
    await this.#ready;
    try {
      const [row] = await this.#sql`SELECT position FROM log_head WHERE id = 1`;
      return Number(row!.position);
    } catch (err) {
      throw asPgError(err, this.#name);
    }
  }

  /** See {@linkcode EventStore.streams}. */
  async streams(prefix = ""): Promise<StreamInfo[]> {
    await this.#ready;
    try {
      const rows = await this.#sql`SELECT stream_id, version, first_position, last_position,
        created_at FROM streams WHERE stream_id LIKE ${likePrefix(prefix)}
        ORDER BY first_position`;
      return rows.map((r) => ({
        streamId: r.stream_id as string,
        version: Number(r.version),
        firstPosition: Number(r.first_position),
        lastPosition: Number(r.last_position),
        createdAt: r.created_at as string,
      }));
    } catch (err) {
      throw asPgError(err, this.#name);
    }
  }

  /** See {@linkcode EventStore.deleteStream}: the head stays, so positions never repeat. */
  async deleteStream(streamId: string): Promise<number> {
    await this.#ready;
    try {
      return await this.#sql.begin(async (tx) => {
        await tx`SELECT position FROM log_head WHERE id = 1 FOR UPDATE`;
        const deleted = await tx`DELETE FROM events WHERE stream_id = ${streamId}`;
        await tx`DELETE FROM streams WHERE stream_id = ${streamId}`;
        await tx`DELETE FROM idempotency WHERE stream_id = ${streamId}`;
        return deleted.count;
      }) as unknown as number;
    } catch (err) {
      throw asPgError(err, this.#name);
    }
  }

  /** See {@linkcode EventStore.putBlob}. The media type of the first put of some bytes is kept. */
  async putBlob(bytes: Uint8Array, mediaType: string): Promise<BlobRef> {
    const hash = createHash("sha256").update(bytes).digest("hex");
    await this.#ready;
    try {
      await this
        .#sql`INSERT INTO blobs VALUES (${hash}, ${mediaType}, ${bytes.byteLength}, ${bytes})
        ON CONFLICT (hash) DO NOTHING`;
      const [row] = await this.#sql`SELECT media_type, size FROM blobs WHERE hash = ${hash}`;
      return { hash, mediaType: row!.media_type as string, size: Number(row!.size) };
    } catch (err) {
      throw asPgError(err, this.#name);
    }
  }

  /** See {@linkcode EventStore.getBlob}. */
  async getBlob(hash: string): Promise<Blob> {
    await this.#ready;
    let row;
    try {
      [row] = await this.#sql`SELECT media_type, size, bytes FROM blobs WHERE hash = ${hash}`;
    } catch (err) {
      throw asPgError(err, this.#name);
    }
    if (!row) throw new NotFoundError(`No blob with hash ${hash}`);
    return {
      ref: { hash, mediaType: row.media_type as string, size: Number(row.size) },
      bytes: new Uint8Array(row.bytes as Uint8Array),
    };
  }

  /** See {@linkcode EventStore.putDerived}. */
  async putDerived(hash: string, kind: string, bytes: Uint8Array): Promise<void> {
    await this.#ready;
    try {
      await this.#sql`INSERT INTO derived VALUES (${hash}, ${kind}, ${bytes})
        ON CONFLICT (hash, kind) DO NOTHING`;
    } catch (err) {
      throw asPgError(err, this.#name);
    }
  }

  /** See {@linkcode EventStore.getDerived}. */
  async getDerived(hash: string, kind: string): Promise<Uint8Array | undefined> {
    await this.#ready;
    try {
      const [row] = await this
        .#sql`SELECT bytes FROM derived WHERE hash = ${hash} AND kind = ${kind}`;
      return row ? new Uint8Array(row.bytes as Uint8Array) : undefined;
    } catch (err) {
      throw asPgError(err, this.#name);
    }
  }

  /** See {@linkcode EventStore.hasBlob}. */
  async hasBlob(hash: string): Promise<boolean> {
    await this.#ready;
    try {
      const rows = await this.#sql`SELECT 1 FROM blobs WHERE hash = ${hash}`;
      return rows.length > 0;
    } catch (err) {
      throw asPgError(err, this.#name);
    }
  }

  /** Closes the pool (in the background; {@linkcode end} waits); live subscriptions end. */
  close(): void {
    void this.end();
  }

  /** Closes the pool and waits until its connections are gone. */
  end(): Promise<void> {
    if (this.#ended) return this.#ended;
    this.#closed = true;
    for (const l of [...this.#listeners]) l();
    this.#ended = this.#sql.end({ timeout: 0.5 }).catch(() => {});
    return this.#ended;
  }
}
