/**
 * Cleaning up after a blaze daemon that died without stopping (killed with SIGKILL, the machine
 * slept through its port, …): its sessions still open in the log end as `interrupted`, the
 * browsers it launched are killed and its state file is removed.
 *
 * @module
 */
import { SqliteEventStore } from "../events/sqlite_event_store.ts";
import { type DaemonState, statePath } from "./_blaze_state.ts";

/** Whether a process is running and its command line contains `word`. */
export function processRuns(pid: number, word: string): boolean {
  try {
    const cmdline = Deno.readTextFileSync(`/proc/${pid}/cmdline`).replaceAll("\0", " ");
    return cmdline.includes(word);
  } catch {
    return false;
  }
}

/**
 * Ends the sessions a dead daemon left open, kills the browsers it launched and removes its
 * state file.
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
      let version = 0;
      let ended = false;
      let openStep: number | undefined;
      for await (const e of store.readStream(`session-${id}`)) {
        version = e.streamVersion;
        if (e.type === "SessionEnded") ended = true;
        if (e.type === "StepStarted") openStep = e.data.index;
        if (e.type === "StepEnded") openStep = undefined;
      }
      if (ended || version === 0) continue;
      await store.append(`session-${id}`, [
        ...(openStep !== undefined
          ? [{ type: "StepEnded" as const, data: { index: openStep, ok: false } }]
          : []),
        { type: "SessionEnded", data: { reason: "interrupted", error } },
      ], { expectedVersion: version });
      lines.push(
        `the blaze daemon (pid ${state.pid}) is gone; its session ${id} was left open — ` +
          "marked interrupted",
      );
    }
  } finally {
    store.close();
  }
  for (const pid of state.browsers ?? []) {
    if (!processRuns(pid, "chrom")) continue; // gone, or the pid now belongs to another program
    try {
      Deno.kill(pid, "SIGKILL");
      lines.push(`killed its browser (pid ${pid})`);
    } catch { /* gone meanwhile */ }
  }
  await Deno.remove(statePath(db)).catch(() => {});
  if (lines.length === 0) lines.push(`the blaze daemon (pid ${state.pid}) is gone; cleaned up`);
  return lines;
}
