/**
 * The note a server keeps of its blaze sessions' browser profiles (`<db>.serve-<pid>.profiles.json`
 * beside the log): a server killed with SIGKILL cannot remove the `cairn-chrome-*` folders of
 * the browsers it launched, so the next `serve` on the log, once it holds the runs lock alone
 * (no other Cairn process writes to it), removes the folders a dead server's note names, then
 * the note.
 *
 * @module
 */
import { basename, dirname, join, resolve } from "node:path";
import { removeProfile } from "./_blaze_recover.ts";

/**
 * The note of the server `pid` on `db`.
 *
 * @param db the database path
 * @param pid the server's pid
 * @returns `<db>.serve-<pid>.profiles.json` (absolute)
 */
export function profilesNotePath(db: string, pid: number = Deno.pid): string {
  return `${resolve(db)}.serve-${pid}.profiles.json`;
}

/**
 * Keeps this process's note of `db` up to date: each call writes the folders `profiles()` gives
 * (atomically, one write after the other), or removes the note when there are none.
 *
 * @param db the database path
 * @param profiles the live profile folders
 * @param sessions the open sessions this server runs (`cli/_session_owners.ts`: a restart after
 *   a SIGKILL ends those, and no session the note does not name)
 * @returns the function to call on each change
 */
export function profilesNoter(
  db: string,
  profiles: () => string[],
  sessions: () => string[] = () => [],
): () => Promise<void> {
  const path = profilesNotePath(db);
  let last: Promise<void> = Promise.resolve();
  return () => {
    last = last.then(async () => {
      const dirs = profiles();
      const ids = sessions();
      if (dirs.length === 0 && ids.length === 0) {
        await Deno.remove(path).catch(() => {});
        return;
      }
      const tmp = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
      try {
        await Deno.writeTextFile(
          tmp,
          JSON.stringify({ pid: Deno.pid, profiles: dirs, sessions: ids }),
          {
            mode: 0o600,
            createNew: true,
          },
        );
        await Deno.rename(tmp, path);
      } catch {
        await Deno.remove(tmp).catch(() => {});
      }
    });
    return last;
  };
}

/**
 * Removes the profile folders the notes of other servers on `db` name (each only when it is a
 * `cairn-chrome-*` folder no running process uses), then their notes. Call it only when no
 * other process writes to the log (the runs lock held alone): those servers are gone.
 *
 * @param db the database path
 * @returns one line per folder removed or kept
 */
export async function removeDeadServersProfiles(db: string): Promise<string[]> {
  const lines: string[] = [];
  const dir = dirname(resolve(db));
  const prefix = `${basename(resolve(db))}.serve-`;
  const entries: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (e.isFile && e.name.startsWith(prefix)) entries.push(e.name);
    }
  } catch {
    return lines;
  }
  for (const name of entries) {
    const pid = name.slice(prefix.length).match(/^(\d+)\.profiles\.json$/)?.[1];
    if (pid === undefined || Number(pid) === Deno.pid) continue;
    const path = join(dir, name);
    let profiles: unknown;
    try {
      profiles = JSON.parse(await Deno.readTextFile(path)).profiles;
    } catch { /* unreadable: removed below */ }
    for (const p of Array.isArray(profiles) ? profiles : []) {
      if (typeof p !== "string") continue;
      const line = await removeProfile(p);
      if (line) lines.push(`serve: the server (pid ${pid}) is gone; ${line}`);
    }
    await Deno.remove(path).catch(() => {});
  }
  return lines;
}
