/**
 * Cleaning up after a blaze daemon that died without stopping (killed with SIGKILL, the machine
 * slept through its port, …): its sessions still open in the log end as `interrupted`, the
 * browsers it launched are killed, their temporary profile folders removed, and its state file
 * is removed.
 *
 * @module
 */
import { basename, isAbsolute } from "node:path";
import { SqliteEventStore } from "../events/mod.ts";
import { type DaemonState, statePath } from "./_blaze_state.ts";
import { endOrphanedSession } from "./_orphaned_sessions.ts";
import { PROFILE_PREFIX, profileInUse } from "../drivers/chrome/mod.ts";

/** Whether a process is running and its command line contains `word`. */
export function processRuns(pid: number, word: string): boolean {
  try {
    const cmdline = Deno.readTextFileSync(`/proc/${pid}/cmdline`).replaceAll("\0", " ");
    return cmdline.includes(word);
  } catch {
    return false;
  }
}

/** How long recovery waits for a killed browser's processes to let go of its profile. */
const PROFILE_RELEASE_MS = 3_000;

/**
 * Ends the sessions a dead daemon left open, kills the browsers it launched, removes their
 * profile folders (each only once no running process uses it) and removes its state file.
 *
 * @param db the database the daemon served
 * @param state what its state file held
 * @returns one line per thing done, for stderr
 */
export async function recoverDeadDaemon(db: string, state: DaemonState): Promise<string[]> {
  const lines: string[] = [];
  const ids = [
    ...new Set([...(state.sessions ?? []), ...(state.sessionId ? [state.sessionId] : [])]),
  ];
  const error = `the blaze daemon (pid ${state.pid}) was gone before the session ended`;
  const store = SqliteEventStore.open(db);
  try {
    for (const id of ids) {
      if (!(await endOrphanedSession(store, id, error))) continue;
      lines.push(
        `the blaze daemon (pid ${state.pid}) is gone; its session ${id} was left open — ` +
          "marked interrupted",
      );
    }
  } finally {
    store.close();
  }
  const profiles = new Set(state.profiles ?? []);
  for (const pid of state.browsers ?? []) {
    if (!processRuns(pid, "chrom")) continue; // gone, or the pid now belongs to another program
    const profile = profileFlag(pid);
    // a pid now used by another browser (its profile is not one of the daemon's) is left alone;
    // the state file of an older daemon names no profiles: its browser's own flag does
    if (state.profiles && (profile === undefined || !profiles.has(profile))) continue;
    if (profile !== undefined) profiles.add(profile);
    try {
      Deno.kill(pid, "SIGKILL");
      lines.push(`killed its browser (pid ${pid})`);
    } catch { /* gone meanwhile */ }
  }
  for (const dir of profiles) {
    const line = await removeProfile(dir);
    if (line) lines.push(line);
  }
  await Deno.remove(statePath(db)).catch(() => {});
  if (lines.length === 0) lines.push(`the blaze daemon (pid ${state.pid}) is gone; cleaned up`);
  return lines;
}

/** The `--user-data-dir` of a running process, when it has one. */
function profileFlag(pid: number): string | undefined {
  try {
    const line = Deno.readTextFileSync(`/proc/${pid}/cmdline`);
    const args = line.split("\0");
    return args.find((a) => a.startsWith("--user-data-dir="))?.slice("--user-data-dir=".length) ??
      line.match(/ --user-data-dir=(\S+)/)?.[1]; // a command line rewritten as a title
  } catch {
    return undefined;
  }
}

/**
 * Removes a dead browser's profile folder: only a folder of Cairn's launcher (an absolute path
 * named `cairn-chrome-…`, a real directory, not a link), and only once no running process uses
 * it (a killed browser's helpers exit a moment after it).
 *
 * @returns what was done, or undefined when there was nothing to remove
 */
export async function removeProfile(dir: string): Promise<string | undefined> {
  if (!isAbsolute(dir) || !basename(dir).startsWith(PROFILE_PREFIX)) return undefined;
  const info = await Deno.lstat(dir).catch(() => undefined);
  if (!info?.isDirectory) return undefined;
  for (let waited = 0; profileInUse(dir); waited += 100) {
    if (waited >= PROFILE_RELEASE_MS) return `kept its browser's profile ${dir}: still in use`;
    await new Promise((r) => setTimeout(r, 100));
  }
  try {
    await Deno.remove(dir, { recursive: true });
    return `removed its browser's profile ${dir}`;
  } catch (err) {
    return `could not remove its browser's profile ${dir}: ${
      err instanceof Error ? err.message : String(err)
    }`;
  }
}
