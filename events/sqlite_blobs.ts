/**
 * Content-addressed blobs (screenshots, hierarchies) in the SQLite event log's file: keyed by
 * the sha256 of their bytes, so the same bytes are stored once.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { createHash } from "node:crypto";
import { type Blob, NotFoundError } from "./event_store.ts";
import type { BlobRef } from "./schemas.ts";
import { asStoreFileError } from "./sqlite_file.ts";

/** The blobs table of one open store file. */
export class SqliteBlobs {
  readonly #name: string;
  readonly #wrote: (bytes: number) => void;
  readonly #put: StatementSync;
  readonly #ref: StatementSync;
  readonly #get: StatementSync;
  readonly #has: StatementSync;
  readonly #hashes: StatementSync;
  readonly #putDerived: StatementSync;
  readonly #getDerived: StatementSync;

  /**
   * @param db the store's connection
   * @param name how errors name the file
   * @param wrote told how many bytes a put wrote (the store's checkpoint accounting)
   */
  constructor(db: DatabaseSync, name: string, wrote: (bytes: number) => void) {
    this.#name = name;
    this.#wrote = wrote;
    this.#put = db.prepare(
      "INSERT OR IGNORE INTO blobs (hash, media_type, size, bytes) VALUES (?, ?, ?, ?)",
    );
    this.#ref = db.prepare("SELECT media_type, size FROM blobs WHERE hash = ?");
    this.#get = db.prepare("SELECT media_type, size, bytes FROM blobs WHERE hash = ?");
    this.#has = db.prepare("SELECT 1 FROM blobs WHERE hash = ?");
    // hex digits sort before "g": [prefix, prefix + "g") holds exactly the hashes it starts
    this.#hashes = db.prepare(
      "SELECT hash FROM blobs WHERE hash >= ?1 AND hash < ?1 || 'g' LIMIT ?2",
    );
    this.#putDerived = db.prepare(
      "INSERT OR IGNORE INTO derived (hash, kind, bytes) VALUES (?, ?, ?)",
    );
    this.#getDerived = db.prepare("SELECT bytes FROM derived WHERE hash = ? AND kind = ?");
  }

  /** Keeps bytes computed from a blob (the first put of a hash and kind is kept). */
  putDerivedSync(hash: string, kind: string, bytes: Uint8Array): void {
    if (this.#putDerived.run(hash, kind, bytes).changes) this.#wrote(bytes.byteLength);
  }

  /** Bytes kept for a blob and kind, not copied; undefined when none are. */
  derivedSync(hash: string, kind: string): Uint8Array | undefined {
    try {
      return (this.#getDerived.get(hash, kind) as { bytes: Uint8Array } | undefined)?.bytes;
    } catch (err) {
      throw asStoreFileError(err, this.#name);
    }
  }

  /** Stores bytes (once per content); the media type of the first put of some bytes is kept. */
  putSync(bytes: Uint8Array, mediaType: string): BlobRef {
    const hash = createHash("sha256").update(bytes).digest("hex");
    if (this.#put.run(hash, mediaType, bytes.byteLength, bytes).changes) {
      this.#wrote(bytes.byteLength);
    }
    const row = this.#ref.get(hash) as { media_type: string; size: number };
    return { hash, mediaType: row.media_type, size: row.size };
  }

  /** Up to `limit` stored hashes starting with `prefix`. */
  hashes(prefix: string, limit: number): string[] {
    return (this.#hashes.all(prefix, limit) as { hash: string }[]).map((r) => r.hash);
  }

  /**
   * A blob with its ref.
   *
   * @throws {NotFoundError} when no blob has that hash
   */
  get(hash: string): Blob {
    const row = this.#get.get(hash) as
      | { media_type: string; size: number; bytes: Uint8Array }
      | undefined;
    if (!row) throw new NotFoundError(`No blob with hash ${hash}`);
    return {
      ref: { hash, mediaType: row.media_type, size: row.size },
      bytes: new Uint8Array(row.bytes),
    };
  }

  /**
   * A blob's bytes, not copied.
   *
   * @throws {NotFoundError} when no blob has that hash
   */
  bytesSync(hash: string): Uint8Array {
    let row: { bytes: Uint8Array } | undefined;
    try {
      row = this.#get.get(hash) as typeof row;
    } catch (err) {
      throw asStoreFileError(err, this.#name);
    }
    if (!row) throw new NotFoundError(`No blob with hash ${hash}`);
    return row.bytes;
  }

  /** Whether a blob is stored: its row is looked up, its bytes are not read. */
  has(hash: string): boolean {
    return this.#has.get(hash) !== undefined;
  }
}
