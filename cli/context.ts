/**
 * What every command that touches the event log shares: the `--db` flag and how the store is
 * opened (`--db PATH`, else `CAIRN_DB`, else `.cairn/cairn.db` under the current directory).
 *
 * @module
 */
import { join } from "node:path";
import type { FlagSpec, ParsedArgs } from "./args.ts";
import { SqliteEventStore } from "../events/sqlite_event_store.ts";

/** The `--db PATH` flag; spread into a command's `flags`. */
export const DB_FLAGS: Record<string, FlagSpec> = {
  db: {
    type: "string",
    value: "PATH",
    description:
      "Event log file (else $CAIRN_DB, else .cairn/cairn.db under the current directory)",
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
 * Opens the event store a command uses (creating the file and its directory when missing).
 *
 * @param args parsed arguments (may carry `--db`)
 * @returns the open store; the caller closes it
 */
export function openStore(args: ParsedArgs): SqliteEventStore {
  return SqliteEventStore.open(dbPath(args));
}
