/**
 * Opening a SQLite file as the event log: refusing one this process may not write, bringing its
 * layout up to date, and naming the file in every error SQLite raises about it.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { existsSync } from "node:fs";
import { StoreFileError, type StoreFileFault } from "./event_store.ts";
import { LATEST_VERSION, layoutVersion, migrate, NewerLayoutError } from "./migrations.ts";

/**
 * Refuses a store file this process may not write (mode bits, `chattr +i`, a read-only mount):
 * SQLite opens such a file read-only without a word, and the first append fails, so a command
 * that writes is told at once, before it starts anything. A missing file passes.
 *
 * @param path the store's file
 * @param name how the error names it (default the path)
 * @throws {StoreFileError} `PATH: read-only file, and this command writes to the event log`
 */
export function refuseReadOnly(path: string, name = path): void {
  if (path === ":memory:" || !existsSync(path) || writable(path)) return;
  throw new StoreFileError(
    name,
    "read-only",
    `${name}: read-only file, and this command writes to the event log`,
  );
}

/**
 * Whether this process may write a file (mode bits, `chattr +i`, a read-only mount): opened for
 * writing as SQLite opens it, which changes nothing (`access(2)`-style checks of the mode bits
 * miss an immutable file).
 */
function writable(path: string): boolean {
  try {
    Deno.openSync(path, { read: true, write: true }).close();
    return true;
  } catch {
    return false;
  }
}

/**
 * Brings a file's layout up to date. A reader of a file that cannot be written still opens it
 * when nothing is to be done; one that needs a migration is refused saying so.
 */
export function migrateFile(db: DatabaseSync, name: string, readOnly: boolean): void {
  try {
    migrate(db);
  } catch (err) {
    const fileError = asStoreFileError(err, name);
    if (readOnly && fileError instanceof StoreFileError && fileError.fault === "read-only") {
      throw new StoreFileError(
        name,
        "read-only",
        `${name}: read-only file, and its layout (version ${
          layoutVersion(db)
        }) must be upgraded to version ${LATEST_VERSION} first: open it once where it can be written`,
      );
    }
    throw fileError;
  }
}

/** SQLite's primary result codes for a file that cannot be the log, and what each means. */
const SQLITE_FAULTS = new Map<number, StoreFileFault>([
  [8, "read-only"], // SQLITE_READONLY
  [11, "damaged"], // SQLITE_CORRUPT
  [14, "cannot open"], // SQLITE_CANTOPEN
  [26, "not a database"], // SQLITE_NOTADB
]);
/** The same by SQLite's messages: `exec()` errors carry no code, only the message. */
const SQLITE_FAULT_MESSAGES: [RegExp, StoreFileFault][] = [
  [/^attempt to write a readonly database/, "read-only"],
  [/^database disk image is malformed/, "damaged"],
  [/^unable to open database file/, "cannot open"],
  [/^file is not a database/, "not a database"],
];

/**
 * An error of SQLite's or of the layout check that says the file cannot be the event log, as a
 * {@linkcode StoreFileError} naming it; any other error as it is.
 *
 * @param err what a call on the database threw
 * @param name how to name the file
 * @returns a `StoreFileError`, or `err` unchanged
 * @example
 * ```ts
 * import { NewerLayoutError } from "./migrations.ts";
 * const err = asStoreFileError(new NewerLayoutError(9), "x.db") as Error;
 * if (!err.message.startsWith("x.db: written by a newer Cairn")) throw new Error(err.message);
 * ```
 */
export function asStoreFileError(err: unknown, name: string): unknown {
  if (err instanceof NewerLayoutError) {
    return new StoreFileError(
      name,
      "newer",
      `${name}: written by a newer Cairn (layout version ${err.version}; this Cairn knows up to ${LATEST_VERSION})`,
    );
  }
  const e = err as { code?: unknown; errcode?: unknown; message?: unknown } | null;
  if (e === null || typeof e !== "object" || e.code !== "ERR_SQLITE_ERROR") return err;
  const message = String(e.message);
  const fault = typeof e.errcode === "number"
    ? SQLITE_FAULTS.get(e.errcode & 0xff)
    : SQLITE_FAULT_MESSAGES.find(([re]) => re.test(message))?.[1];
  if (fault === undefined) return err;
  const what = {
    "read-only": "read-only file, and this command writes to the event log",
    "damaged": "damaged file, not a readable event log",
    "cannot open": "cannot open the file",
    "not a database": "not a Cairn event log",
    "newer": "written by a newer Cairn",
  }[fault];
  return new StoreFileError(name, fault, `${name}: ${what} (${message})`);
}
