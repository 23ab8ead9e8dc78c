/**
 * The SQLite layout of the event store as an ordered list of migrations, and
 * {@linkcode migrate}, which upgrades a database file in place. Applied versions are kept in
 * `schema_migrations`; a file from before that table existed (layout 1) is recognised by its
 * `events` table.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";

/** One step of the layout. `up` runs inside the migration transaction. */
export interface Migration {
  version: number;
  name: string;
  up(db: DatabaseSync): void;
}

/** Every migration, oldest first. Append new ones; never edit an applied one. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "initial",
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS events (
          position INTEGER PRIMARY KEY,
          stream_id TEXT NOT NULL,
          stream_version INTEGER NOT NULL,
          type TEXT NOT NULL,
          schema_version INTEGER NOT NULL,
          data TEXT NOT NULL,
          meta TEXT NOT NULL,
          UNIQUE (stream_id, stream_version)
        );
        CREATE TABLE IF NOT EXISTS blobs (
          hash TEXT PRIMARY KEY,
          media_type TEXT NOT NULL,
          size INTEGER NOT NULL,
          bytes BLOB NOT NULL
        );
        CREATE TABLE IF NOT EXISTS idempotency (
          key TEXT PRIMARY KEY,
          stream_id TEXT NOT NULL,
          positions TEXT NOT NULL,
          stream_version INTEGER NOT NULL
        );
      `);
    },
  },
  {
    version: 2,
    name: "streams_and_head",
    up(db) {
      // A per-stream summary (versions checked on append without scanning events) and a head
      // counter, so positions never repeat even after the newest stream is deleted.
      db.exec(`
        CREATE TABLE streams (
          stream_id TEXT PRIMARY KEY,
          version INTEGER NOT NULL,
          first_position INTEGER NOT NULL,
          last_position INTEGER NOT NULL,
          created_at TEXT NOT NULL
        );
        INSERT INTO streams (stream_id, version, first_position, last_position, created_at)
          SELECT e.stream_id, max(e.stream_version), min(e.position), max(e.position),
            (SELECT json_extract(f.meta, '$.recordedAt') FROM events f
              WHERE f.stream_id = e.stream_id ORDER BY f.stream_version LIMIT 1)
          FROM events e GROUP BY e.stream_id;
        CREATE TABLE log_head (id INTEGER PRIMARY KEY CHECK (id = 1), position INTEGER NOT NULL);
        INSERT INTO log_head (id, position) SELECT 1, coalesce(max(position), 0) FROM events;
        CREATE INDEX events_type ON events (type);
      `);
    },
  },
  {
    version: 3,
    name: "lean_appends",
    up(db) {
      // An append now writes only its event rows (and a streams row for a new stream): a
      // stream's version and last position come from the (stream_id, stream_version) index,
      // and log_head is a high-water mark written only when a stream is deleted.
      db.exec(`
        DROP INDEX IF EXISTS events_type;
        CREATE TABLE streams_v3 (
          stream_id TEXT PRIMARY KEY,
          first_position INTEGER NOT NULL,
          created_at TEXT NOT NULL
        );
        INSERT INTO streams_v3 (stream_id, first_position, created_at)
          SELECT stream_id, first_position, created_at FROM streams;
        DROP TABLE streams;
        ALTER TABLE streams_v3 RENAME TO streams;
      `);
    },
  },
  {
    version: 4,
    name: "stream_segments",
    up(db) {
      // A stream's events are found through its segments, the runs of consecutive positions it
      // holds, rather than a (stream_id, stream_version) index: a run of appends to one stream
      // then writes only the events table (one page and the index leaf fewer per commit, ~40 %
      // less WAL). Version and position step together inside a run. A deleted stream's
      // segments keep their start with a NULL stream, so every run still ends where the next
      // one starts.
      db.exec(`
        CREATE TABLE events_v4 (
          position INTEGER PRIMARY KEY,
          stream_id TEXT NOT NULL,
          stream_version INTEGER NOT NULL,
          type TEXT NOT NULL,
          schema_version INTEGER NOT NULL,
          data TEXT NOT NULL,
          meta TEXT NOT NULL
        );
        INSERT INTO events_v4
          SELECT position, stream_id, stream_version, type, schema_version, data, meta FROM events;
        DROP TABLE events;
        ALTER TABLE events_v4 RENAME TO events;
        CREATE TABLE segments (
          start_position INTEGER PRIMARY KEY,
          stream_id TEXT,
          start_version INTEGER NOT NULL
        );
        CREATE INDEX segments_stream ON segments (stream_id, start_position);
        CREATE TEMP TABLE runs AS
          SELECT position, stream_id, stream_version,
            lag(stream_id) OVER w AS prev_stream, lag(position) OVER w AS prev_position
          FROM events WINDOW w AS (ORDER BY position);
        INSERT INTO segments (start_position, stream_id, start_version)
          SELECT position, stream_id, stream_version FROM runs
          WHERE prev_stream IS NULL OR prev_stream != stream_id OR prev_position != position - 1;
        -- positions a deleted stream left empty end the run before them, as a tombstone does
        INSERT INTO segments (start_position, stream_id, start_version)
          SELECT prev_position + 1, NULL, 0 FROM runs WHERE prev_position < position - 1;
        DROP TABLE runs;
      `);
    },
  },
  {
    version: 5,
    name: "idempotency_fingerprint",
    up(db) {
      // What a key was stored for (sha256 of its events' types and data), so a key that comes
      // back with other events is refused rather than answered as a duplicate. Keys stored
      // before this have none and are checked by stream alone.
      db.exec("ALTER TABLE idempotency ADD COLUMN fingerprint TEXT");
    },
  },
  {
    version: 6,
    name: "log_head_deletes",
    up(db) {
      // How many deletes the log has seen. A one-event append is a single autocommit INSERT
      // guarded by the count its connection knows (events/sqlite_event_store.ts, #appendFast):
      // another connection's delete changes it, and the insert then writes nothing.
      db.exec("ALTER TABLE log_head ADD COLUMN deletes INTEGER NOT NULL DEFAULT 0");
    },
  },
  {
    version: 7,
    name: "derived",
    up(db) {
      // What a reader computed from a blob and keeps to skip the work next time (a hierarchy's
      // parsed screen), by the blob's hash and what it is (`kind` names the encoding and its
      // version). A cache: rows may be missing or of an old kind, and deleting them loses nothing.
      db.exec(`
        CREATE TABLE derived (
          hash TEXT NOT NULL,
          kind TEXT NOT NULL,
          bytes BLOB NOT NULL,
          PRIMARY KEY (hash, kind)
        );
      `);
    },
  },
];

/** What a database holds: no table yet, a Cairn event log (of any layout), or something else. */
export type DatabaseContents = "empty" | "event log" | "other";

