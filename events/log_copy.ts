/**
 * `cairn migrate`: copies a whole event log between a SQLite file and a PostgreSQL database
 * (either way), row for row — positions, stream versions, data and meta as stored text,
 * idempotency keys, the head (which stays above a deleted tail), blobs and what was computed
 * from them (`derived`: parsed screens, so a copied session is not parsed again at every
 * projection) — and then verifies the copy by counts and sha256 digests computed on both sides.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { DatabaseSync } from "node:sqlite";
import { existsSync } from "node:fs";
import { SqliteEventStore } from "./sqlite_event_store.ts";
import type { EventRow } from "./rows.ts";
import type { IdempotencyRow } from "./batch.ts";
import { isPostgresUrl, PostgresEventStore, redactUrl, type Sql } from "./postgres_event_store.ts";

/** Rows per read or write round. */
const CHUNK = 2000;

interface StreamRow {
  stream_id: string;
  first_position: number;
  created_at: string;
}
type IdemRow = IdempotencyRow & { key: string };
interface BlobRow {
  hash: string;
  media_type: string;
  size: number;
  bytes: Uint8Array;
}
/** A `derived` row: bytes computed from a blob, by its hash and a kind. */
interface DerivedRow {
  hash: string;
  kind: string;
  bytes: Uint8Array;
}

/** What a log holds, counted and hashed the same way on either store. */
export interface LogDigest {
  events: number;
  streams: number;
  idempotencyKeys: number;
  blobs: number;
  head: number;
  /** sha256 over every event row (position, stream, version, type, schema version, data, meta). */
  eventsSha256: string;
  /** sha256 over every blob's hash, media type and size, in hash order. */
  blobsSha256: string;
  /** Blobs whose bytes do not hash to their name (0 in a sound log). */
  badBlobs: number;
  /** Rows kept beside blobs (parsed screens). */
  derived: number;
  /** sha256 over every derived row's hash, kind and the sha256 of its bytes, in (hash, kind) order. */
  derivedSha256: string;
}

/** One side of a copy: raw rows in, raw rows out. */
interface RawLog {
  label: string;
  head(): Promise<number>;
  events(from: number, limit: number): Promise<EventRow[]>;
  streams(): Promise<StreamRow[]>;
  idempotency(): Promise<IdemRow[]>;
  blobs(after: string, limit: number): Promise<BlobRow[]>;
  /** Derived rows after (hash, kind) in bytewise (hash, kind) order. */
  derived(after: [string, string], limit: number): Promise<DerivedRow[]>;
  writeEvents(rows: EventRow[]): Promise<void>;
  writeBlobs(rows: BlobRow[]): Promise<void>;
  /** Inserts derived rows, keeping a row already there. */
  writeDerived(rows: DerivedRow[]): Promise<void>;
  finish(head: number, streams: StreamRow[], idem: IdemRow[]): Promise<void>;
  close(): Promise<void>;
}

