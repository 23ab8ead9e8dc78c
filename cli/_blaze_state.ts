/**
 * The state file of the blaze daemon (`blaze.json` next to the database): its pid, port,
 * bearer token and the session the CLI targets. Kept apart from the daemon so the CLI client
 * loads no browser code.
 *
 * @module
 */
import { dirname, join } from "node:path";

/** What the state file holds. */
export interface DaemonState {
  pid: number;
  port: number;
  token: string;
  /** The session the CLI's subcommands target (the last one started). */
  sessionId?: string;
}

/**
 * The state file of the daemon that serves a database.
 *
 * @param db the database path
 * @returns `<dir of db>/blaze.json`
 */
export function statePath(db: string): string {
  return join(dirname(db), "blaze.json");
}

/** Reads the state file, or undefined when there is none. */
export async function readState(db: string): Promise<DaemonState | undefined> {
  try {
    return JSON.parse(await Deno.readTextFile(statePath(db))) as DaemonState;
  } catch {
    return undefined;
  }
}

/** Writes the state file atomically (write, then rename). */
export async function writeState(db: string, state: DaemonState): Promise<void> {
  const path = statePath(db);
  await Deno.writeTextFile(path + ".tmp", JSON.stringify(state));
  await Deno.rename(path + ".tmp", path);
}