/**
 * Tells, by its tables and without writing, what a database holds: an event log has
 * `schema_migrations`, or (layout 1) an `events` table.
 *
 * @param db an open database
 * @returns `"empty"` (no table: a new file), `"event log"` or `"other"`
 * @throws {Error} when the file is not a SQLite database (SQLite's `file is not a database`)
 * @example
 * ```ts
 * import { DatabaseSync } from "node:sqlite";
 * const db = new DatabaseSync(":memory:");
 * if (databaseContents(db) !== "empty") throw new Error();
 * migrate(db);
 * if (databaseContents(db) !== "event log") throw new Error();
 * ```
 */
export function databaseContents(db: DatabaseSync): DatabaseContents {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all()
    .map((row) => row.name);
  if (tables.length === 0) return "empty";
  return tables.includes("schema_migrations") || tables.includes("events") ? "event log" : "other";
}

/** The newest layout version this code knows. */
export const LATEST_VERSION: number = MIGRATIONS.at(-1)!.version;

/** Raised when a database was written by a newer Cairn: its layout version is unknown here. */
export class NewerLayoutError extends Error {
  override name = "NewerLayoutError";
  constructor(readonly version: number) {
    super(`Database layout version ${version} is newer than this Cairn knows (${LATEST_VERSION})`);
  }
}

/**
 * A database's layout version, read without writing: the newest applied migration, 1 for a
 * file from before `schema_migrations` (an `events` table alone), 0 for a new file.
 *
 * @param db an open database
 * @returns the layout version
 * @example
 * ```ts
 * import { DatabaseSync } from "node:sqlite";
 * const db = new DatabaseSync(":memory:");
 * if (layoutVersion(db) !== 0) throw new Error();
 * migrate(db);
 * if (layoutVersion(db) !== LATEST_VERSION) throw new Error();
 * ```
 */
export function layoutVersion(db: DatabaseSync): number {
  const tables = new Set(
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((r) => r.name),
  );
  if (tables.has("schema_migrations")) {
    const v = (db.prepare("SELECT coalesce(max(version), 0) AS v FROM schema_migrations")
      .get() as { v: number }).v;
    if (v > 0) return v;
  }
  return tables.has("events") ? 1 : 0;
}

/**
 * Upgrades a database to the latest layout, in one `BEGIN IMMEDIATE` transaction, so two
 * processes opening the same old file migrate it once. A file already at the latest layout is
 * only read (no lock, no write): a read-only file that needs no migration opens.
 *
 * @param db an open database
 * @returns the versions applied (empty when the file was current)
 * @throws {NewerLayoutError} when the file was written by a newer Cairn (an unknown layout
 *   version)
 */
export function migrate(db: DatabaseSync): number[] {
  const seen = layoutVersion(db);
  if (seen > LATEST_VERSION) throw new NewerLayoutError(seen);
  if (seen === LATEST_VERSION) return [];
  db.exec("BEGIN IMMEDIATE");
  try {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
    // again inside the lock: another process may have migrated the file meanwhile
    const current = layoutVersion(db);
    if (current > LATEST_VERSION) throw new NewerLayoutError(current);
    // Layout 1 predates schema_migrations: record it as applied.
    if (current === 1 && !isRecorded(db, 1)) recordApplied(db, MIGRATIONS[0]!);
    const applied: number[] = [];
    for (const m of MIGRATIONS) {
      if (m.version <= current) continue;
      m.up(db);
      recordApplied(db, m);
      applied.push(m.version);
    }
    db.exec("COMMIT");
    return applied;
  } catch (err) {
    db.exec("ROLLBACK");
    throw err;
  }
}

function isRecorded(db: DatabaseSync, version: number): boolean {
  return db.prepare("SELECT 1 AS x FROM schema_migrations WHERE version = ?").get(version) !==
    undefined;
}

function recordApplied(db: DatabaseSync, m: Migration): void {
  db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)")
    .run(m.version, m.name, new Date().toISOString());
}
