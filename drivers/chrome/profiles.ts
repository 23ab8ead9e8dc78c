/**
 * The temporary profile folders Cairn's Chrome launcher makes (`cairn-chrome-…` in the temp
 * folder): which are in use, and the sweep that removes those a killed process left behind.
 * Chromium dies with a SIGKILLed Cairn (it is launched over a pipe), but nothing is left to
 * remove its folder; so each launch removes the folders no running process uses and that have
 * not changed for {@linkcode STALE_PROFILE_MS}.
 *
 * @module
 */
import { join } from "node:path";

/** The name every profile folder Cairn's Chrome launcher makes starts with. */
export const PROFILE_PREFIX = "cairn-chrome-";

/**
 * How long a profile folder must have gone unchanged before a launch removes it: far longer than
 * the time from making a folder to its Chromium running (the launch timeout is 30 s), so a folder
 * another process is about to use is never taken.
 */
export const STALE_PROFILE_MS = 10 * 60_000;

/**
 * Whether a running process was started with `--user-data-dir=<dir>` (a live browser's). A
 * Chromium helper rewrites its command line as one space-separated title, so the flag is
 * looked for as a word of the whole line.
 *
 * @param dir a profile folder
 * @returns true while a process uses it
 */
export function profileInUse(dir: string): boolean {
  return usedBy(commandLines(), dir);
}

/** Whether one of `lines` ({@linkcode commandLines}) was started with `--user-data-dir=<dir>`. */
function usedBy(lines: string[], dir: string): boolean {
  const flag = ` --user-data-dir=${dir} `;
  return lines.some((line) => line.includes(flag));
}

/** Every running process's command line, arguments joined by spaces, padded with one each side. */
function commandLines(): string[] {
  const lines: string[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const line = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).replaceAll("\0", " ");
      lines.push(` ${line} `);
    } catch { /* exited meanwhile */ }
  }
  return lines;
}

/**
 * Removes the profile folders of `tmp` left behind by browsers that are gone: named
 * `cairn-chrome-…`, real directories (not links), unchanged for `staleMs`, and used by no
 * running process. What cannot be removed is left for a later launch.
 *
 * @param tmp the folder Cairn's profiles are made in
 * @param keep a folder never to remove (the launch's own)
 * @param staleMs how long a folder must have gone unchanged
 * @returns the folders removed
 */
export async function removeStaleProfiles(
  tmp: string,
  keep?: string,
  staleMs: number = STALE_PROFILE_MS,
): Promise<string[]> {
  const old: string[] = [];
  const now = Date.now();
  try {
    for await (const entry of Deno.readDir(tmp)) {
      if (!entry.isDirectory || !entry.name.startsWith(PROFILE_PREFIX)) continue;
      const dir = join(tmp, entry.name);
      if (dir === keep) continue;
      const info = await Deno.lstat(dir).catch(() => undefined);
      const changed = info?.mtime?.getTime();
      if (info?.isDirectory && changed !== undefined && now - changed >= staleMs) old.push(dir);
    }
  } catch {
    return []; // an unreadable temp folder: nothing to sweep
  }
  if (old.length === 0) return [];
  const running = commandLines();
  const removed: string[] = [];
  for (const dir of old) {
    if (usedBy(running, dir)) continue;
    try {
      await Deno.remove(dir, { recursive: true });
      removed.push(dir);
    } catch { /* another launch took it, or it is not ours to remove */ }
  }
  return removed;
}
