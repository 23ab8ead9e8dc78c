/**
 * The start lock of a database's blaze daemon (`<db>.blaze.lock`, beside the state file): `blaze
 * start` holds it while it finds or launches the daemon and opens its session, so two starts at
 * once share one daemon instead of launching two. It is an exclusive advisory lock (`flock`) on
 * the file, which the kernel releases when its holder exits in any way: a start killed with
 * SIGKILL leaves a stale file that the next start simply locks again. The file names its holder's
 * pid, for the message of a start that waits too long.
 *
 * @module
 */
import { dirname, resolve } from "node:path";

/** How long a start waits for another start (launching a daemon, opening a page) to finish. */
const WAIT_MS = 90_000;
/** How often a waiting start tries the lock again. */
const POLL_MS = 50;

/**
 * The start lock file of a database.
 *
 * @param db the database path
 * @returns `<db>.blaze.lock`
 * @example
 * ```ts
 * import { lockPath } from "./_blaze_lock.ts";
 * if (!lockPath("/tmp/b.db").endsWith("/tmp/b.db.blaze.lock")) throw new Error();
 * ```
 */
export function lockPath(db: string): string {
  return `${resolve(db)}.blaze.lock`;
}

/**
 * Runs `fn` holding the start lock of a database, waiting (bounded) while another process holds
 * it. The file is removed when `fn` ends; a waiter that then holds a lock on the removed file
 * notices (the path no longer names the file it locked) and locks the new one.
 *
 * @param db the database path
 * @param fn what to do under the lock
 * @returns what `fn` returns
 * @throws {Error} when another process holds the lock longer than the wait
 */
export async function withStartLock<T>(db: string, fn: () => Promise<T>): Promise<T> {
  const path = lockPath(db);
  // the database's folder may not exist yet (the first command run with this CAIRN_DB or --db)
  await Deno.mkdir(dirname(path), { recursive: true });
  const file = await acquire(path);
  try {
    await file.truncate(0);
    await file.write(new TextEncoder().encode(`${Deno.pid}\n`));
    return await fn();
  } finally {
    await Deno.remove(path).catch(() => {});
    file.close(); // releases the lock
  }
}

async function acquire(path: string): Promise<Deno.FsFile> {
  for (let waited = 0;; waited += POLL_MS) {
    const file = await Deno.open(path, { create: true, read: true, write: true, mode: 0o600 });
    let locked = false;
    try {
      locked = await file.tryLock(true);
      // the holder removed the file before releasing it: lock the one at the path now
      if (locked && (await sameFile(file, path))) return file;
    } catch (err) {
      file.close();
      throw err;
    }
    file.close();
    if (!locked && waited >= WAIT_MS) {
      const holder = (await Deno.readTextFile(path).catch(() => "")).trim() || "unknown";
      throw new Error(
        `Another cairn blaze start (pid ${holder}) has held ${path} for ${WAIT_MS / 1000} s: ` +
          "wait for it, or stop it and try again",
      );
    }
    if (!locked) await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Whether an open file is still the one its path names (not removed or replaced). */
async function sameFile(file: Deno.FsFile, path: string): Promise<boolean> {
  const [open, named] = [await file.stat(), await Deno.stat(path).catch(() => undefined)];
  return named !== undefined && open.ino === named.ino && open.dev === named.dev;
}
