/**
 * Sessions left open in the log by a process that stopped (a server, the blaze daemon or a
 * `cairn record` killed with SIGKILL): `serve` at start (`cli/_orphaned_runs.ts`, blaze sessions
 * and recordings), `tools/end` on a blaze session no live process holds, and the CLI's recovery
 * of a dead daemon end them `interrupted`. Kept apart so the CLI client loads no browser code.
 *
 * @module
 */
import type { EventStore } from "../events/mod.ts";
import { NO_OUTCOME } from "../runners/blaze/mod.ts";

/**
 * Why a blaze session left open by a dead server was ended: the `error` of its `SessionEnded`
 * (`interrupted`).
 */
export const ORPHANED_SESSION =
  "the process running it stopped before it ended (cairn serve found it open at start)";

/** Why a blaze session was ended when `tools/end` found its process gone. */
export const ORPHANED_SESSION_AT_END =
  "the process running it stopped before it ended (cairn serve found it open when asked to end it)";

/**
 * Ends one blaze (agent) session whose stream has no `SessionEnded`: an action with no
 * `ActionCompleted` (its call was running) gets one, `ok: false` with `error` `NO_OUTCOME`, a
 * step still open `StepEnded` `ok: false`, then `SessionEnded` `interrupted` with `error` `why`. Call
 * it only when no live process runs the session. With `recordings`, a person's recording made by
 * `cairn record` (mode `human`, no import `source`) is ended the same way.
 *
 * @param store the event store
 * @param id the session id (its stream is `session-<id>`)
 * @param why the `error` of its `SessionEnded`
 * @param options `recordings`: end a `cairn record` session too (default: blaze's only)
 * @returns the mode of the session it ended; false when it has ended already, has no stream, or
 *   is not one to end (an import, or a recording without `recordings`)
 */
export async function endOrphanedSession(
  store: EventStore,
  id: string,
  why: string,
  options: { recordings?: boolean } = {},
): Promise<false | "agent" | "human"> {
  const streamId = `session-${id}`;
  let first;
  for await (const e of store.readStream(streamId, { from: 1, limit: 1 })) first = e;
  if (first?.type !== "SessionStarted") return false;
  const mode = first.data.mode;
  const recording = mode === "human" && first.data.source === undefined;
  if (mode !== "agent" && !(recording && options.recordings)) return false;
  let version = 0;
  let ended = false;
  let openStep: number | undefined;
  let lastAt = "";
  const pending = new Map<string, string>(); // actions with no ActionCompleted: when performed
  for await (const e of store.readStream(streamId)) {
    version = e.streamVersion;
    lastAt = e.meta.recordedAt;
    if (e.type === "SessionEnded") ended = true;
    if (e.type === "StepStarted") openStep = e.data.index;
    if (e.type === "StepEnded") openStep = undefined;
    if (e.type === "ActionPerformed") pending.set(e.data.actionId, e.meta.recordedAt);
    if (e.type === "ActionCompleted") pending.delete(e.data.actionId);
  }
  if (ended) return false;
  await store.append(streamId, [
    // a call the process was running: its outcome is unknown, so it is a failed call
    ...[...pending].map(([actionId, at]) => ({
      type: "ActionCompleted" as const,
      data: {
        actionId,
        ok: false,
        durationMs: Math.max(0, Date.parse(lastAt) - Date.parse(at)) || 0,
        error: NO_OUTCOME,
      },
    })),
    ...(openStep !== undefined
      ? [{ type: "StepEnded" as const, data: { index: openStep, ok: false } }]
      : []),
    { type: "SessionEnded", data: { reason: "interrupted", error: why } },
  ], { expectedVersion: version });
  return mode;
}
