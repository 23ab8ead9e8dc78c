/**
 * The playback report as a projection of a `playback-<id>` stream: partial
 * while the playback runs, final once `PlaybackCompleted` is folded in. Field names are its own
 * (snake_case), so the HTTP answer is the report itself.
 *
 * @module
 */
import type { EventData, StoredEvent } from "../../events/mod.ts";
import { InvalidStreamError } from "../../events/mod.ts";

/** One action's result. Absent fields are omitted, never empty. */
export interface ActionResult {
  /** Position in the playback, from 0. */
  index: number;
  /**
   * The action's number in its source (what `--override N` / `value_overrides` take) when it is
   * not `index`: the playback opened the page first with an `added` action.
   */
  source_index?: number;
  /** Cairn added it (the page the source starts on, opened first); it has no source number. */
  added?: true;
  action: string;
  status: "ok" | "failed" | "healed" | "skipped";
  duration_ms: number;
  description?: string;
  error?: string;
  error_code?: string;
  likely_cause?: string;
  selector_used?: string;
  healed_selector?: string;
  /** The cascade level that healed it: 2 for the chain's second selector (coordinates last). */
  healed_level?: number;
  page_url?: string;
  original_url?: string;
  screenshot_path?: string;
  screenshot_hash?: string;
  warning?: string;
  /** What the player did on its own for the action (a focus tap before typing), not recorded. */
  player_actions?: string[];
  navigation_wait?: string;
  navigation_ms?: number;
  value?: string;
  store_as?: string;
  /** Every cascade level tried, with how many visible elements it matched. */
  tried?: { strategy: string; selector: string; matches: number }[];
}

/**
 * The number a person sees for a result: its number in the source (the replay table's `#`,
 * `--override N`), or undefined for the action Cairn added to open the page first.
 *
 * @param result an action's result
 * @returns its source number, or undefined when it was added
 * @example
 * ```ts
 * const r = { index: 1, source_index: 0, action: "click", status: "ok", duration_ms: 3 } as const;
 * if (sourceNumber(r) !== 0 || sourceNumber({ ...r, index: 0, added: true }) !== undefined) throw new Error();
 * ```
 */
export function sourceNumber(result: ActionResult): number | undefined {
  return result.added ? undefined : result.source_index ?? result.index;
}

/** The report playback over HTTP returns for a playback id. */
export interface PlaybackReport {
  /**
   * `running` until the end; then `completed` when no action failed, else `failed` (a failed
   * action, the page opened first failing, a stopped run, a page that stopped answering).
   */
  status: "running" | "completed" | "failed";
  playback_id: string;
  recording_id?: string;
  source: string;
  test_id?: string;
  /** The test boundary (auto_boundary): when it started and ended. */
  test_boundary?: { test_id: string; started_at: string; ended_at?: string };
  timing: "fast" | "recorded";
  on_error: "continue" | "skip_dependent" | "stop";
  started_at: string;
  /**
   * The counts are of the source's own actions (what the table numbers from 0): the page Cairn
   * opened first is the result marked `added`, with its own status, and counted in none of them.
   */
  actions_executed: number;
  actions_failed: number;
  actions_healed: number;
  actions_skipped: number;
  actions_total: number;
  duration_ms: number;
  /** Why the playback ended before its last action, when it was stopped. */
  error?: string;
  /** The video recorded (`replay --video`): the WebM file, its length and frame count. */
  video?: { path: string; duration_ms?: number; frames?: number };
  /** Why no video was recorded although one was asked for (ffmpeg failed, a device that cannot). */
  video_error?: string;
  warnings: string[];
  screenshots: string[];
  results: ActionResult[];
}

/**
 * The state the projection folds: the report plus the resolution of the action in flight,
 * or nothing before `PlaybackStarted`.
 */
export type ReportState =
  | {
    report: PlaybackReport;
    pending?: { index: number; tried: Tried };
    /**
     * `actions_total` still counts the actions Cairn added (a stream whose `PlaybackStarted`
     * does not say how many): each `added` result takes itself out when it comes.
     */
    addedUncounted?: boolean;
  }
  | undefined;

type Tried = NonNullable<EventData<"PlaybackActionResolved">["tried"]>;

/**
 * Folds one event into the report (pure; `recordedAt` of the events gives the clock).
 *
 * @param state the report so far
 * @param event the next event of the playback stream
 * @returns the new report
 * @throws {Error} when the stream does not start with `PlaybackStarted` or holds a foreign event
 */
