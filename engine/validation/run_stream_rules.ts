/**
 * The rules a playback (`playback-<id>`) or validation (`validation-<id>`) stream keeps, whoever
 * writes it: the runners that write them keep these by construction, and a batch appended over
 * HTTP is held to them, so that every such stream is one the report projections
 * (`engine/playback/report.ts`, `engine/validation/decider.ts`) can read. Each event is folded
 * with the projection itself: what it cannot read is refused, never stored. On top, as a session
 * stream's rules (`session_rules.ts`): the first event starts the run and names the stream's id,
 * there is no second start and nothing after the run's end.
 *
 * @module
 */
import { InvalidStreamError } from "../../events/mod.ts";
import type { NewEvent, StoredEvent } from "../../events/mod.ts";
import { evolveReport, type ReportState } from "../playback/mod.ts";
import { evolve, initialState, type ValidationState } from "./decider.ts";
import type { SessionRuleBreak } from "../formats/mod.ts";

/** The kinds of run stream that have rules: by their stream id's prefix. */
export type RunKind = "playback" | "validation";

/**
 * The run kind of a stream id, when the stream has run rules.
 *
 * @param streamId a stream id
 * @returns `playback` for `playback-*`, `validation` for `validation-*`, else undefined
 * @example
 * ```ts
 * if (runKindOf("playback-pb-1") !== "playback" || runKindOf("session-s") !== undefined) throw new Error();
 * ```
 */
export function runKindOf(streamId: string): RunKind | undefined {
  if (streamId.startsWith("playback-")) return "playback";
  if (streamId.startsWith("validation-")) return "validation";
  return undefined;
}

const KINDS = {
  playback: {
    start: "PlaybackStarted",
    end: "PlaybackCompleted",
    idField: "playbackId",
    fold: (s: ReportState, e: StoredEvent) => evolveReport(s, e),
    initial: undefined as ReportState,
  },
  validation: {
    start: "ValidationStarted",
    end: "ValidationCompleted",
    idField: "validationId",
    fold: (s: ValidationState, e: StoredEvent) => evolve(s, e),
    initial: initialState,
  },
} as const;

/**
 * Checks a batch for a playback or validation stream, in order, against the events the stream
 * holds: each event folds into the stream's report projection (its own event types only, the
 * start first), the start names the stream's id, and there is no second start and nothing after
 * the end.
 *
 * @param streamId `playback-<id>` or `validation-<id>`
 * @param before the events the stream holds, in version order
 * @param batch the batch, in order
 * @returns the first rule broken, or undefined when the batch keeps them all
 * @throws {InvalidStreamError} when the events the stream holds already break them
 * @example
 * ```ts
 * const done = { type: "PlaybackCompleted" as const, data: { status: "completed" as const, durationMs: 1 } };
 * if (checkRunEvents("playback-x", [], [done])?.field !== "type") throw new Error();
 * ```
 */
export function checkRunEvents(
  streamId: string,
  before: readonly StoredEvent[],
  batch: readonly NewEvent[],
): SessionRuleBreak | undefined {
  const kind = runKindOf(streamId);
  if (kind === undefined) return undefined;
  const k = KINDS[kind];
  const id = streamId.slice(`${kind}-`.length);
  // deno-lint-ignore no-explicit-any
  const fold = k.fold as (s: any, e: StoredEvent) => any;
  let state: unknown = k.initial;
  let ended = false;
  for (const e of before) {
    state = fold(state, e);
    ended = e.type === k.end;
  }
  for (let index = 0; index < batch.length; index++) {
    const e = batch[index]!;
    const at = (field: string, message: string) => ({ index, field, message });
    const first = before.length === 0 && index === 0;
    if (!first && e.type === k.start) return at("type", `a second ${k.start} (a ${kind} has one)`);
    if (ended) return at("type", `${e.type} after ${k.end}`);
    if (e.type === k.start) {
      const named = (e.data as Record<string, unknown>)[k.idField];
      if (named !== id) {
        return at(
          `data.${k.idField}`,
          `${JSON.stringify(named)} is not this stream's ${kind} (${streamId}: ${
            JSON.stringify(id)
          })`,
        );
      }
    }
    try {
      state = fold(state, asStored(e, streamId, before.length + index + 1));
    } catch (err) {
      if (!(err instanceof InvalidStreamError)) throw err;
      return at("type", err.message);
    }
    ended = e.type === k.end;
  }
  return undefined;
}

/** A new event as the projection reads it once stored (the store sets `recordedAt` when absent). */
function asStored(e: NewEvent, streamId: string, streamVersion: number): StoredEvent {
  return {
    position: 0,
    streamId,
    streamVersion,
    type: e.type,
    schemaVersion: 1,
    data: e.data,
    meta: { ...e.meta, recordedAt: e.meta?.recordedAt ?? new Date().toISOString() },
  } as StoredEvent;
}
