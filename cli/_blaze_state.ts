/**
 * The state file of the blaze daemon of one database (`<db>.blaze.json`, beside it): the
 * database it serves, its pid, port, bearer token, the sessions it holds, their browsers' pids
 * and profile folders, and the session the CLI targets. Written 0600 (it holds the token) and atomically.
 * Kept apart from the daemon so the CLI client loads no browser code.
 *
 * @module
 */
import { resolve } from "node:path";

/** What the state file holds. */
export interface DaemonState {
  /** The database the daemon serves (absolute path). */
  db?: string;
  pid: number;
  port: number;
  token: string;
  /** The session the CLI's subcommands target (the last one started). */
  sessionId?: string;
  /** The live sessions of the daemon (kept by the daemon). */
  sessions?: string[];
  /** Pids of the browsers the daemon launched for them (kept by the daemon). */
  browsers?: number[];
  /** The temporary profile folders of those browsers (kept by the daemon). */
  profiles?: string[];
}

/**
 * The state file of the daemon that serves a database: one per database file, so two
 * databases in one folder have a daemon each.
 *
 * @param db the database path
 * @returns `<db>.blaze.json`
 * @example
 * ```ts
 * import { statePath } from "./_blaze_state.ts";
 * if (!statePath("/tmp/b.db").endsWith("/tmp/b.db.blaze.json")) throw new Error();
 * ```
 */
export function statePath(db: string): string {
  return `${resolve(db)}.blaze.json`;
}

/** Reads the state file, or undefined when there is none. */
export async function readState(db: string): Promise<DaemonState | undefined> {
  try {
    return JSON.parse(await Deno.readTextFile(statePath(db))) as DaemonState;
  } catch {
    return undefined;
  }
}

/**
 * Writes the state file atomically (a private temporary file, then rename), readable by its
 * owner only: it holds the daemon's bearer token.
 */
export async function writeState(db: string, state: DaemonState): Promise<void> {
  const path = statePath(db);
  const tmp = `${path}.${Deno.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    await Deno.writeTextFile(tmp, JSON.stringify(state), { mode: 0o600, createNew: true });
    await Deno.rename(tmp, path);
  } catch (err) {
    await Deno.remove(tmp).catch(() => {});
    throw err;
  }
}

/**
 * Changes the state file of a database when it still belongs to the daemon `pid`.
 *
 * @returns the state written, or undefined when the file is gone or another daemon's
 */
export async function updateState(
  db: string,
  pid: number,
  change: (state: DaemonState) => DaemonState,
): Promise<DaemonState | undefined> {
  const state = await readState(db);
  if (state?.pid !== pid) return undefined;
  const next = change(state);
  await writeState(db, next);
  return next;
}