export function evolveReport(state: ReportState, event: StoredEvent): ReportState {
  switch (event.type) {
    case "PlaybackStarted": {
      const d = event.data;
      const report: PlaybackReport = {
        status: "running",
        playback_id: d.playbackId,
        ...(d.source.recordingId ? { recording_id: d.source.recordingId } : {}),
        source: d.source.kind,
        ...(d.testId ? { test_id: d.testId } : {}),
        ...(d.testId && d.autoBoundary
          ? { test_boundary: { test_id: d.testId, started_at: event.meta.recordedAt } }
          : {}),
        timing: d.timing,
        on_error: d.onError,
        started_at: event.meta.recordedAt,
        actions_executed: 0,
        actions_failed: 0,
        actions_healed: 0,
        actions_skipped: 0,
        actions_total: d.actionsTotal - (d.addedActions ?? 0),
        duration_ms: 0,
        warnings: [...(d.warnings ?? [])],
        screenshots: [],
        results: [],
      };
      return d.addedActions === undefined ? { report, addedUncounted: true } : { report };
    }
    case "PlaybackActionResolved": {
      const r = need(state, event.type);
      return {
        ...state,
        report: r,
        pending: { index: event.data.index, tried: event.data.tried ?? [] },
      };
    }
    case "PlaybackActionCompleted": {
      const r = need(state, event.type);
      const d = event.data;
      const pending = state?.pending;
      const result: ActionResult = {
        index: d.index,
        ...(d.sourceIndex !== undefined ? { source_index: d.sourceIndex } : {}),
        ...(d.added ? { added: true as const } : {}),
        action: d.action,
        status: d.status,
        duration_ms: Math.round(d.durationMs),
        ...(d.description ? { description: d.description } : {}),
        ...(d.error ? { error: d.error } : {}),
        ...(d.errorCode ? { error_code: d.errorCode } : {}),
        ...(d.likelyCause ? { likely_cause: d.likelyCause } : {}),
        ...(d.selectorUsed ? { selector_used: d.selectorUsed } : {}),
        ...(d.healedSelector ? { healed_selector: d.healedSelector } : {}),
        ...(d.healedLevel ? { healed_level: d.healedLevel } : {}),
        ...(d.pageUrl ? { page_url: d.pageUrl } : {}),
        ...(d.originalUrl ? { original_url: d.originalUrl } : {}),
        ...(d.screenshotPath ? { screenshot_path: d.screenshotPath } : {}),
        ...(d.screenshot ? { screenshot_hash: d.screenshot.hash } : {}),
        ...(d.warning ? { warning: d.warning } : {}),
        ...(d.playerActions?.length ? { player_actions: [...d.playerActions] } : {}),
        ...(d.navigation
          ? { navigation_wait: d.navigation.waitedFor, navigation_ms: d.navigation.durationMs }
          : {}),
        ...(d.value !== undefined ? { value: d.value } : {}),
        ...(d.storeAs ? { store_as: d.storeAs } : {}),
        ...(pending && pending.index === d.index && pending.tried.length > 0
          ? { tried: pending.tried }
          : {}),
      };
      const counts = {
        ok: ["actions_executed"],
        healed: ["actions_executed", "actions_healed"],
        failed: ["actions_failed"],
        skipped: ["actions_skipped"],
      } as const;
      const next: PlaybackReport = { ...r, results: [...r.results, result] };
      // The page Cairn opened first is a result of its own (`added`), not one of the source's
      // actions the counts are of.
      if (!d.added) { for (const key of counts[d.status]) next[key] += 1; }
      else if (state?.addedUncounted) next.actions_total -= 1;
      const shot = d.screenshotPath ?? d.screenshot?.hash;
      if (shot) next.screenshots = [...r.screenshots, shot];
      next.duration_ms = elapsed(r.started_at, event.meta.recordedAt);
      return state?.addedUncounted ? { report: next, addedUncounted: true } : { report: next };
    }
    case "PlaybackCompleted": {
      const r = need(state, event.type);
      // A run that failed an action is `failed` (streams written before the runner said so
      // end `completed` whatever failed).
      const failed = event.data.status === "failed" || r.results.some((x) => x.status === "failed");
      return {
        report: {
          ...r,
          status: failed ? "failed" : "completed",
          duration_ms: Math.round(event.data.durationMs),
          // Actions never played (`on_error: stop`, an aborted run) count as skipped.
          actions_skipped: r.actions_skipped +
            Math.max(r.actions_total - r.results.filter((x) => !x.added).length, 0),
          ...(event.data.error !== undefined ? { error: event.data.error } : {}),
          ...(event.data.video?.path
            ? {
              video: {
                path: event.data.video.path,
                ...(event.data.video.durationMs !== undefined
                  ? { duration_ms: event.data.video.durationMs }
                  : {}),
                ...(event.data.video.frames !== undefined
                  ? { frames: event.data.video.frames }
                  : {}),
              },
            }
            : {}),
          ...(event.data.video?.error ? { video_error: event.data.video.error } : {}),
          ...(r.test_boundary
            ? { test_boundary: { ...r.test_boundary, ended_at: event.meta.recordedAt } }
            : {}),
        },
      };
    }
    default:
      throw new InvalidStreamError(`A playback stream cannot hold a ${event.type} event`);
  }
}

function need(state: ReportState, type: string): PlaybackReport {
  if (!state) {
    throw new InvalidStreamError(`A playback stream must start with PlaybackStarted, not ${type}`);
  }
  return state.report;
}

function elapsed(from: string, to: string): number {
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}

/** The report projection: `{ name, version, initialState, evolve }` (house style). */
export const playbackReportProjection = {
  name: "playback_report",
  // 4: the counts leave out the actions Cairn added (the page opened first); a failed action
  // fails the run; 5: the video
  version: 5,
  initialState: undefined as ReportState,
  evolve: evolveReport,
} as const;

/**
 * Folds a whole playback stream into its report.
 *
 * @param events the events of `playback-<id>` in version order
 * @returns the report, or undefined when the stream is empty
 */
export async function projectReport(
  events: AsyncIterable<StoredEvent> | Iterable<StoredEvent>,
): Promise<PlaybackReport | undefined> {
  let state: ReportState = undefined;
  for await (const e of events) state = evolveReport(state, e);
  return state?.report;
}
