/**
 * Which open sessions a Cairn process recorded as its own, so that a `serve` starting after that
 * process died ends those and no others. Each process that runs sessions keeps a note beside the
 * log, written as soon as a session has started and removed when it has none:
 *
 * - `serve`: `<db>.serve-<pid>.profiles.json`, `sessions` (its blaze sessions) beside the
 *   browser profile folders (`cli/_serve_profiles.ts`);
 * - the blaze daemon: its state file `<db>.blaze.json`, `sessions`;
 * - `cairn record`: `<db>.record-<pid>.sessions.json`.
 *
 * A session no note names — imported by `ingest`, written by a client over HTTP, or one whose
 * process died before its note was written — is never ended by a restart. Private to `cli/`.
 *
 * @module
 */
import { basename, dirname, join, resolve } from "node:path";
import { readState } from "./_blaze_state.ts";

/**
 * The note of `cairn record` process `pid` on `db`.
 *
 * @param db the database path
 * @param pid the process id
 * @returns `<db>.record-<pid>.sessions.json` (absolute)
 */
export function recordNotePath(db: string, pid: number = Deno.pid): string {
  return `${resolve(db)}.record-${pid}.sessions.json`;
}

/**
 * Writes (or, with no sessions, removes) this process's `cairn record` note, atomically.
 *
 * @param db the database path
 * @param sessions the open sessions it runs
 */
export async function noteRecordSessions(db: string, sessions: string[]): Promise<void> {
  if (db === ":memory:") return; // no other process can open it
  const path = recordNotePath(db);
  if (sessions.length === 0) {
    await Deno.remove(path).catch(() => {});
    return;
  }
  const tmp = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    await Deno.writeTextFile(tmp, JSON.stringify({ pid: Deno.pid, sessions }), {
      mode: 0o600,
      createNew: true,
    });
    await Deno.rename(tmp, path);
  } catch {
    await Deno.remove(tmp).catch(() => {});
  }
}

/** What the notes of other processes on a log say. */
export interface OwnedSessions {
  /** The session ids the notes name. */
  ids: Set<string>;
  /** The `cairn record` notes read (removed once their sessions are ended). */
  recordNotes: string[];
}

/**
 * The sessions the notes of other processes on `db` name (servers, `cairn record`, the blaze
 * daemon). Call it only when no other process writes to the log (the runs lock held alone):
 * those processes are gone, and their sessions were left open by them.
 *
 * @param db the database path
 * @returns the ids and the record notes
 */
export async function sessionsOfDeadProcesses(db: string): Promise<OwnedSessions> {
  const ids = new Set<string>();
  const recordNotes: string[] = [];
  const dir = dirname(resolve(db));
  const base = basename(resolve(db));
  const pattern = new RegExp(
    `^${
      base.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    }\\.(serve|record)-(\\d+)\\.(profiles|sessions)\\.json$`,
  );
  const names: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (e.isFile && pattern.test(e.name)) names.push(e.name);
    }
  } catch {
    return { ids, recordNotes };
  }
  for (const name of names) {
    const [, kind, pid] = pattern.exec(name)!;
    if (Number(pid) === Deno.pid) continue;
    const path = join(dir, name);
    let sessions: unknown;
    try {
      sessions = JSON.parse(await Deno.readTextFile(path)).sessions;
    } catch { /* unreadable: names nothing */ }
    for (const s of Array.isArray(sessions) ? sessions : []) if (typeof s === "string") ids.add(s);
    if (kind === "record") recordNotes.push(path);
  }
  const daemon = await readState(db);
  if (daemon && daemon.pid !== Deno.pid) {
    for (const s of daemon.sessions ?? []) if (typeof s === "string") ids.add(s);
  }
  return { ids, recordNotes };
}
