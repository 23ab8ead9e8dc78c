/**
 * What every command that touches the event log shares: the `--db` flag and how the store is
 * opened (`--db PATH`, else `CAIRN_DB`, else `.cairn/cairn.db` under the current directory).
 *
 * @module
 */
import { dirname, join, resolve } from "node:path";
import { existsSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import type { FlagSpec, ParsedArgs } from "./args.ts";
import { InputError } from "./errors.ts";
import { AmbiguousIdError, matchRun, RUN_KINDS, type RunKind } from "../engine/timeline/mod.ts";
import { asStoreFileError, refuseReadOnly, SqliteEventStore } from "../events/mod.ts";
import {
  type DatabaseContents,
  databaseContents,
  LATEST_VERSION,
  layoutVersion,
  NewerLayoutError,
} from "../events/mod.ts";
import type { EventStore, StoreFileError } from "../events/mod.ts";
import { shareRunsLock } from "./_runs_lock.ts";
import { isPostgresUrl, PostgresEventStore, redactUrl } from "../events/mod.ts";

/** The `--db PATH` flag; spread into a command's `flags`. */
export const DB_FLAGS: Record<string, FlagSpec> = {
  db: {
    type: "string",
    value: "PATH",
    description:
      "Event log file or postgres:// URL (else $CAIRN_DB, else .cairn/cairn.db under the current directory)",
  },
};

/**
 * The database path a command uses.
 *
 * @param args parsed arguments (may carry `--db`)
 * @returns `--db`, else `CAIRN_DB`, else `.cairn/cairn.db` under the current directory
 * @example
 * ```ts
 * const p = dbPath({ flags: { db: "/tmp/x.db" }, positionals: [], help: false });
 * if (p !== "/tmp/x.db") throw new Error();
 * ```
 */
export function dbPath(args: ParsedArgs): string {
  const flag = args.flags.db;
  if (typeof flag === "string" && flag.length > 0) return flag;
  const env = Deno.env.get("CAIRN_DB");
  if (env) return env;
  return join(Deno.cwd(), ".cairn", "cairn.db");
}

/**
 * The folder every file a command writes goes under unless `--out` / `--screenshots` says
 * otherwise (`screenshots/`, `exports/`, `trails/`, `blobs/` in it): the database file's folder
 * (`.cairn/` under the current directory by default, else the folder of `CAIRN_DB` or `--db`).
 * A log with no file beside it (a `postgres://` URL, `:memory:`) has `.cairn/` under the current
 * directory.
 *
 * @param db the database path ({@linkcode dbPath})
 * @returns the folder, absolute
 * @example
 * ```ts
 * if (filesDirOf("/data/run/cairn.db") !== "/data/run") throw new Error();
 * ```
 */
export function filesDirOf(db: string): string {
  if (db === ":memory:" || isPostgresUrl(db)) return join(Deno.cwd(), ".cairn");
  return dirname(resolve(db));
}

/**
 * The folder a command's files go under ({@linkcode filesDirOf} of its database).
 *
 * @param args parsed arguments (may carry `--db`)
 * @returns the folder, absolute
 */
export function filesDir(args: ParsedArgs): string {
  return filesDirOf(dbPath(args));
}

/**
 * The database path as an error names it: the path, and where it came from when that was
 * `CAIRN_DB` (a user who typed no `--db` may not remember the variable is set).
 *
 * @param args parsed arguments (may carry `--db`)
 * @returns `PATH` or `PATH (from CAIRN_DB)`
 */
export function dbLabel(args: ParsedArgs): string {
  const path = dbPath(args);
  const flag = args.flags.db;
  const fromEnv = !(typeof flag === "string" && flag.length > 0) && !!Deno.env.get("CAIRN_DB");
  const shown = isPostgresUrl(path) ? redactUrl(path) : path;
  return fromEnv ? `${shown} (from CAIRN_DB)` : shown;
}

/**
 * Opens the event store a command uses: creating the file and its directory when missing (or
 * empty), or, for a command that only reads (`existing`), refusing a path where no log is, so a
 * mistyped `--db` does not leave a database behind. A directory, or a file that holds something
 * else (not SQLite, or another program's tables), is refused before anything is written to it;
 * so is a damaged file, one of a newer Cairn's layout and, for a command that writes, a
 * read-only one (`StoreFileError`: `PATH: …`, exit 2). A command that only reads (`existing`)
 * opens a read-only file, writing nothing to open it.
 *
 * A command that may write (not `existing`) holds the log's runs lock shared while the store is
 * open (`cli/_runs_lock.ts`), so that a starting `serve` knows a live process may be running
 * a playback or validation on it.
 *
 * @param args parsed arguments (may carry `--db`)
 * @param options `existing`: the file must already hold an event log (and is only read);
 *   `readOnly`: the command only reads (`optimize SESSION`), so a read-only file opens;
 *   `runsLock: false`: do not take the runs lock (`serve` claims it itself)
 * @returns the open store; the caller closes it (which lets go of the lock)
 * @throws {InputError} `No event log at PATH …` when `existing` and there is none (exit 2, as a
 *   missing input file)
 * @throws {InputError} `PATH: …` when the path is a directory or not a Cairn event log
 * @throws {StoreFileError} `PATH: …` when the file is damaged, read-only (for a command that
 *   writes) or of a newer layout
 */
export function openStore(
  args: ParsedArgs,
  options: { existing?: boolean; readOnly?: boolean; runsLock?: boolean } = {},
): EventStore {
  const path = dbPath(args);
  // a PostgreSQL database: connected and migrated before the first call returns
  if (isPostgresUrl(path)) return PostgresEventStore.open(path, { name: dbLabel(args) });
  const contents = checkStorePath(path, dbLabel(args));
  if (options.existing && contents === "empty") {
    throw new InputError(`No event log at ${dbLabel(args)} (cairn ingest FILE creates one)`);
  }
  const store = SqliteEventStore.open(path, {
    name: dbLabel(args),
    ...(options.existing || options.readOnly ? { readOnly: true } : {}),
  });
  if (options.existing || options.runsLock === false || path === ":memory:") return store;
  const lock = shareRunsLock(path);
  if (lock) {
    const close = store.close.bind(store);
    store.close = () => {
      try {
        close();
      } finally {
        lock.close();
      }
    };
  }
  return store;
}

/**
 * Checks, without writing anything, that a path can hold a Cairn event log: missing, empty, or
 * a log already; not a directory, not a file of something else.
 *
 * @param path the database path (`--db`, `CAIRN_DB` or the default)
 * @param label how errors name it (see {@linkcode dbLabel}; default the path)
 * @param options `writes`: the command will write to it, so a read-only file is refused too
 * @returns what the file holds ("empty" when there is none yet)
 * @throws {InputError} `PATH: is a directory …` or `PATH: not a Cairn event log`
 * @throws {StoreFileError} `PATH: …` for a damaged file or one of a newer Cairn's layout
 */
export function checkStorePath(
  path: string,
  label = path,
  options: { writes?: boolean } = {},
): DatabaseContents {
  if (path === ":memory:" || !existsSync(path)) return "empty";
  if (Deno.statSync(path).isDirectory) {
    throw new InputError(
      `${label}: is a directory, not an event log file (name a file, e.g. ${
        join(path, "cairn.db")
      })`,
    );
  }
  const contents = contentsOf(path, label);
  if (contents === "other") throw new InputError(`${label}: not a Cairn event log`);
  if (options.writes) refuseReadOnly(path, label);
  return contents;
}

/**
 * What an existing file holds, read without writing to it; a file that is not SQLite is
 * "other". A damaged file (or one SQLite cannot open) is a `StoreFileError` naming it.
 */
function contentsOf(path: string, label: string): DatabaseContents {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path, { timeout: 10_000 });
  } catch (err) {
    throw asStoreFileError(err, label);
  }
  try {
    const contents = databaseContents(db);
    // a newer Cairn's file is refused here too: `blaze start` checks before its daemon opens it
    const version = contents === "event log" ? layoutVersion(db) : 0;
    if (version > LATEST_VERSION) throw new NewerLayoutError(version);
    return contents;
  } catch (err) {
    const fileError = asStoreFileError(err, label);
    if ((fileError as StoreFileError).fault === "not a database") return "other";
    throw fileError;
  } finally {
    db.close();
  }
}

