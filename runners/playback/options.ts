/**
 * What a caller may ask of a playback ({@linkcode PlaybackOptions}) and the limits that bound
 * it: the default and longest action timeouts, the longest recorded delay.
 *
 * @module
 */
import type { EventData } from "../../events/mod.ts";
import type { PlaybackAction, PlaybackReport } from "../../engine/playback/mod.ts";
import type { PlaybackVideo } from "./video.ts";

/** The error a second start on a busy browser gets. */
export const ALREADY_RUNNING =
  "PLAYBACK: Already running. Query or wait for current playback to complete.";

/** Raised by {@linkcode startPlayback} while another playback runs on the same browser. */
export class PlaybackBusyError extends Error {
  override name = "PlaybackBusyError";
  constructor() {
    super(ALREADY_RUNNING);
  }
}

/** Evaluates `{{…}}` templates against memory (C's `evaluateTemplate`). */
export type TemplateEvaluator = (
  template: string,
  memory: Readonly<Record<string, string>>,
) => string;

/** Options of a playback. */
export interface PlaybackOptions {
  /** `fast` (default) or `recorded` (original delays, capped at 30 s). */
  timing?: "fast" | "recorded";
  /**
   * `continue` (default), `skip_dependent` or `stop`. `skip_dependent` skips type / select /
   * check after a failed click or navigate until the next one succeeds, and any action
   * whose templates read a memory key that a failed or skipped read_text / memory_set was to
   * write, until an action writes it (`skipped_dependency` both).
   */
  onError?: "continue" | "skip_dependent" | "stop";
  /** Test boundary id: every event carries it as `correlationId`. */
  testId?: string;
  /** Record the boundary's start and end around the playback. */
  autoBoundary?: boolean;
  /**
   * Replacement text by the action's number in its source ({@linkcode sourceNumbers}: an action
   * Cairn added has none), for redacted values and dynamic content.
   */
  valueOverrides?: Readonly<Record<string, string>>;
  /** Tab every action targets (default: the active tab). */
  tab?: string;
  /** Per-action timeout (default 10 000 ms). */
  actionTimeoutMs?: number;
  /**
   * Folder screenshots are written to (`<dir>/<playback id>/<status>-<N>.png`, N the action's
   * source number, `open` for the page Cairn opens first).
   */
  screenshotDir?: string;
  /** Playback id (default: a random `pb-…`). */
  playbackId?: string;
  /**
   * Called once the browser is this playback's (no other playback runs on it), before the run
   * begins: `cairn serve` opens a fresh tab there, so nothing of the last run's page is left.
   */
  prepare?: () => Promise<void>;
  /** Memory the run starts with (over the plan's defaults). */
  memory?: Readonly<Record<string, string>>;
  /**
   * Values kept out of every event the playback stores (secrets given as memory, `replay
   * --memory`): replaced by `[redacted]` wherever they appear ({@linkcode SecretScrubber}).
   */
  secrets?: readonly string[];
  /** Template evaluator (default: `evaluateTemplate` of `engine/trail/template.ts`). */
  evaluate?: TemplateEvaluator;
  /** Draw the subtitle overlay (default true). */
  overlay?: boolean;
  /** Record a video: started before the first action, its outcome in `PlaybackCompleted`. */
  video?: PlaybackVideo;
  /** How long a lookup keeps retrying while the page settles before healing gives up (default 2 000 ms). */
  locateWaitMs?: number;
  /**
   * How long an assertion (assert_visible, assert_text, assert_not_visible) and a `wait` for an
   * element keep retrying (default: up to the action timeout, as Playwright's `expect`).
   */
  expectWaitMs?: number;
  /** DOM quiet time awaited after an action that may navigate (default 50 ms; 0 skips). */
  settleAfterMs?: number;
  /** Sleep used by recorded timing (tests pass a recorder). */
  sleep?: (ms: number) => Promise<void>;
  /**
   * Stops the playback before its next action (a recorded-timing wait ends at once); the run
   * then ends `failed`. An action already running finishes first (or fails when its browser
   * closes).
   */
  signal?: AbortSignal;
  /**
   * Called after each action's events are stored, before the next action (a validation loop
   * captures the new run's screen here). A throw is ignored.
   */
  afterAction?: (
    index: number,
    action: PlaybackAction,
    result: EventData<"PlaybackActionCompleted">,
  ) => Promise<void> | void;
}

/** A started playback. */
export interface StartedPlayback {
  playbackId: string;
  streamId: string;
  /** Settles with the final report (never rejects for action failures). */
  done: Promise<PlaybackReport>;
}

/** Inter-action delays are capped at this. */
export const MAX_RECORDED_DELAY_MS = 30_000;
/** Default per-action timeout. */
export const DEFAULT_ACTION_TIMEOUT_MS = 10_000;
/** Longest per-action timeout a caller may ask for (`--timeout`, `timeout_ms`): ten minutes. */
export const MAX_ACTION_TIMEOUT_MS = 600_000;
