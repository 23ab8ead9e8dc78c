/**
 * The capture projection: a session's events folded into what every exporter needs — the
 * session header, its steps, each action with the screen captured before it, its result and
 * the memory after it, and the timeline in event order.
 *
 * @module
 */
import type { BlobRef, EventData, NewEvent } from "../../events/mod.ts";
import { InvalidStreamError } from "../../events/mod.ts";

/** The projection's name and version (bumped when the fold changes). */
export const CAPTURE_PROJECTION = { name: "capture", version: 1 } as const;

/** Something that happened at a time (`meta.recordedAt`, when the event has one). */
export interface Timed<T> {
  data: T;
  at?: string;
}

/** One action with its context. */
export interface ProjectedAction {
  performed: Timed<EventData<"ActionPerformed">>;
  completed?: Timed<EventData<"ActionCompleted">>;
  /** The last screen captured before the action (possibly before an earlier action). */
  screen?: Timed<EventData<"ScreenCaptured">>;
  /** Screens captured since the previous action, in order (the last is `screen`). */
  freshScreens: Timed<EventData<"ScreenCaptured">>[];
  /** The memory snapshot that followed the action, before the next one. */
  memoryAfter?: Timed<EventData<"MemorySnapshotted">>;
  /** The step the action ran in. */
  step?: { index: number; text: string };
}

/** A step with its outcome. */
export interface ProjectedStep {
  index: number;
  text: string;
  ok?: boolean;
  startedAt?: string;
  endedAt?: string;
}

/** One entry of the timeline, in event order. */
export type TimelineItem =
  | { kind: "step_started"; step: ProjectedStep }
  | { kind: "step_ended"; step: ProjectedStep }
  | { kind: "screen"; screen: Timed<EventData<"ScreenCaptured">> }
  | { kind: "action"; action: ProjectedAction }
  | { kind: "result"; action: ProjectedAction }
  | { kind: "memory"; memory: Timed<EventData<"MemorySnapshotted">>; action?: ProjectedAction }
  | { kind: "navigation"; navigation: Timed<EventData<"NavigationOccurred">> };

/** A session, projected. */
export interface CaptureView {
  session: Timed<EventData<"SessionStarted">>;
  steps: ProjectedStep[];
  actions: ProjectedAction[];
  timeline: TimelineItem[];
  ended?: Timed<EventData<"SessionEnded">>;
  /** Every blob the session references (hierarchies and screenshots), once each. */
  blobs: BlobRef[];
}

/** An event as the projection reads it: a new or a stored one. */
export type ProjectionInput = NewEvent;

function timed<T>(data: T, e: ProjectionInput): Timed<T> {
  const at = e.meta?.recordedAt;
  return at === undefined ? { data } : { data, at };
}

/**
 * Folds a session's events. An action belongs to the step open when it ran; a memory
 * snapshot belongs to the action before it; a result finds its action by `actionId`.
 *
 * @param events the session stream's events in order, starting with `SessionStarted`
 * @returns the projected session
 * @throws {TypeError} when the first event is not `SessionStarted`, a second one appears, or
 *   a playback or validation event is in the stream
 * @example
 * ```ts
 * const v = projectCapture([
 *   { type: "SessionStarted", data: { sessionId: "s", mode: "agent", platform: "web" } },
 *   { type: "ActionPerformed", data: { actionId: "a", kind: "tap", source: "agent" } },
 *   { type: "ActionCompleted", data: { actionId: "a", ok: true, durationMs: 5 } },
 * ]);
 * if (v.actions[0]!.completed?.data.durationMs !== 5) throw new Error();
 * ```
 */
export function projectCapture(events: readonly ProjectionInput[]): CaptureView {
  const first = events[0];
  if (first?.type !== "SessionStarted") {
    throw new InvalidStreamError("A session's events must start with SessionStarted");
  }
  const view: CaptureView = {
    session: timed(first.data, first),
    steps: [],
    actions: [],
    timeline: [],
    blobs: [],
  };
  const seen = new Set<string>();
  const addBlob = (ref: BlobRef | undefined) => {
    if (ref && !seen.has(ref.hash)) {
      seen.add(ref.hash);
      view.blobs.push(ref);
    }
  };
  const byId = new Map<string, ProjectedAction>();
  let step: ProjectedStep | undefined;
  let screen: Timed<EventData<"ScreenCaptured">> | undefined;
  let fresh: Timed<EventData<"ScreenCaptured">>[] = [];
  let last: ProjectedAction | undefined;
  for (const e of events.slice(1)) {
    switch (e.type) {
      case "StepStarted": {
        step = { index: e.data.index, text: e.data.text };
        if (e.meta?.recordedAt !== undefined) step.startedAt = e.meta.recordedAt;
        view.steps.push(step);
        view.timeline.push({ kind: "step_started", step });
        break;
      }
      case "StepEnded": {
        const ended = view.steps.find((s) => s.index === e.data.index) ?? step;
        if (ended) {
          if (e.data.ok !== undefined) ended.ok = e.data.ok;
          if (e.meta?.recordedAt !== undefined) ended.endedAt = e.meta.recordedAt;
          view.timeline.push({ kind: "step_ended", step: ended });
        }
        if (ended === step) step = undefined;
        break;
      }
      case "ScreenCaptured":
        screen = timed(e.data, e);
        fresh.push(screen);
        addBlob(e.data.hierarchy);
        addBlob(e.data.screenshot);
        view.timeline.push({ kind: "screen", screen });
        break;
      case "ActionPerformed": {
        const action: ProjectedAction = { performed: timed(e.data, e), freshScreens: fresh };
        if (screen) action.screen = screen;
        if (step) action.step = { index: step.index, text: step.text };
        fresh = [];
        view.actions.push(action);
        byId.set(e.data.actionId, action);
        last = action;
        view.timeline.push({ kind: "action", action });
        break;
      }
      case "ActionCompleted": {
        const action = byId.get(e.data.actionId);
        if (action) {
          action.completed = timed(e.data, e);
          view.timeline.push({ kind: "result", action });
        }
        break;
      }
      case "MemorySnapshotted": {
        const memory = timed(e.data, e);
        if (last && !last.memoryAfter) last.memoryAfter = memory;
        view.timeline.push({ kind: "memory", memory, ...(last ? { action: last } : {}) });
        break;
      }
      case "NavigationOccurred":
        view.timeline.push({ kind: "navigation", navigation: timed(e.data, e) });
        break;
      case "SessionEnded":
        view.ended = timed(e.data, e);
        break;
      case "SessionStarted":
      case "PlaybackStarted":
      case "PlaybackActionResolved":
      case "PlaybackActionCompleted":
      case "PlaybackCompleted":
      case "ValidationStarted":
      case "ValidationIterationCompleted":
      case "ValidationCompleted":
        throw new InvalidStreamError(`A session stream cannot hold ${e.type} after SessionStarted`);
      default: {
        const never: never = e;
        throw new TypeError(`Unknown event type ${(never as { type: string }).type}`);
      }
    }
  }
  return view;
}
