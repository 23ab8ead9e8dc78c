/**
 * What the run viewer shows, folded from a stream in one pass: one item an action (a blaze or
 * recorded action, a replayed action, a validation iteration) with its step, status, duration,
 * the screenshots before and after, the point and box, memory and what changed in it, the tool
 * call and the replay report row.
 *
 * @module
 */
import type { EventStore } from "../events/mod.ts";
import { NotFoundError } from "../events/mod.ts";
import type { BlobRef, EventData } from "../events/mod.ts";
import { summarizeEvent } from "../engine/timeline/mod.ts";

type Box = { x: number; y: number; w: number; h: number };

/** One position of the viewer. */
export interface ViewItem {
  /** Global position of the action (its first event): the state there is "before". */
  position: number;
  /** Position of its last event (its result). */
  end: number;
  step: string | null;
  label: string;
  status: "ok" | "healed" | "failed" | "skipped" | "pending";
  durationMs: number | null;
  before: BlobRef | null;
  after: BlobRef | null;
  /** The screen's size in action-point units (CSS pixels on the web), when known. */
  viewport: { width: number; height: number } | null;
  point: Box | { x: number; y: number } | null;
  box: Box | null;
  /** The ref the agent named (its box is found in the snapshot text). */
  ref: string | null;
  memory: Record<string, string>;
  changed: string[];
  call: Record<string, unknown> | null;
  reason: string | null;
  report: Record<string, unknown> | null;
  error: string | null;
  /** Time since the playback started (ms) at this action: where the video shows it. */
  offsetMs: number | null;
}

/** The viewer's data for a run. */
export interface RunView {
  streamId: string;
  kind: string;
  title: string;
  items: ViewItem[];
  lastPosition: number;
  /** A playback's video (`replay --video`, `video: true`): where to GET it, how long it is. */
  video: { url: string; durationMs: number | null } | null;
}

/**
 * Folds a stream into the viewer's items.
 *
 * @param store the event store
 * @param streamId the stream
 * @returns the run's items in order
 * @throws {NotFoundError} when the stream has no events
 */
export async function runView(store: EventStore, streamId: string): Promise<RunView> {
  const items: ViewItem[] = [];
  let title = streamId;
  let step: string | null = null;
  let screen: BlobRef | null = null;
  let viewport: { width: number; height: number } | null = null;
  let memory: Record<string, string> = {};
  let lastPosition = 0;
  const byAction = new Map<string, ViewItem>();
  let resolved: EventData<"PlaybackActionResolved"> | null = null;
  let resolvedAt = 0;
  let startedAt: number | null = null;
  let video: RunView["video"] = null;
  const blank = (position: number, label: string): ViewItem => ({
    position,
    end: position,
    step,
    label,
    status: "pending",
    durationMs: null,
    before: screen,
    after: null,
    viewport,
    point: null,
    box: null,
    ref: null,
    memory: { ...memory },
    changed: [],
    call: null,
    reason: null,
    report: null,
    error: null,
    offsetMs: null,
  });
  for await (const e of store.readStream(streamId)) {
    lastPosition = e.position;
    const last = items.at(-1);
    switch (e.type) {
      case "SessionStarted":
        title = summarizeEvent(e);
        memory = { ...(e.data.memory ?? {}) };
        if (e.data.viewport) viewport = e.data.viewport;
        break;
      case "StepStarted":
        step = `${e.data.index + 1}. ${e.data.text}`;
        break;
      case "ScreenCaptured":
        if (e.data.viewport) viewport = e.data.viewport;
        if (e.data.screenshot) {
          screen = e.data.screenshot;
          if (last && last.after === null && last.status !== "pending") last.after = screen;
        }
        break;
      case "ActionPerformed": {
        const d = e.data;
        const item = blank(e.position, summarizeEvent(e));
        item.point = d.point ?? null;
        item.ref = d.target?.ref ?? null;
        item.call = { tool: d.toolName ?? d.kind, params: d.toolParams ?? null, target: d.target };
        const reason = (d.toolParams as { reason?: unknown } | undefined)?.reason;
        if (typeof reason === "string") item.reason = reason;
        byAction.set(d.actionId, item);
        items.push(item);
        break;
      }
      case "ActionCompleted": {
        const item = byAction.get(e.data.actionId);
        if (!item) break;
        item.status = e.data.ok ? "ok" : "failed";
        item.durationMs = e.data.durationMs;
        item.end = e.position;
        if (e.data.error) item.error = e.data.error;
        break;
      }
      case "MemorySnapshotted": {
        const next = e.data.memory;
        const changed = Object.keys(next).filter((k) => memory[k] !== next[k]);
        memory = { ...next };
        if (last) {
          last.memory = { ...memory };
          last.changed = changed;
        }
        break;
      }
      case "PlaybackStarted":
        title = summarizeEvent(e);
        startedAt = Date.parse(e.meta.recordedAt);
        if (e.data.viewport) viewport = e.data.viewport;
        break;
      case "PlaybackActionResolved":
        resolved = e.data;
        resolvedAt = e.position;
        break;
      case "PlaybackActionCompleted": {
        const d = e.data;
        const r = resolved?.index === d.index ? resolved : null;
        const item = blank(r ? resolvedAt : e.position, d.description ?? d.action);
        item.step = `action ${d.sourceIndex ?? d.index}`;
        if (startedAt !== null) {
          // the action began its duration before it completed
          const at = Date.parse(e.meta.recordedAt) - startedAt - d.durationMs;
          item.offsetMs = Number.isFinite(at) ? Math.max(Math.round(at), 0) : null;
        }
        item.status = d.status;
        item.durationMs = d.durationMs;
        item.end = e.position;
        item.after = d.screenshot ?? null;
        item.point = r?.point ?? null;
        item.box = r?.bounds ?? null;
        item.error = d.error ?? null;
        if (d.storeAs && d.value !== undefined) {
          memory = { ...memory, [d.storeAs]: d.value };
          item.memory = { ...memory };
          item.changed = [d.storeAs];
        }
        item.call = { action: d.action, description: d.description ?? null };
        item.report = {
          status: d.status,
          strategy: r?.strategy ?? null,
          selector: r?.selector ?? null,
          selectorUsed: d.selectorUsed ?? null,
          healedSelector: d.healedSelector ?? null,
          tried: r?.tried ?? [],
          errorCode: d.errorCode ?? null,
          error: d.error ?? null,
          likelyCause: d.likelyCause ?? null,
          pageUrl: d.pageUrl ?? null,
          warning: d.warning ?? null,
        };
        if (d.screenshot) screen = d.screenshot;
        items.push(item);
        resolved = null;
        break;
      }
      case "PlaybackCompleted":
        if (e.data.video?.path) {
          const id = streamId.slice("playback-".length);
          video = {
            url: `/v1/playbacks/${encodeURIComponent(id)}/video`,
            durationMs: e.data.video.durationMs ?? null,
          };
        }
        break;
      case "ValidationStarted":
        title = summarizeEvent(e);
        break;
      case "ValidationIterationCompleted": {
        const item = blank(e.position, summarizeEvent(e));
        item.status = e.data.passed ? "ok" : "failed";
        item.report = { playbackId: e.data.playbackId, steps: e.data.steps };
        items.push(item);
        break;
      }
      default:
        break;
    }
  }
  if (lastPosition === 0) throw new NotFoundError(`No session ${streamId}`);
  return {
    streamId,
    kind: streamId.slice(0, streamId.indexOf("-")),
    title,
    items,
    lastPosition,
    video,
  };
}
