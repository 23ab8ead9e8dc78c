/**
 * Playbacks, validations and blaze sessions left unfinished by a process that stopped (a server
 * killed with SIGKILL, a crash): their streams have no ending event, so they would report
 * `running` (or stay open) forever. `serve` ends them at start, once, when no other process
 * writes to the log (`cli/_runs_lock.ts`): each gets its ending event, saying why — a run
 * `failed`, a blaze session `interrupted` (as the blaze daemon's sessions end).
 *
 * @module
 */
import { type EventStore, type StreamInfo, streamInfo } from "../events/mod.ts";
import type { NewEvent } from "../events/mod.ts";
import { readValidation, validationStream } from "../runners/validation/mod.ts";
import { stepStatus } from "../engine/validation/mod.ts";
import { endOrphanedSession, ORPHANED_SESSION } from "./_orphaned_sessions.ts";

export {
  endOrphanedSession,
  ORPHANED_SESSION,
  ORPHANED_SESSION_AT_END,
} from "./_orphaned_sessions.ts";

/** Why an unfinished run was ended: the `error` of its `PlaybackCompleted`, in a validation's message. */
export const ORPHANED =
  "the process running it stopped before it ended (cairn serve found it unfinished at start)";

/** Why a run was ended when a stop route found its process gone (a CLI run killed with SIGKILL). */
export const ORPHANED_AT_STOP =
  "the process running it stopped before it ended (cairn serve found it unfinished when asked to stop it)";

/**
 * Ends one playback or validation whose stream has no ending event, as
 * {@linkcode endOrphanedRuns} does, saying {@linkcode ORPHANED_AT_STOP}. Call it only when no
 * live process runs it.
 *
 * @param store the event store
 * @param kind playback or validation
 * @param id its bare id
 * @returns false when it has ended already (or has no stream)
 */
export async function endOrphanedRun(
  store: EventStore,
  kind: "playback" | "validation",
  id: string,
): Promise<boolean> {
  const info = await streamInfo(store, `${kind}-${id}`);
  if (!info) return false;
  return kind === "playback"
    ? await endPlayback(store, info, ORPHANED_AT_STOP)
    : await endValidation(store, info, ORPHANED_AT_STOP);
}

/** A run {@linkcode endOrphanedRuns} ended (or could not end: `error` says why). */
export interface EndedRun {
  kind: "playback" | "validation" | "blaze session" | "recording";
  id: string;
  error?: string;
}

/**
 * Ends every blaze (agent) session and `cairn record` recording left open that a dead Cairn
 * process noted as its own (`options.owned`), as
 * {@linkcode endOrphanedSession} does with {@linkcode ORPHANED_SESSION}, and every playback and
 * validation whose stream has no ending event: `PlaybackCompleted` `failed` with `error`
 * {@linkcode ORPHANED} (its duration up to its last event), and `ValidationCompleted` `failed`
 * with the trail and steps it had reached, as a validation whose loop breaks ends. Call it only when no live process runs any of them.
 *
 * @param store the event store
 * @param options `owned`: the sessions the notes of dead Cairn processes name
 *   (`cli/_session_owners.ts`); no other session is ended
 * @returns the runs it ended, in log order, and those it could not end (a stream no projection
 *   reads), each with `error`
 */
export async function endOrphanedRuns(
  store: EventStore,
  options: { owned?: ReadonlySet<string> } = {},
): Promise<EndedRun[]> {
  const ended: EndedRun[] = [];
  for (const s of await store.streams("session-")) {
    // only a session a Cairn process noted as its own: never an import or an HTTP client's
    if (!options.owned?.has(s.streamId.slice("session-".length))) continue;
    // cheap first: a session whose last event is its end is skipped without reading it all
    let last;
    for await (const e of store.readStream(s.streamId, { from: s.version })) last = e;
    if (!last || last.type === "SessionEnded") continue;
    const id = s.streamId.slice("session-".length);
    try {
      const mode = await endOrphanedSession(store, id, ORPHANED_SESSION, { recordings: true });
      if (mode !== false) {
        ended.push({ kind: mode === "agent" ? "blaze session" : "recording", id });
      }
    } catch (err) {
      ended.push({
        kind: "blaze session",
        id,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
  const attempt = async (
    kind: "playback" | "validation",
    id: string,
    work: () => Promise<boolean>,
  ) => {
    try {
      if (await work()) ended.push({ kind, id });
    } catch (err) {
      ended.push({ kind, id, error: err instanceof Error ? err.message : String(err) });
    }
  };
  for (const s of await store.streams("playback-")) {
    await attempt("playback", s.streamId.slice("playback-".length), () => endPlayback(store, s));
  }
  for (const s of await store.streams("validation-")) {
    await attempt(
      "validation",
      s.streamId.slice("validation-".length),
      () => endValidation(store, s),
    );
  }
  return ended;
}

/** Ends a playback stream whose last event is not `PlaybackCompleted`; false when it ended. */
async function endPlayback(
  store: EventStore,
  s: StreamInfo,
  why: string = ORPHANED,
): Promise<boolean> {
  let first;
  for await (const e of store.readStream(s.streamId, { from: 1, limit: 1 })) first = e;
  if (first?.type !== "PlaybackStarted") return false; // no playback's stream: not ours to end
  let last;
  for await (const e of store.readStream(s.streamId, { from: s.version })) last = e;
  if (!last || last.type === "PlaybackCompleted") return false;
  const durationMs = Math.max(
    0,
    Date.parse(last.meta.recordedAt) - Date.parse(s.createdAt),
  ) || 0;
  await store.append(s.streamId, [{
    type: "PlaybackCompleted",
    data: { status: "failed", durationMs, error: why },
  }], { expectedVersion: s.version });
  return true;
}

/** Ends a validation that is still `running`; false when it ended. */
export async function endValidation(
  store: EventStore,
  s: StreamInfo,
  why: string = ORPHANED,
): Promise<boolean> {
  const id = s.streamId.slice("validation-".length);
  const state = await readValidation(store, id);
  if (state?.status !== "running") return false;
  const event: NewEvent = {
    type: "ValidationCompleted",
    data: {
      status: "failed",
      iterations: state.iteration,
      trail: state.trail,
      steps: state.steps.map((st) => ({
        index: st.index,
        step: st.step,
        status: stepStatus(st),
        evidence: [...st.refinements, ...st.evidence],
      })),
      message: `Validation stopped during iteration ${state.iteration + 1}: ${why}`,
    },
  };
  await store.append(validationStream(id), [event], { expectedVersion: s.version });
  return true;
}
