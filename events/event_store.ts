/**
 * The one event-store interface (docs/architecture.md "Events"). SQLite (`SqliteEventStore`) is the
 * embedded default; a PostgreSQL store would implement the same interface.
 *
 * @module
 */
import type { BlobRef, NewEvent, StoredEvent } from "./schemas.ts";

/** Raised when an append's expected stream version does not match; nothing was appended. */
export class ConcurrencyError extends Error {
  override name = "ConcurrencyError";
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedVersion,
    readonly actual: number,
  ) {
    super(`Stream ${streamId} is at version ${actual}, expected ${String(expected)}`);
  }
}

/**
 * Raised when an idempotency key comes back with another stream or other events than the
 * append that stored it: a retry must repeat its request, and a key reused for new work would
 * otherwise drop that work silently. Nothing was appended.
 */
export class IdempotencyError extends Error {
  override name = "IdempotencyError";
  constructor(readonly key: string, message: string) {
    super(message);
  }
}

/**
 * Raised when a stream's events do not fold into what was asked of them: a session without
 * `SessionStarted`, a second one, a playback stream holding another kind's events, a
 * screenshot that is not an image. The events were accepted one by one; together they are not
 * a session (or a playback) this projection can read. A `TypeError`, as it was before it had
 * a name.
 */
export class InvalidStreamError extends TypeError {
  override name = "InvalidStreamError";
}

/** What is wrong with a store's file, as {@linkcode StoreFileError} tells it. */
export type StoreFileFault = "read-only" | "damaged" | "not a database" | "cannot open" | "newer";

/**
 * Raised when the store's file cannot serve as the event log: read-only for a command that
 * writes, damaged (truncated, overwritten), not SQLite, not openable, or written by a newer
 * Cairn. The message starts with the file's name (`cairn.db: …`), so one line says which file
 * and what is wrong with it.
 */
export class StoreFileError extends Error {
  override name = "StoreFileError";
  /**
   * @param file how the file is named (a path, or `PATH (from CAIRN_DB)`)
   * @param fault what is wrong with it
   * @param message the whole message, starting with `file`
   */
  constructor(readonly file: string, readonly fault: StoreFileFault, message: string) {
    super(message);
  }
}

/** Raised when a stream, blob or other stored thing does not exist. */
export class NotFoundError extends Error {
  override name = "NotFoundError";
}

/**
 * The version a stream must be at for an append to succeed: a number (the stream's last
 * version; 0 for an empty stream), `"no_stream"` (must not exist) or `"any"` (no check).
 */
export type ExpectedVersion = number | "no_stream" | "any";

/** Options of {@linkcode EventStore.append}. */
export interface AppendOptions {
  expectedVersion?: ExpectedVersion;
  /**
   * A batch whose key was already stored is not appended again: the original positions return.
   * The key belongs to that stream and those events (types and data); coming back with another
   * stream or other events raises {@linkcode IdempotencyError}.
   */
  idempotencyKey?: string;
}

/** What an append stored. */
export interface AppendResult {
  /** Global positions of the batch, in order. */
  positions: number[];
  /** The stream's version after the batch. */
  streamVersion: number;
  /** True when the idempotency key had been seen and nothing was appended. */
  duplicate: boolean;
}

/** One stream's batch in {@linkcode EventStore.appendMany}. */
export interface AppendBatch {
  streamId: string;
  events: NewEvent[];
  options?: AppendOptions;
}

/** Options of the read methods. */
export interface ReadOptions {
  /** Read events with position (or stream version, for a stream) ≥ this. Default: the start. */
  from?: number;
  /** Read at most this many events. */
  limit?: number;
}

/** A stream's summary. */
export interface StreamInfo {
  streamId: string;
  version: number;
  firstPosition: number;
  lastPosition: number;
  /** `recordedAt` of its first event. */
  createdAt: string;
}

/**
 * The stream named exactly `streamId`, or undefined when there is none (`streams` takes a
 * prefix: `session-a` also finds `session-ab`).
 *
 * @param store the event store
 * @param streamId the stream's id
 * @returns its summary, or undefined
 */
export async function streamInfo(
  store: EventStore,
  streamId: string,
): Promise<StreamInfo | undefined> {
  return (await store.streams(streamId)).find((s) => s.streamId === streamId);
}

/** A stored blob. */
export interface Blob {
  ref: BlobRef;
  bytes: Uint8Array;
}

/** An append-only log of events with content-addressed blobs. */
export interface EventStore {
  /**
   * Appends a batch to a stream atomically.
   *
   * @throws {ConcurrencyError} when `expectedVersion` does not match
   * @throws {IdempotencyError} when the idempotency key was stored for another stream or events
   * @throws {TypeError} when an event's data does not fit its schema (nothing is appended)
   */
  append(streamId: string, events: NewEvent[], options?: AppendOptions): Promise<AppendResult>;
  /**
   * Appends batches to several streams in one transaction: all of them or none (an import file
   * that holds several sessions). Batches are applied in order, each with its own
   * `expectedVersion` and idempotency key, so positions run on from one batch to the next.
   *
   * @throws {ConcurrencyError} when a batch's `expectedVersion` does not match (nothing is appended)
   * @throws {IdempotencyError} when a batch's key was stored for another stream or events
   * @throws {TypeError} naming the stream, event index and field when data does not fit its schema
   */
  appendMany(batches: AppendBatch[]): Promise<AppendResult[]>;
  /** Reads a stream in version order; `from` is a stream version. */
  readStream(streamId: string, options?: ReadOptions): AsyncIterable<StoredEvent>;
  /** Reads the whole log in position order; `from` is a global position. */
  readAll(options?: ReadOptions): AsyncIterable<StoredEvent>;
  /** Replays from `from` and then follows new appends until the signal aborts. */
  subscribe(options: { from?: number; signal: AbortSignal }): AsyncIterable<StoredEvent>;
  /** The last global position (0 when empty). */
  headPosition(): Promise<number>;
  /** Streams whose id starts with `prefix`, oldest first. */
  streams(prefix?: string): Promise<StreamInfo[]>;
  /** Deletes a stream's events (the human recorder's `--ephemeral`); returns how many. */
  deleteStream(streamId: string): Promise<number>;
  /** Stores bytes once under their sha256. */
  putBlob(bytes: Uint8Array, mediaType: string): Promise<BlobRef>;
  /** @throws {NotFoundError} when no blob has that hash */
  getBlob(hash: string): Promise<Blob>;
  /** Whether a blob with that hash is stored, without reading its bytes. */
  hasBlob(hash: string): Promise<boolean>;
  /** Up to `limit` stored blob hashes that start with `prefix` (a short hash's candidates). */
  blobHashes?(prefix: string, limit: number): Promise<string[]>;
  /**
   * Keeps what was computed from a blob (a hierarchy's parsed screen) under the blob's hash and
   * a `kind` naming the encoding and its version; the first bytes put for a pair are kept. A
   * cache, not the log: a store may keep nothing.
   */
  putDerived?(hash: string, kind: string, bytes: Uint8Array): Promise<void>;
  /** What {@linkcode putDerived} kept for a blob and kind, or undefined. */
  getDerived?(hash: string, kind: string): Promise<Uint8Array | undefined>;
  close(): void;
}