/**
 * The stream a command-line SESSION names, by the one id rule of {@linkcode matchRun}: a session
 * id (`abc` → `session-abc`) or a stream id (`session-…`, `playback-…`, `validation-…`), or, as
 * git takes a short hash, the start of exactly one of them (`7f3a` for `session-7f3a9c…`). With
 * `kinds` naming playbacks and validations too, their printed ids (`pb-…`) work as well.
 *
 * @param store the event store
 * @param given what the user typed
 * @param kinds the kinds of run a bare id may name (default: sessions; a prefixed id names its own)
 * @returns the stream id, or null when it names none
 * @throws {InputError} when the start fits several streams (exit 2)
 */
export async function matchStream(
  store: EventStore,
  given: string,
  kinds: readonly RunKind[] = ["session"],
): Promise<string | null> {
  const own = RUN_KINDS.find((k) => given.startsWith(`${k}-`));
  try {
    return await matchRun(store, given, own && !kinds.includes(own) ? [...kinds, own] : kinds);
  } catch (err) {
    if (err instanceof AmbiguousIdError) throw new InputError(err.message);
    throw err;
  }
}

/**
 * {@linkcode matchStream} for a SESSION that must exist.
 *
 * @param store the event store
 * @param given what the user typed
 * @returns the stream id
 * @throws {InputError} when the start fits several streams or none (exit 2)
 */
export async function resolveStream(
  store: EventStore,
  given: string,
  kinds?: readonly RunKind[],
): Promise<string> {
  const streamId = await matchStream(store, given, kinds);
  if (streamId === null) throw new InputError(`No session ${JSON.stringify(given)}`);
  return streamId;
}
