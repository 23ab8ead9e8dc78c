/**
 * Who has an event log open to write to it, told by an advisory lock (flock) on `<db>.runs.lock`
 * beside the log: every command that writes (`replay`, `validate`, `serve`, …) holds it shared
 * while its store is open, and the kernel drops it when the process ends, however it ends
 * (SIGKILL included). `cairn serve` takes it exclusively for a moment at start: when it gets it,
 * no other Cairn process is writing, so a playback or validation left without its ending event
 * was left by a process that is gone.
 *
 * @module
 */

/**
 * The lock file of a log.
 *
 * @param db the database path
 * @returns `<db>.runs.lock`
 */
export function runsLockPath(db: string): string {
  return `${db}.runs.lock`;
}

/**
 * Holds the log's lock shared (waiting while a starting `serve` holds it alone).
 *
 * @param db the database path
 * @returns the open lock file (closing it lets go), or undefined when it cannot be made (a
 *   read-only folder): the process then does not say it writes
 */
export function shareRunsLock(db: string): Deno.FsFile | undefined {
  let file: Deno.FsFile | undefined;
  try {
    file = Deno.openSync(runsLockPath(db), { read: true, write: true, create: true });
    file.lockSync(false);
    return file;
  } catch {
    file?.close();
    return undefined;
  }
}

/** The log's lock as `serve` claims it at start. */
export interface RunsClaim {
  /** No other process held the lock: every unfinished run was left by a process that is gone. */
  alone: boolean;
  /** Keeps the lock shared from now on (other processes may open the log again). */
  share(): Promise<void>;
  /**
   * Whether every other process that had the log open is gone (the lock could be held alone
   * for a moment); the lock is held shared again either way.
   */
  othersGone(): Promise<boolean>;
  /** Lets go of the lock. */
  close(): void;
}

/**
 * Tries to hold the log's lock alone, without waiting.
 *
 * @param db the database path
 * @returns the claim, or undefined when the lock file cannot be made (`alone` unknown)
 */
export async function claimRunsLock(db: string): Promise<RunsClaim | undefined> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(runsLockPath(db), { read: true, write: true, create: true });
  } catch {
    return undefined;
  }
  const alone = await file.tryLock(true).catch(() => false);
  return {
    alone,
    share: () => file.lock(false),
    othersGone: async () => {
      // converting the shared lock: a refused conversion lets go of it (flock), so it is
      // taken again either way
      const gone = await file.tryLock(true).catch(() => false);
      await file.lock(false);
      return gone;
    },
    close: () => file.close(),
  };
}
