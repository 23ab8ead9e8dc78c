/**
 * The embedded event store: SQLite through `node:sqlite`, WAL, one file holding the log, the
 * per-stream summary, idempotency keys and content-addressed blobs.
 *
 * Positions are computed inside a `BEGIN IMMEDIATE` transaction from a head counter, so they
 * stay gap-free and strictly increasing with several processes appending to one file; stream
 * versions likewise. A stream is read through its segments (the runs of consecutive positions
 * it holds, `events/migrations.ts` layout 4), so an append that goes on with the stream at the
 * head of the log writes the events table alone; a single such event is one autocommit `INSERT`
 * that the log itself refuses when another connection appended or deleted since (layout 6,
 * `#appendFast`). Data is checked against its type's zod schema on append
 * (`events/exact_check.ts`); rows this code wrote at the current schema version are read back
 * with `JSON.parse` alone, older versions go through the upcasters.
 *
 * This module is the log itself (append, read, subscribe, streams, delete). The rest of the store
 * lives beside it: opening a file, its layout migration and SQLite's file faults in
 * `sqlite_file.ts`, blobs in `sqlite_blobs.ts`, batch checks and idempotency in `batch.ts`
 * (shared with the PostgreSQL store), and reading rows back as events in `rows.ts`.
 *
 * @module
 */
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import {
  type AppendBatch,
  type AppendOptions,
  type AppendResult,
  type Blob,
  ConcurrencyError,
  type EventStore,
  NotFoundError,
  type ReadOptions,
  type StreamInfo,
} from "./event_store.ts";
import { type BlobRef, type NewEvent, type StoredEvent } from "./schemas.ts";
import { layoutVersion } from "./migrations.ts";
import { Checkpointer } from "./checkpointer.ts";
import { asStoreFileError, migrateFile, refuseReadOnly } from "./sqlite_file.ts";
import { SqliteBlobs } from "./sqlite_blobs.ts";
import { type EventRow, toAsync, toEvent, unreadableRow } from "./rows.ts";
import {
  duplicateOf,
  type IdempotencyRow,
  isoNow,
  prepareBatch,
  type PreparedBatch,
} from "./batch.ts";

/** Rows per page when reading: the log is never held in memory whole. */
export const PAGE_SIZE = 1000;
/** Rows per multi-row INSERT in a large batch (7 parameters each, well under SQLite's limit). */
const INSERT_CHUNK = 64;
/** Bytes written between two requests to the background checkpointer (~256 WAL pages). */
const CHECKPOINT_BYTES = 1 << 20;
/** How often a live subscription looks for appends made by other processes. */
const POLL_MS = 200;

/** Options of {@linkcode SqliteEventStore.open}. */
export interface OpenOptions {
  /** How long to wait for another process's write lock. Default 10 000 ms. */
  busyTimeoutMs?: number;
  /**
   * Run WAL checkpoints on a background thread (default true). False: the appending
   * connection checkpoints itself when the WAL reaches 64 MB (for comparison in benches).
   */
  checkpointThread?: boolean;
  /**
   * The caller only reads (`history`, `export`): a file that cannot be written still opens when
   * its layout is current (nothing is written to open it); an append then fails with
   * {@linkcode StoreFileError}. Default false: a file that cannot be written is refused at once.
   */
  readOnly?: boolean;
  /** How errors name the file (default the path): `cairn.db (from CAIRN_DB)`. */
  name?: string;
}

/** A segment: its start position, the stream version there, the next segment's start (or null). */
type Segment = [number, number, number | null];

interface StreamRow {
  stream_id: string;
  first_position: number;
  created_at: string;
}

/** A string above every string starting with `prefix` (an open upper bound for a range scan). */
function upperBound(prefix: string): string {
  if (prefix === "") return "\u{10FFFF}\u{10FFFF}";
  const last = prefix.charCodeAt(prefix.length - 1);
  // ASCII: bump the last character; otherwise no useful bound (substr filters)
  return last < 0x7f ? prefix.slice(0, -1) + String.fromCharCode(last + 1) : "\u{10FFFF}\u{10FFFF}";
}

const EVENT_COLUMNS = "position, stream_id, stream_version, type, schema_version, data, meta";