class SqliteRaw implements RawLog {
  readonly #db: DatabaseSync;
  constructor(path: string, readonly label: string) {
    // the store brings the file to the current layout (or creates it) first
    SqliteEventStore.open(path, { checkpointThread: false, name: label }).close();
    this.#db = new DatabaseSync(path, { timeout: 10_000 });
  }
  head() {
    const row = this.#db.prepare(
      "SELECT max(coalesce((SELECT max(position) FROM events), 0), (SELECT position FROM log_head WHERE id = 1)) AS h",
    ).get() as { h: number };
    return Promise.resolve(Number(row.h));
  }
  events(from: number, limit: number) {
    const st = this.#db.prepare(
      "SELECT position, stream_id, stream_version, type, schema_version, data, meta FROM events WHERE position >= ? ORDER BY position LIMIT ?",
    );
    (st as unknown as { setReturnArrays(v: boolean): void }).setReturnArrays(true);
    return Promise.resolve(st.all(from, limit) as unknown as EventRow[]);
  }
  streams() {
    return Promise.resolve(
      this.#db.prepare(
        "SELECT stream_id, first_position, created_at FROM streams ORDER BY stream_id",
      ).all() as unknown as StreamRow[],
    );
  }
  idempotency() {
    return Promise.resolve(
      this.#db.prepare(
        "SELECT key, stream_id, positions, stream_version, fingerprint FROM idempotency ORDER BY key",
      ).all() as unknown as IdemRow[],
    );
  }
  blobs(after: string, limit: number) {
    const rows = this.#db.prepare(
      "SELECT hash, media_type, size, bytes FROM blobs WHERE hash > ? ORDER BY hash LIMIT ?",
    ).all(after, limit) as unknown as BlobRow[];
    return Promise.resolve(rows);
  }
  derived([hash, kind]: [string, string], limit: number) {
    const rows = this.#db.prepare(
      "SELECT hash, kind, bytes FROM derived WHERE (hash, kind) > (?, ?) ORDER BY hash, kind LIMIT ?",
    ).all(hash, kind, limit) as unknown as DerivedRow[];
    return Promise.resolve(rows);
  }
  writeEvents(rows: EventRow[]) {
    const st = this.#db.prepare(
      "INSERT INTO events (position, stream_id, stream_version, type, schema_version, data, meta) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      for (const r of rows) st.run(...r);
      this.#db.exec("COMMIT");
    } catch (err) {
      this.#db.exec("ROLLBACK");
      throw err;
    }
    return Promise.resolve();
  }
  writeBlobs(rows: BlobRow[]) {
    const st = this.#db.prepare(
      "INSERT OR IGNORE INTO blobs (hash, media_type, size, bytes) VALUES (?, ?, ?, ?)",
    );
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      for (const b of rows) st.run(b.hash, b.media_type, b.size, b.bytes);
      this.#db.exec("COMMIT");
    } catch (err) {
      this.#db.exec("ROLLBACK");
      throw err;
    }
    return Promise.resolve();
  }
  writeDerived(rows: DerivedRow[]) {
    const st = this.#db.prepare(
      "INSERT OR IGNORE INTO derived (hash, kind, bytes) VALUES (?, ?, ?)",
    );
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      for (const d of rows) st.run(d.hash, d.kind, d.bytes);
      this.#db.exec("COMMIT");
    } catch (err) {
      this.#db.exec("ROLLBACK");
      throw err;
    }
    return Promise.resolve();
  }
  finish(head: number, streams: StreamRow[], idem: IdemRow[]) {
    const db = this.#db;
    db.exec("BEGIN IMMEDIATE");
    try {
      db.prepare("UPDATE log_head SET position = ? WHERE id = 1").run(head);
      const s = db.prepare(
        "INSERT INTO streams (stream_id, first_position, created_at) VALUES (?, ?, ?)",
      );
      for (const r of streams) s.run(r.stream_id, r.first_position, r.created_at);
      const k = db.prepare(
        "INSERT INTO idempotency (key, stream_id, positions, stream_version, fingerprint) VALUES (?, ?, ?, ?, ?)",
      );
      for (const r of idem) {
        k.run(r.key, r.stream_id, r.positions, r.stream_version, r.fingerprint);
      }
      // the runs of consecutive positions per stream, as layout 4 builds them
      db.exec(`
        DELETE FROM segments;
        CREATE TEMP TABLE runs AS
          SELECT position, stream_id, stream_version,
            lag(stream_id) OVER w AS prev_stream, lag(position) OVER w AS prev_position
          FROM events WINDOW w AS (ORDER BY position);
        INSERT INTO segments (start_position, stream_id, start_version)
          SELECT position, stream_id, stream_version FROM runs
          WHERE prev_stream IS NULL OR prev_stream != stream_id OR prev_position != position - 1;
        INSERT INTO segments (start_position, stream_id, start_version)
          SELECT prev_position + 1, NULL, 0 FROM runs WHERE prev_position < position - 1;
        DROP TABLE runs;
      `);
      db.exec("COMMIT");
    } catch (err) {
      db.exec("ROLLBACK");
      throw err;
    }
    return Promise.resolve();
  }
  close() {
    this.#db.close();
    return Promise.resolve();
  }
}