/** {@linkcode EventStore} on a SQLite file. */
export class SqliteEventStore implements EventStore {
  readonly #db: DatabaseSync;
  readonly #s: Record<string, StatementSync>;
  readonly #listeners = new Set<() => void>();
  readonly #checkpointer: Checkpointer | undefined;
  /** How errors name the file. */
  readonly #name: string;
  /**
   * What this connection knows of the log as of `PRAGMA data_version` = `dataVersion` (which
   * changes whenever another connection commits): the head, the stream of the event at the
   * head, and the versions of streams it appended to. An append whose data_version still
   * matches skips the queries for them.
   */
  readonly #known = {
    dataVersion: -1,
    head: 0,
    /** `log_head.deletes`: how many deletes the log had seen (see {@linkcode #appendFast}). */
    deletes: 0,
    headStream: null as string | null,
    versions: new Map<string, number>(),
  };
  /** Bytes written since the checkpointer was last asked. */
  #unCheckpointed = 0;
  #closed = false;
  /** The file's blobs table. */
  readonly #blobs: SqliteBlobs;

  private constructor(db: DatabaseSync, checkpointer: Checkpointer | undefined, name: string) {
    this.#db = db;
    this.#name = name;
    this.#checkpointer = checkpointer;
    this.#blobs = new SqliteBlobs(db, name, (bytes) => this.#wrote(bytes));
    const p = (sql: string) => db.prepare(sql);
    this.#s = {
      begin: p("BEGIN IMMEDIATE"),
      commit: p("COMMIT"),
      rollback: p("ROLLBACK"),
      // the head: the last event's position, or the high-water mark left by a delete
      head: p(
        "SELECT max(coalesce((SELECT max(position) FROM events), 0), (SELECT position FROM log_head WHERE id = 1)) AS position",
      ),
      // the stream of the event at a position (null: none there)
      streamAt: p("SELECT (SELECT stream_id FROM events WHERE position = ?)"),
      maxPosition: p("SELECT max(position) FROM events"),
      // a stream's last segment: its start, its first version and where the next run starts
      lastSegment: p(
        "SELECT s.start_position, s.start_version, (SELECT min(n.start_position) FROM segments n WHERE n.start_position > s.start_position) FROM segments s WHERE s.stream_id = ? ORDER BY s.start_position DESC LIMIT 1",
      ),
      segments: p(
        "SELECT s.start_position, s.start_version, (SELECT min(n.start_position) FROM segments n WHERE n.start_position > s.start_position) FROM segments s WHERE s.stream_id = ? ORDER BY s.start_position",
      ),
      insertSegment: p(
        "INSERT INTO segments (start_position, stream_id, start_version) VALUES (?, ?, ?)",
      ),
      tombstone: p("UPDATE segments SET stream_id = NULL WHERE stream_id = ?"),
      dataVersion: p("PRAGMA data_version"),
      setHighWater: p(
        "UPDATE log_head SET position = max(position, ?), deletes = deletes + 1 WHERE id = 1",
      ),
      insertStream: p(
        "INSERT OR REPLACE INTO streams (stream_id, first_position, created_at) VALUES (?, ?, ?)",
      ),
      insert: p(`INSERT INTO events (${EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`),
      // one event, unless the log has seen another delete than the 8th parameter says
      insertGuarded: p(
        `INSERT INTO events (${EVENT_COLUMNS}) SELECT ?, ?, ?, ?, ?, ?, ? WHERE (SELECT deletes FROM log_head WHERE id = 1) = ?`,
      ),
      deletes: p("SELECT deletes FROM log_head WHERE id = 1"),
      insertChunk: p(
        `INSERT INTO events (${EVENT_COLUMNS}) VALUES ${
          Array(INSERT_CHUNK).fill("(?, ?, ?, ?, ?, ?, ?)").join(", ")
        }`,
      ),
      idem: p(
        "SELECT stream_id, positions, stream_version, fingerprint FROM idempotency WHERE key = ?",
      ),
      insertIdem: p(
        "INSERT INTO idempotency (key, stream_id, positions, stream_version, fingerprint) VALUES (?, ?, ?, ?, ?)",
      ),
      readAll: p(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE position >= ? ORDER BY position LIMIT ?`,
      ),
      readRange: p(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE position >= ? AND position <= ? ORDER BY position LIMIT ?`,
      ),
      streams: p(
        "SELECT stream_id, first_position, created_at FROM streams WHERE stream_id >= ?1 AND stream_id < ?2 AND substr(stream_id, 1, ?3) = ?1 ORDER BY first_position",
      ),
      deleteRange: p("DELETE FROM events WHERE position >= ? AND position <= ?"),
      deleteStream: p("DELETE FROM streams WHERE stream_id = ?"),
      deleteIdem: p("DELETE FROM idempotency WHERE stream_id = ?"),
    };
    // rows as arrays: cheaper to materialise than objects on the read path
    const arrays = [
      "readAll",
      "readRange",
      "dataVersion",
      "deletes",
      "streamAt",
      "maxPosition",
      "lastSegment",
      "segments",
    ];
    for (const k of arrays) {
      (this.#s[k] as unknown as { setReturnArrays(v: boolean): void }).setReturnArrays(true);
    }
  }

  /**
   * Opens (creating when missing, with its parent directories) and upgrades a store file.
   *
   * @param path a file path, or `":memory:"`
   * @param options lock wait, whether the caller only reads, how errors name the file
   * @returns the open store
   * @throws {StoreFileError} naming the file when it cannot be the event log: read-only (unless
   *   `readOnly`), damaged, not SQLite, not openable, or of a newer layout
   * @example
   * ```ts
   * const store = SqliteEventStore.open(":memory:");
   * await store.append("session-a", [{ type: "StepStarted", data: { index: 0, text: "Open" } }]);
   * if ((await store.headPosition()) !== 1) throw new Error();
   * store.close();
   * ```
   */
  static open(path: string, options: OpenOptions = {}): SqliteEventStore {
    const name = options.name ?? path;
    const file = path !== ":memory:";
    if (file && !options.readOnly) {
      mkdirSync(dirname(path), { recursive: true });
      refuseReadOnly(path, name);
    }
    let db: DatabaseSync;
    try {
      db = new DatabaseSync(path);
    } catch (err) {
      throw asStoreFileError(err, name);
    }
    try {
      db.exec(`PRAGMA busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 10_000)}`);
      // a Cairn file is in WAL mode already; only a writer may have to switch a new one
      if (!options.readOnly || layoutVersion(db) === 0) db.exec("PRAGMA journal_mode = WAL");
      db.exec("PRAGMA synchronous = NORMAL");
      // reads of the main file through mmap rather than pread copies (~30 % faster full reads)
      db.exec("PRAGMA mmap_size = 268435456");
      // SQLite's default page cache (2 MB): a 32 MB one made appends 11-17 % slower here, each
      // new cache page being fresh memory, and did nothing for reads (they go through mmap)
      // Checkpoints (the only fsyncs with WAL + NORMAL) run on a background thread
      // (events/checkpointer.ts). The appending connection checkpoints only as a backstop, when
      // the WAL reaches 16,000 pages (64 MB): by then the worker has copied nearly every frame,
      // so what is left is the copy of the last few and a WAL restart. The WAL file is
      // truncated back to 64 MB after one.
      db.exec("PRAGMA wal_autocheckpoint = 16000");
      db.exec("PRAGMA journal_size_limit = 67108864");
      migrateFile(db, name, options.readOnly === true);
      const thread = file && options.checkpointThread !== false;
      return new SqliteEventStore(db, thread ? new Checkpointer(path) : undefined, name);
    } catch (err) {
      db.close();
      throw asStoreFileError(err, name);
    }
  }

  /** See {@linkcode EventStore.append}. */
  append(
    streamId: string,
    events: NewEvent[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    try {
      return Promise.resolve(this.appendSync(streamId, events, options));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * The synchronous body of {@linkcode append} (the store is synchronous underneath).
   *
   * @throws {TypeError} naming the event index and field when data does not fit its schema
   * @throws {ConcurrencyError} when the expected version does not match
   */
  appendSync(streamId: string, events: NewEvent[], options: AppendOptions = {}): AppendResult {
    const now = isoNow();
    return this.#write([prepareBatch(streamId, events, options, now)], now)[0]!;
  }

  /** See {@linkcode EventStore.appendMany}. */
  appendMany(batches: AppendBatch[]): Promise<AppendResult[]> {
    try {
      return Promise.resolve(this.appendManySync(batches));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** The synchronous body of {@linkcode appendMany}. */
  appendManySync(batches: AppendBatch[]): AppendResult[] {
    const now = isoNow();
    const prepared = batches.map((b) => {
      try {
        return prepareBatch(b.streamId, b.events, b.options ?? {}, now);
      } catch (err) {
        if (err instanceof TypeError) throw new TypeError(`Stream ${b.streamId}: ${err.message}`);
        throw err;
      }
    });
    return this.#write(prepared, now);
  }

  /** Appends prepared batches in one `BEGIN IMMEDIATE` transaction: all of them or none. */
  #write(batches: PreparedBatch[], now: string): AppendResult[] {
    if (batches.length === 1) {
      const fast = this.#appendFast(batches[0]!);
      if (fast !== undefined) {
        const r = batches[0]!.rows[0]!;
        this.#appended(r.data.length + r.meta.length);
        return [fast];
      }
    }
    const s = this.#s;
    const results: AppendResult[] = new Array(batches.length);
    s.begin!.run();
    try {
      for (let i = 0; i < batches.length; i++) {
        const b = batches[i]!;
        results[i] = this.#appendInTx(b, now);
      }
      s.commit!.run();
    } catch (err) {
      this.#known.dataVersion = -1;
      s.rollback!.run();
      throw asStoreFileError(err, this.#name);
    }
    let bytes = 0;
    for (let i = 0; i < batches.length; i++) {
      if (results[i]!.duplicate) continue;
      for (const r of batches[i]!.rows) bytes += r.data.length + r.meta.length;
    }
    if (bytes > 0) this.#appended(bytes);
    return results;
  }

  /**
   * The common append, one event going on with the stream at the head of the log, as a single
   * autocommit INSERT: no BEGIN, COMMIT or `data_version` statement (with the generated exact
   * checks, 1.12–1.25× faster per event: `scripts/store_ab.ts`). It rests on what this
   * connection knows, and the insert itself proves that still holds: the event takes the head it
   * knows + 1, a primary key that any other connection's append since has taken (positions are
   * gap-free), and its WHERE holds the `log_head.deletes` count it knows, which any delete since
   * has changed. Either way nothing is written, the knowledge is dropped, and the caller takes
   * the transaction, which reads the log afresh.
   *
   * @returns the result, or undefined when this append needs the transaction (nothing written)
   */
  #appendFast(batch: PreparedBatch): AppendResult | undefined {
    const known = this.#known;
    const { streamId, rows, expected } = batch;
    if (
      rows.length !== 1 || batch.key !== undefined || known.dataVersion === -1 ||
      known.headStream !== streamId
    ) return undefined;
    const version = known.versions.get(streamId);
    // a version that does not match is checked (and raised) against a fresh read
    if (
      version === undefined || expected === "no_stream" ||
      (typeof expected === "number" && expected !== version)
    ) return undefined;
    const r = rows[0]!;
    const position = known.head + 1;
    let inserted: number | bigint;
    try {
      inserted = this.#s.insertGuarded!.run(
        position,
        streamId,
        version + 1,
        r.type,
        r.schemaVersion,
        r.data,
        r.meta,
        known.deletes,
      ).changes;
    } catch (err) {
      // another connection took the position: the transaction sees where the head went
      if (!isConstraintError(err)) throw asStoreFileError(err, this.#name);
      inserted = 0;
    }
    if (inserted === 0 || inserted === 0n) {
      known.dataVersion = -1;
      return undefined;
    }
    known.head = position;
    known.versions.set(streamId, version + 1);
    return { positions: [position], streamVersion: version + 1, duplicate: false };
  }

  /** After a commit: counts the bytes for the checkpointer and wakes the subscribers. */
  #appended(bytes: number): void {
    this.#wrote(bytes);
    if (this.#listeners.size > 0) { for (const l of [...this.#listeners]) l(); }
  }

  /** Counts bytes written and wakes the background checkpointer every ~1 MB. */
  #wrote(bytes: number): void {
    this.#unCheckpointed += bytes;
    if (this.#unCheckpointed < CHECKPOINT_BYTES || this.#checkpointer === undefined) return;
    this.#unCheckpointed = 0;
    this.#checkpointer.request();
  }

  #appendInTx(batch: PreparedBatch, now: string): AppendResult {
    const { streamId, rows, expected, key } = batch;
    const s = this.#s;
    if (key !== undefined) {
      const seen = s.idem!.get(key) as IdempotencyRow | undefined;
      if (seen) return duplicateOf(seen, batch);
    }
    const [current, head, headStream] = this.#appendState(streamId);
    const exists = current !== null;
    const version = current ?? 0;
    if (
      (expected === "no_stream" && exists) ||
      (typeof expected === "number" && expected !== version)
    ) {
      throw new ConcurrencyError(streamId, expected, version);
    }
    if (rows.length === 0) return { positions: [], streamVersion: version, duplicate: false };
    const positions: number[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) positions[i] = head + i + 1;
    // whole chunks of INSERT_CHUNK rows through one multi-row statement, the rest one by one
    let i = 0;
    if (rows.length >= INSERT_CHUNK) {
      const args: SQLInputValue[] = new Array(INSERT_CHUNK * 7);
      for (; i + INSERT_CHUNK <= rows.length; i += INSERT_CHUNK) {
        for (let j = 0; j < INSERT_CHUNK; j++) {
          const r = rows[i + j]!;
          const o = j * 7;
          args[o] = head + i + j + 1;
          args[o + 1] = streamId;
          args[o + 2] = version + i + j + 1;
          args[o + 3] = r.type;
          args[o + 4] = r.schemaVersion;
          args[o + 5] = r.data;
          args[o + 6] = r.meta;
        }
        s.insertChunk!.run(...args);
      }
    }
    for (; i < rows.length; i++) {
      const r = rows[i]!;
      s.insert!.run(
        head + i + 1,
        streamId,
        version + i + 1,
        r.type,
        r.schemaVersion,
        r.data,
        r.meta,
      );
    }
    const newVersion = version + rows.length;
    // a new run unless the event at the head is this stream's (then the run goes on)
    if (headStream !== streamId) s.insertSegment!.run(head + 1, streamId, version + 1);
    // what the log will be once this commits (a failed commit forgets it: see appendSync)
    const known = this.#known;
    known.head = head + rows.length;
    known.headStream = streamId;
    known.versions.set(streamId, newVersion);
    if (!exists) s.insertStream!.run(streamId, head + 1, rows[0]!.recordedAt ?? now);
    if (key !== undefined) {
      s.insertIdem!.run(key, streamId, JSON.stringify(positions), newVersion, batch.fingerprint!);
    }
    return { positions, streamVersion: newVersion, duplicate: false };
  }

  /**
   * Inside an append's transaction: the stream's version (null: no such stream), the log head
   * and the stream of the event at the head.
   */
  #appendState(streamId: string): [number | null, number, string | null] {
    const known = this.#known;
    const dataVersion = (this.#s.dataVersion!.get() as unknown as [number])[0];
    if (dataVersion === known.dataVersion) {
      const version = known.versions.get(streamId);
      if (version !== undefined) return [version, known.head, known.headStream];
    } else {
      known.dataVersion = dataVersion;
      known.head = this.#headSync();
      known.deletes = (this.#s.deletes!.get() as unknown as [number])[0];
      known.headStream = (this.#s.streamAt!.get(known.head) as unknown as [string | null])[0];
      if (known.versions.size > 0) known.versions.clear();
    }
    const last = this.#lastOf(streamId);
    if (last !== null) {
      if (known.versions.size >= 4096) known.versions.clear();
      known.versions.set(streamId, last[0]);
    }
    return [last === null ? null : last[0], known.head, known.headStream];
  }

  /** A stream's version and last position from its last segment; null when it has none. */
  #lastOf(streamId: string): [number, number] | null {
    const seg = this.#s.lastSegment!.get(streamId) as unknown as Segment | undefined;
    if (seg === undefined) return null;
    const end = this.#runEnd(seg);
    return [seg[1] + end - seg[0], end];
  }

  /** The last position of a segment's run: before the next run, or the last event. */
  #runEnd([start, , next]: Segment): number {
    if (next !== null) return next - 1;
    return (this.#s.maxPosition!.get() as unknown as [number | null])[0] ?? start;
  }

  /** See {@linkcode EventStore.readStream}. */
  readStream(streamId: string, options: ReadOptions = {}): AsyncIterable<StoredEvent> {
    return toAsync(this.readStreamSync(streamId, options));
  }

  /**
   * The synchronous body of {@linkcode readStream}: the stream's runs in position order, each
   * read in pages of {@linkcode PAGE_SIZE} rows. A run's positions and versions step together,
   * so `from` finds its first position without a scan.
   */
  *readStreamSync(streamId: string, options: ReadOptions = {}): Iterable<StoredEvent> {
    const from = options.from ?? 1;
    let left = options.limit ?? Infinity;
    // the row being read, for an error's position (the try costs nothing until it catches)
    let r: EventRow | undefined;
    try {
      const segments = this.#s.segments!.all(streamId) as unknown as Segment[];
      for (const seg of segments) {
        const [start, firstVersion, next] = seg;
        // the last run follows appends made while it is read
        const end = next === null ? Infinity : next - 1;
        if (next !== null && firstVersion + end - start < from) continue;
        let at = start + Math.max(0, from - firstVersion);
        while (left > 0) {
          const n = Math.min(PAGE_SIZE, left);
          r = undefined;
          const rows = this.#s.readRange!.all(at, end, n) as unknown as EventRow[];
          for (r of rows) {
            if (r[1] !== streamId) return; // another stream's run: this stream has no more
            yield toEvent(r);
          }
          left -= rows.length;
          if (rows.length < n) break;
          at = rows[rows.length - 1]![0] + 1;
        }
        if (left <= 0) return;
      }
    } catch (err) {
      throw this.#readError(err, r);
    }
  }

  /** See {@linkcode EventStore.readAll}. */
  readAll(options: ReadOptions = {}): AsyncIterable<StoredEvent> {
    return toAsync(this.readAllSync(options));
  }

  /** The synchronous body of {@linkcode readAll}: pages of {@linkcode PAGE_SIZE} rows. */
  *readAllSync(options: ReadOptions = {}): Iterable<StoredEvent> {
    let next = options.from ?? 0;
    let left = options.limit ?? Infinity;
    // the row being read, for an error's position (the try costs nothing until it catches)
    let r: EventRow | undefined;
    try {
      while (left > 0) {
        const n = Math.min(PAGE_SIZE, left);
        r = undefined;
        const rows = this.#s.readAll!.all(next, n) as unknown as EventRow[];
        for (r of rows) yield toEvent(r);
        if (rows.length < n) return;
        next = rows[rows.length - 1]![0] + 1;
        left -= rows.length;
      }
    } catch (err) {
      throw this.#readError(err, r);
    }
  }

  /**
   * What a read failed on, said with where: the file (damaged, say) or the stored event at a
   * position (data that is not JSON, an unknown type or version). Only on the error path.
   */
  #readError(err: unknown, row: EventRow | undefined): unknown {
    const fileError = asStoreFileError(err, this.#name);
    if (fileError !== err || row === undefined) return fileError;
    return unreadableRow(row, err);
  }

  /** See {@linkcode EventStore.subscribe}: in-process appends wake it at once, others within 200 ms. */
  async *subscribe(options: { from?: number; signal: AbortSignal }): AsyncIterable<StoredEvent> {
    const { signal } = options;
    let next = options.from ?? 0;
    while (!signal.aborted && !this.#closed) {
      // Every position ≤ head is committed: once read, none of them can appear later (a
      // deleted tail leaves head above the last row, which must not wake us forever).
      const head = this.#headSync();
      for (const e of this.readAllSync({ from: next })) {
        next = e.position + 1;
        yield e;
        if (signal.aborted || this.#closed) return;
      }
      if (next <= head) next = head + 1;
      await this.#waitForAppend(next, signal);
    }
  }

  #waitForAppend(next: number, signal: AbortSignal): Promise<void> {
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
      if (this.#closed || this.#headSync() >= next) done();
    });
  }

  #headSync(): number {
    try {
      return (this.#s.head!.get() as { position: number }).position;
    } catch (err) {
      throw asStoreFileError(err, this.#name);
    }
  }

  /** See {@linkcode EventStore.headPosition}. */
  headPosition(): Promise<number> {
    return Promise.resolve(this.#headSync());
  }

  /** See {@linkcode EventStore.streams}. */
  streams(prefix = ""): Promise<StreamInfo[]> {
    try {
      return Promise.resolve(this.#streamsSync(prefix));
    } catch (err) {
      return Promise.reject(asStoreFileError(err, this.#name));
    }
  }

  #streamsSync(prefix: string): StreamInfo[] {
    const rows = this.#s.streams!.all(
      prefix,
      upperBound(prefix),
      prefix.length,
    ) as unknown as StreamRow[];
    const out: StreamInfo[] = [];
    for (const r of rows) {
      const last = this.#lastOf(r.stream_id);
      if (last === null) continue;
      out.push({
        streamId: r.stream_id,
        version: last[0],
        firstPosition: r.first_position,
        lastPosition: last[1],
        createdAt: r.created_at,
      });
    }
    return out;
  }

  /** See {@linkcode EventStore.deleteStream}. */
  deleteStream(streamId: string): Promise<number> {
    const s = this.#s;
    this.#known.dataVersion = -1;
    s.begin!.run();
    try {
      s.setHighWater!.run(this.#headSync());
      let n = 0;
      for (const seg of s.segments!.all(streamId) as unknown as Segment[]) {
        n += Number(s.deleteRange!.run(seg[0], this.#runEnd(seg)).changes);
      }
      s.tombstone!.run(streamId);
      s.deleteStream!.run(streamId);
      s.deleteIdem!.run(streamId);
      s.commit!.run();
      return Promise.resolve(n);
    } catch (err) {
      s.rollback!.run();
      return Promise.reject(asStoreFileError(err, this.#name));
    }
  }

  /** See {@linkcode EventStore.putBlob}. The media type of the first put of some bytes is kept. */
  putBlob(bytes: Uint8Array, mediaType: string): Promise<BlobRef> {
    return this.#settle(() => this.#blobs.putSync(bytes, mediaType));
  }

  /** The synchronous body of {@linkcode putBlob}. */
  putBlobSync(bytes: Uint8Array, mediaType: string): BlobRef {
    return this.#blobs.putSync(bytes, mediaType);
  }

  /** See {@linkcode EventStore.blobHashes}. */
  blobHashes(prefix: string, limit: number): Promise<string[]> {
    return this.#settle(() => this.#blobs.hashes(prefix, limit));
  }

  /** See {@linkcode EventStore.getBlob}. */
  getBlob(hash: string): Promise<Blob> {
    return this.#settle(() => this.#blobs.get(hash));
  }

  /**
   * A blob's bytes, read now (the file is read synchronously anyway): for a caller that must not
   * wait, such as a projection parsing screens only when the optimizer asks for them.
   *
   * @param hash the blob's sha256
   * @returns the bytes (not a copy of a buffer the store reuses)
   * @throws {NotFoundError} when no blob has that hash
   */
  getBlobBytesSync(hash: string): Uint8Array {
    return this.#blobs.bytesSync(hash);
  }

  /** See {@linkcode EventStore.putDerived}. */
  putDerived(hash: string, kind: string, bytes: Uint8Array): Promise<void> {
    return this.#settle(() => this.#blobs.putDerivedSync(hash, kind, bytes));
  }

  /** The synchronous body of {@linkcode putDerived}. */
  putDerivedSync(hash: string, kind: string, bytes: Uint8Array): void {
    this.#blobs.putDerivedSync(hash, kind, bytes);
  }

  /** See {@linkcode EventStore.getDerived}. */
  getDerived(hash: string, kind: string): Promise<Uint8Array | undefined> {
    return this.#settle(() => this.#blobs.derivedSync(hash, kind));
  }

  /**
   * What {@linkcode putDerived} kept, read now (for a projection that reads screens only when
   * the optimizer asks for them, as {@linkcode getBlobBytesSync}).
   *
   * @param hash the blob's sha256
   * @param kind what was derived, and its encoding's version
   * @returns the bytes, or undefined
   */
  getDerivedSync(hash: string, kind: string): Uint8Array | undefined {
    return this.#blobs.derivedSync(hash, kind);
  }

  /** See {@linkcode EventStore.hasBlob}: the blob's row is looked up, its bytes are not read. */
  hasBlob(hash: string): Promise<boolean> {
    return this.#settle(() => this.#blobs.has(hash));
  }

  /** A synchronous call as a promise, SQLite's file errors named as the store's. */
  #settle<T>(f: () => T): Promise<T> {
    try {
      return Promise.resolve(f());
    } catch (err) {
      return Promise.reject(err instanceof NotFoundError ? err : asStoreFileError(err, this.#name));
    }
  }

  /** Closes the file; live subscriptions end. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const l of [...this.#listeners]) l();
    this.#checkpointer?.close();
    this.#db.close();
  }
}

/** SQLite refused a row for a constraint (a taken primary key): `SQLITE_CONSTRAINT_*`. */
function isConstraintError(err: unknown): boolean {
  const code = (err as { errcode?: unknown })?.errcode;
  return typeof code === "number" && (code & 0xff) === 19;
}