class PgRaw implements RawLog {
  constructor(readonly store: PostgresEventStore, readonly label: string) {}
  get #sql(): Sql {
    return this.store.sql;
  }
  head() {
    return this.store.headPosition();
  }
  async events(from: number, limit: number) {
    return await this.#sql`SELECT position, stream_id, stream_version, type, schema_version,
      data, meta FROM events WHERE position >= ${from} ORDER BY position LIMIT ${limit}`
      .values() as unknown as EventRow[];
  }
  async streams() {
    const rows = await this.#sql`SELECT stream_id, first_position, created_at FROM streams
      ORDER BY stream_id`;
    return rows as unknown as StreamRow[];
  }
  async idempotency() {
    const rows = await this.#sql`SELECT key, stream_id, positions, stream_version, fingerprint
      FROM idempotency ORDER BY key`;
    return rows as unknown as IdemRow[];
  }
  async blobs(after: string, limit: number) {
    const rows = await this.#sql`SELECT hash, media_type, size, bytes FROM blobs
      WHERE hash > ${after} ORDER BY hash COLLATE "C" LIMIT ${limit}`;
    return rows.map((r) => ({
      hash: r.hash as string,
      media_type: r.media_type as string,
      size: Number(r.size),
      bytes: new Uint8Array(r.bytes as Uint8Array),
    }));
  }
  async derived([hash, kind]: [string, string], limit: number) {
    const rows = await this.#sql`SELECT hash, kind, bytes FROM derived
      WHERE (hash COLLATE "C", kind COLLATE "C") > (${hash}, ${kind})
      ORDER BY hash COLLATE "C", kind COLLATE "C" LIMIT ${limit}`;
    return rows.map((r) => ({
      hash: r.hash as string,
      kind: r.kind as string,
      bytes: new Uint8Array(r.bytes as Uint8Array),
    }));
  }
  async writeEvents(rows: EventRow[]) {
    const col = (i: number) => this.#sql.array(rows.map((r) => r[i] as never));
    await this.#sql`INSERT INTO events (position, stream_id, stream_version, type,
      schema_version, data, meta)
      SELECT * FROM unnest(${col(0)}::bigint[], ${col(1)}::text[], ${col(2)}::integer[],
        ${col(3)}::text[], ${col(4)}::integer[], ${col(5)}::text[], ${col(6)}::text[])`;
  }
  async writeBlobs(rows: BlobRow[]) {
    for (const b of rows) {
      await this.#sql`INSERT INTO blobs VALUES (${b.hash}, ${b.media_type}, ${b.size},
        ${b.bytes}) ON CONFLICT (hash) DO NOTHING`;
    }
  }
  async writeDerived(rows: DerivedRow[]) {
    await this.#sql`INSERT INTO derived (hash, kind, bytes)
      SELECT * FROM unnest(${this.#sql.array(rows.map((d) => d.hash))}::text[],
        ${this.#sql.array(rows.map((d) => d.kind))}::text[],
        ${this.#sql.array(rows.map((d) => d.bytes as never))}::bytea[])
      ON CONFLICT (hash, kind) DO NOTHING`;
  }
  async finish(head: number, streams: StreamRow[], idem: IdemRow[]) {
    await this.#sql.begin(async (tx) => {
      await tx`UPDATE log_head SET position = ${head} WHERE id = 1`;
      for (const s of streams) {
        await tx`INSERT INTO streams (stream_id, version, first_position, last_position,
          created_at) SELECT ${s.stream_id}, max(stream_version), ${s.first_position},
          max(position), ${s.created_at} FROM events WHERE stream_id = ${s.stream_id}
          HAVING count(*) > 0`;
      }
      for (const k of idem) {
        await tx`INSERT INTO idempotency VALUES (${k.key}, ${k.stream_id}, ${k.positions},
          ${k.stream_version}, ${k.fingerprint})`;
      }
    });
  }
  close() {
    return this.store.end();
  }
}

async function openRaw(db: string, label: string): Promise<RawLog> {
  if (isPostgresUrl(db)) return new PgRaw(await PostgresEventStore.connect(db), label);
  return new SqliteRaw(db, label);
}

/**
 * Counts and hashes a log the same way whichever store holds it.
 *
 * @param log one side of a copy
 */
async function digestOf(log: RawLog): Promise<LogDigest> {
  const h = createHash("sha256");
  let events = 0;
  for (let from = 0;;) {
    const rows = await log.events(from, CHUNK);
    for (const r of rows) {
      h.update(r.map(String).join("\0")).update("\n");
      events++;
    }
    if (rows.length < CHUNK) break;
    from = Number(rows[rows.length - 1]![0]) + 1;
  }
  const b = createHash("sha256");
  let blobs = 0;
  let badBlobs = 0;
  for (let after = "";;) {
    const rows = await log.blobs(after, 200);
    for (const r of rows) {
      b.update(`${r.hash}\0${r.media_type}\0${r.size}\n`);
      if (createHash("sha256").update(r.bytes).digest("hex") !== r.hash) badBlobs++;
      blobs++;
    }
    if (rows.length < 200) break;
    after = rows[rows.length - 1]!.hash;
  }
  const d = createHash("sha256");
  let derived = 0;
  for (let after: [string, string] = ["", ""];;) {
    const rows = await log.derived(after, 200);
    for (const r of rows) {
      d.update(`${r.hash}\0${r.kind}\0${createHash("sha256").update(r.bytes).digest("hex")}\n`);
      derived++;
    }
    if (rows.length < 200) break;
    after = [rows[rows.length - 1]!.hash, rows[rows.length - 1]!.kind];
  }
  return {
    events,
    streams: (await log.streams()).length,
    idempotencyKeys: (await log.idempotency()).length,
    blobs,
    head: await log.head(),
    eventsSha256: h.digest("hex"),
    blobsSha256: b.digest("hex"),
    badBlobs,
    derived,
    derivedSha256: d.digest("hex"),
  };
}

/** What {@linkcode copyLog} did. */
export interface CopyReport {
  source: LogDigest;
  target: LogDigest;
  /** Fields whose values differ between source and target (empty: verified). */
  mismatches: string[];
}

/** Raised when a copy cannot start: the source is missing or the target is not empty. */
export class CopyRefused extends Error {
  override name = "CopyRefused";
}

/**
 * Copies a whole log from one store to another (SQLite file ↔ PostgreSQL URL) and verifies it.
 *
 * @param from the source: a SQLite file path or a `postgres://` URL
 * @param to the target, which must hold no events, streams or blobs
 * @returns both sides' digests and the fields that differ
 * @throws {CopyRefused} `NAME: …` when the source has no log or the target is not empty
 */
export async function copyLog(from: string, to: string): Promise<CopyReport> {
  const fromLabel = isPostgresUrl(from) ? redactUrl(from) : from;
  const toLabel = isPostgresUrl(to) ? redactUrl(to) : to;
  if (from === to) throw new CopyRefused(`--from and --to name the same log (${fromLabel})`);
  if (!isPostgresUrl(from) && !existsSync(from)) {
    throw new CopyRefused(`${fromLabel}: no event log there`);
  }
  const source = await openRaw(from, fromLabel);
  let target: RawLog | undefined;
  try {
    target = await openRaw(to, toLabel);
    const there = await target.events(0, 1);
    if (
      there.length > 0 || (await target.head()) > 0 || (await target.blobs("", 1)).length > 0
    ) {
      throw new CopyRefused(
        `${toLabel}: not empty (it holds a log already); migrate copies into an empty one`,
      );
    }
    for (let pos = 0;;) {
      const rows = await source.events(pos, CHUNK);
      if (rows.length > 0) await target.writeEvents(rows);
      if (rows.length < CHUNK) break;
      pos = Number(rows[rows.length - 1]![0]) + 1;
    }
    for (let after = "";;) {
      const rows = await source.blobs(after, 100);
      if (rows.length > 0) await target.writeBlobs(rows);
      if (rows.length < 100) break;
      after = rows[rows.length - 1]!.hash;
    }
    for (let after: [string, string] = ["", ""];;) {
      const rows = await source.derived(after, 100);
      if (rows.length > 0) await target.writeDerived(rows);
      if (rows.length < 100) break;
      after = [rows[rows.length - 1]!.hash, rows[rows.length - 1]!.kind];
    }
    await target.finish(await source.head(), await source.streams(), await source.idempotency());
    const [s, t] = [await digestOf(source), await digestOf(target)];
    const mismatches = (Object.keys(s) as (keyof LogDigest)[]).filter((k) => s[k] !== t[k]);
    if (t.badBlobs > 0 && !mismatches.includes("badBlobs")) mismatches.push("badBlobs");
    return { source: s, target: t, mismatches };
  } finally {
    await target?.close();
    await source.close();
  }
}
