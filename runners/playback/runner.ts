/**
 * Runs a {@linkcode PlaybackPlan} through any {@linkcode Driver} (003): one action at a time,
 * each located by the self-healing cascade, each result appended to the stream
 * `playback-<id>` as `PlaybackActionResolved` / `PlaybackActionCompleted` between
 * `PlaybackStarted` and `PlaybackCompleted`. The report is a projection of those events.
 *
 * `startPlayback` returns the playback id at once; `done` settles with the final report.
 * One playback runs at a time per browser.
 *
 * @module
 */
import type { EventStore } from "../../events/mod.ts";
import type { BlobRef, EventData, NewEvent } from "../../events/mod.ts";
import {
  DEPENDENT_TYPES,
  describeAction,
  isSupported,
  LONG_PRESS_MS,
  mapTargetStrings,
  type PlaybackAction,
  type PlaybackPlan,
  REDACTED,
  type SelectorMode,
  sourceNumbers,
  type Target,
  targetStrings,
} from "../../engine/playback/mod.ts";
import {
  androidCascade,
  type CascadeLevel,
  describeTried,
  isPositional,
  pickMatch,
  type Resolution,
  resolveTarget,
  WEAK,
  webCascade,
} from "../../engine/playback/mod.ts";
import {
  atRegisteredPoint,
  checkFingerprint,
  checkPointTarget,
  fieldLabel,
  type Landmark,
  layoutOffset,
  nameStillShown,
  nodeText,
  recordedNames,
  scalePoint,
  viewportWarning,
} from "../../engine/playback/mod.ts";
import { type PlaybackReport, projectReport } from "../../engine/playback/mod.ts";
import { type Bounds, center, type Point, type UiNode, walk } from "../../engine/screens/mod.ts";
import {
  describeDialogs,
  type Driver,
  DriverError,
  type FoundElement,
  type Viewport,
} from "../../drivers/mod.ts";
import { showOverlay } from "./overlay.ts";
import type { PlaybackVideo } from "./video.ts";
import { focusedNode, notEditable } from "../blaze/mod.ts";
import { describeNode } from "../blaze/mod.ts";
import { STATUS_CODES } from "node:http";
import { evaluateTemplate, templateVariables } from "../../engine/trail/mod.ts";
import { withDeadline } from "../../drivers/mod.ts";
import { SecretScrubber } from "../../drivers/mod.ts";
import { isUnsafeUrl } from "../../drivers/mod.ts";

/** The error a second start on a busy browser gets (003 R5). */
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

/** Options of a playback (003 R5). */
export interface PlaybackOptions {
  /** `fast` (default) or `recorded` (original delays, capped at 30 s). */
  timing?: "fast" | "recorded";
  /**
   * `continue` (default), `skip_dependent` or `stop`. `skip_dependent` skips type / select /
   * check after a failed click or navigate until the next one succeeds (003 R4), and any action
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

/** Inter-action delays are capped at this (003 R2). */
export const MAX_RECORDED_DELAY_MS = 30_000;
/**
 * Longest wait for DOM quiet after a click or key press: a page that never stops mutating
 * (an animation, a ticking clock) costs at most this; lookups still wait for their element.
 */
const SETTLE_CAP_MS = 1_500;
/** Default per-action timeout (003 R1). */
export const DEFAULT_ACTION_TIMEOUT_MS = 10_000;
/** Longest per-action timeout a caller may ask for (`--timeout`, `timeout_ms`): ten minutes. */
export const MAX_ACTION_TIMEOUT_MS = 600_000;
/**
 * Longest wait for a page call around an action (subtitle, screenshot, url): a hung page costs
 * at most this per call.
 */
const PAGE_CALL_CAP_MS = 2_000;
/**
 * What an action's own waits (a lookup, an assertion's retries) leave of its timeout, at most:
 * they give up in time to report why (`selector_not_found`, `assertion_failed`) instead of
 * being cut off as a `timeout`.
 */
const RESERVE_MS = 500;
/** Between two reads of a retried assertion (Playwright's `expect` polls about as often). */
const POLL_MS = 100;
/** Bounds every retry loop: the longest action timeout, polled at {@linkcode POLL_MS}. */
const MAX_POLLS = Math.ceil(MAX_ACTION_TIMEOUT_MS / POLL_MS);
/** Actions that wait for the page up to the action timeout, as Playwright's `expect` does. */
const ASSERTS: ReadonlySet<string> = new Set(["assert_visible", "assert_text", "wait"]);
/** Clicks: a failed one blocks the actions that depend on it (003 R4). */
const CLICKS: ReadonlySet<string> = new Set(["click", "double_click"]);
/** Actions that read their element's text: the text recorded then is no name of it now. */
const READS: ReadonlySet<string> = new Set(["read_text", "assert_text"]);

const busy = new WeakSet<object>();

function lockKey(driver: Driver): object {
  const browser = (driver as { browser?: unknown }).browser;
  return typeof browser === "object" && browser !== null ? browser : driver;
}

/**
 * The stream a playback's events go to.
 *
 * @param playbackId the playback id
 * @returns `playback-<id>`
 */
export function playbackStream(playbackId: string): string {
  return `playback-${playbackId}`;
}

/**
 * Starts a playback and returns at once; the actions run in the background.
 *
 * @param driver the browser or device
 * @param store where the playback events go
 * @param plan the actions
 * @param options timing, error mode, boundary, overrides, tab, timeouts
 * @returns the playback id and a promise of the final report
 * @throws {PlaybackBusyError} when a playback already runs on this browser
 */
export async function startPlayback(
  driver: Driver,
  store: EventStore,
  plan: PlaybackPlan,
  options: PlaybackOptions = {},
): Promise<StartedPlayback> {
  const key = lockKey(driver);
  if (busy.has(key)) throw new PlaybackBusyError();
  busy.add(key);
  try {
    await options.prepare?.();
    const run = new Run(driver, store, plan, options);
    await run.begin();
    const done = run.play().finally(() => busy.delete(key));
    return { playbackId: run.id, streamId: run.stream, done };
  } catch (err) {
    busy.delete(key);
    throw err;
  }
}

/**
 * Plays a plan to the end.
 *
 * @param driver the browser or device
 * @param store where the playback events go
 * @param plan the actions
 * @param options see {@linkcode PlaybackOptions}
 * @returns the final report
 */
export async function runPlayback(
  driver: Driver,
  store: EventStore,
  plan: PlaybackPlan,
  options: PlaybackOptions = {},
): Promise<PlaybackReport> {
  const started = await startPlayback(driver, store, plan, options);
  return await started.done;
}

/**
 * The report of a playback, partial while it runs.
 *
 * @param store the event store
 * @param playbackId the playback id
 * @returns the report, or undefined for an unknown id
 */
export async function readPlaybackReport(
  store: EventStore,
  playbackId: string,
): Promise<PlaybackReport | undefined> {
  return await projectReport(store.readStream(playbackStream(playbackId)));
}

type Completed = EventData<"PlaybackActionCompleted">;
type Resolved = EventData<"PlaybackActionResolved">;

type Tried = NonNullable<Resolved["tried"]>;

class ActionFailure extends Error {
  constructor(
    readonly code: NonNullable<Completed["errorCode"]>,
    message: string,
    readonly tried?: Tried,
  ) {
    super(message);
  }
}

class Run {
  readonly id: string;
  readonly stream: string;
  #version = 0;
  #memory: Record<string, string>;
  #viewport: Viewport = { width: 0, height: 0, devicePixelRatio: 1 };
  #urlMismatch = false;
  #blocked = false;
  /**
   * `skip_dependent`: memory keys whose producing action (a read_text or memory_set with
   * `storeAs`) failed or was skipped, with that action's index; cleared when one produces it.
   */
  #unproduced = new Map<string, number>();
  /** Each action's number in its source (undefined: added by Cairn). */
  #numbers: (number | undefined)[];
  /** How many of the plan's actions are the source's own (not added by Cairn). */
  #sourceTotal: number;
  #started = 0;
  #lastUrl = "";
  /** Why the page last failed to answer a bounded call; cleared when it answers again. */
  #unresponsive: string | undefined;
  /** `options.secrets`, taken out of every stored event. */
  #secrets = new SecretScrubber();
  /** When the action in flight times out (`performance.now()` clock). */
  #deadline = 0;
  /** The results so far, by index. */
  #results: Completed[] = [];
  /**
   * The elements earlier actions found by a selector, with their recorded points: they register
   * the recorded layout on the current screen (`layoutOffset`).
   */
  #landmarks: Landmark[] = [];

  constructor(
    readonly driver: Driver,
    readonly store: EventStore,
    readonly plan: PlaybackPlan,
    readonly options: PlaybackOptions,
  ) {
    this.id = options.playbackId ?? `pb-${crypto.randomUUID().slice(0, 12)}`;
    this.stream = playbackStream(this.id);
    this.#memory = { ...(plan.memory ?? {}), ...(options.memory ?? {}) };
    this.#numbers = sourceNumbers(plan.actions);
    this.#sourceTotal = this.#numbers.filter((n) => n !== undefined).length;
    for (const s of options.secrets ?? []) this.#secrets.add(s);
    driver.addSecrets?.(options.secrets ?? []);
  }

  /**
   * How messages name the action at a plan position: `action N`, N its `index` in the report's
   * results (after a navigate Cairn added, one more than its number in the source).
   */
  #name(index: number): string {
    const n = this.#numbers[index];
    return n === undefined ? "the opening navigate" : `action ${index}`;
  }

  /**
   * The subtitle's progress: `3/12`, the action's place among the source's own actions (its
   * number + 1) and how many there are, so an added navigate shifts neither; `+` for the
   * navigate Cairn added (the report's `+`).
   */
  #progress(index: number): string {
    const n = this.#numbers[index];
    return n === undefined ? "+" : `${n + 1}/${this.#sourceTotal}`;
  }

  /** The override for the action at a plan position (keyed by its source number). */
  #override(index: number): string | undefined {
    const n = this.#numbers[index];
    return n === undefined ? undefined : this.options.valueOverrides?.[String(n)];
  }

  async begin(): Promise<void> {
    this.#started = performance.now();
    const ms = Math.max(this.#actionMs(), DEFAULT_ACTION_TIMEOUT_MS);
    if (this.options.tab) {
      await this.#bounded(
        this.driver.switchTab(this.options.tab),
        `switch to ${this.options.tab}`,
        ms,
      );
    }
    this.#viewport = await this.#bounded(this.driver.viewport(), "read the viewport", ms);
    this.driver.takeDialogs?.(); // answered before this playback: not its actions'
    const warnings: string[] = [];
    const vw = viewportWarning(this.plan.viewport, this.#viewport);
    if (vw) warnings.push(vw);
    const o = this.options;
    await this.#append([{
      type: "PlaybackStarted",
      data: {
        playbackId: this.id,
        source: this.plan.source,
        platform: this.plan.platform,
        actionsTotal: this.plan.actions.length,
        ...(this.#sourceTotal < this.plan.actions.length
          ? { addedActions: this.plan.actions.length - this.#sourceTotal }
          : {}),
        timing: o.timing ?? "fast",
        onError: o.onError ?? "continue",
        ...(o.testId ? { testId: o.testId } : {}),
        ...(o.autoBoundary ? { autoBoundary: true } : {}),
        viewport: { width: this.#viewport.width, height: this.#viewport.height },
        ...(warnings.length ? { warnings } : {}),
      },
    }], "no_stream");
    await this.options.video?.start(this.driver, this.id);
  }

  /**
   * Plays every action. When the run itself breaks (the store refuses an event), the stream
   * still ends with `PlaybackCompleted` `failed`, and the error is rethrown.
   */
  async play(): Promise<PlaybackReport> {
    let completed = false;
    try {
      return await this.#playAll(() => completed = true);
    } catch (err) {
      if (!completed) {
        await this.options.video?.stop();
        await this.#append([{
          type: "PlaybackCompleted",
          data: { status: "failed", durationMs: Math.round(performance.now() - this.#started) },
        }]).catch(() => {}); // the store refuses even this: the caller still gets `err`
      }
      throw err;
    }
  }

  async #playAll(onCompleted: () => void): Promise<PlaybackReport> {
    let failedStop = false;
    let anyFailed = false;
    let stopped: string | undefined;
    const actions = this.plan.actions;
    const signal = this.options.signal;
    let lastTs: number | undefined;
    for (const [index, action] of actions.entries()) {
      if (this.options.timing === "recorded" && action.timestampMs !== undefined) {
        if (lastTs !== undefined) {
          const delay = Math.min(Math.max(action.timestampMs - lastTs, 0), MAX_RECORDED_DELAY_MS);
          if (delay > 0) await (this.options.sleep ?? ((ms) => sleep(ms, signal)))(delay);
        }
        lastTs = action.timestampMs;
      }
      const why = () => signal?.reason instanceof Error ? `: ${signal.reason.message}` : "";
      if (signal?.aborted) {
        failedStop = true;
        stopped = `Stopped before ${this.#name(index)}${why()}`;
        break;
      }
      const result = await this.#playOne(index, action);
      if (result.status === "failed") anyFailed = true;
      this.#results[index] = result;
      if (action.storeAs && this.options.onError === "skip_dependent") {
        if (result.status === "ok" || result.status === "healed") {
          this.#unproduced.delete(action.storeAs);
        } else this.#unproduced.set(action.storeAs, index);
      }
      if (this.options.afterAction) {
        try {
          await this.options.afterAction(index, action, result);
        } catch {
          // the hook never fails the playback
        }
      }
      if (result.status === "failed" && signal?.aborted) {
        // the stop interrupted this action (its browser closed under it): the error names it,
        // as the report lists it failed, not the next one
        failedStop = true;
        stopped = `Stopped during ${this.#name(index)}${why()}`;
        break;
      }
      if (result.status === "failed" && this.options.onError === "stop") {
        failedStop = true;
        break;
      }
      if (
        result.status === "failed" && index === 0 && action.type === "navigate" &&
        !signal?.aborted // a caller that stops the run here says why itself
      ) {
        // Nothing opened (or a page that does not answer): every later action would only wait
        // out its timeout.
        for (const [rest, skipped] of actions.entries()) {
          if (rest === 0) continue;
          await this.#skip(rest, skipped, {
            status: "skipped",
            errorCode: "skipped_dependency",
            error: `Skipped: ${this.#name(0)} to ${action.url ?? "its url"} failed (${
              result.errorCode ?? "failed"
            }): no page to act on`,
          });
        }
        break;
      }
    }
    const ended = performance.now(); // finishing the video is not the run's time
    const video = await this.options.video?.stop();
    await this.#append([{
      type: "PlaybackCompleted",
      data: {
        ...(video ? { video } : {}),
        // any failed action fails the playback, as a test run: `completed` means none failed
        status: failedStop || anyFailed || this.#unresponsive ? "failed" : "completed",
        durationMs: Math.round(ended - this.#started),
        ...(stopped ? { error: stopped } : {}),
      },
    }]);
    onCompleted();
    const report = await readPlaybackReport(this.store, this.id);
    if (!report) throw new Error(`Playback ${this.id} has no events`);
    return report;
  }

  /** Records an action as not played (its events only: nothing is asked of the page). */
  async #skip(
    index: number,
    action: PlaybackAction,
    rest: Pick<Completed, "status" | "errorCode" | "error">,
  ): Promise<void> {
    const n = this.#numbers[index];
    const completed: Completed = {
      index,
      ...(n === undefined ? { added: true } : n !== index ? { sourceIndex: n } : {}),
      action: action.type,
      description: describeAction(action, this.plan.platform),
      ...rest,
      durationMs: 0,
    };
    await this.#append([{ type: "PlaybackActionCompleted", data: completed }]);
  }

  async #playOne(index: number, action: PlaybackAction): Promise<Completed> {
    const t0 = performance.now();
    const description = describeAction(action, this.plan.platform);
    const n = this.#numbers[index];
    const base = {
      index,
      ...(n === undefined ? { added: true } : n !== index ? { sourceIndex: n } : {}),
      action: action.type,
      description,
    };
    const finish = async (
      rest: Omit<Completed, "index" | "action" | "durationMs" | "description">,
      resolved?: Resolved,
    ): Promise<Completed> => {
      const completed: Completed = {
        ...base,
        ...rest,
        durationMs: Math.round((performance.now() - t0) * 100) / 100,
      };
      const events: NewEvent[] = [];
      if (resolved) events.push({ type: "PlaybackActionResolved", data: resolved });
      events.push({ type: "PlaybackActionCompleted", data: completed });
      await this.#append(events);
      return completed;
    };

    if (!isSupported(action.type)) {
      return await finish({
        status: "skipped",
        errorCode: "unsupported_action_type",
        error: action.type === "agent_step"
          ? `a step left to an agent (recordable: false)${
            action.label ? `: ${JSON.stringify(action.label)}` : ""
          }`
          : `Cairn does not play ${action.type}`,
      });
    }
    if (action.type === "hover" && !this.driver.hover) {
      return await finish({
        status: "skipped",
        errorCode: "unsupported_action_type",
        error: `hover: the ${this.plan.platform} driver has no mouse`,
      });
    }
    if ((action.type === "double_click" || action.button) && !this.driver.click) {
      // a plain tap would not be what was recorded
      const what = action.button ? `${action.button} ${action.type}` : action.type;
      return await finish({
        status: "skipped",
        errorCode: "unsupported_action_type",
        error: `${what}: the ${this.plan.platform} driver has no mouse`,
      });
    }
    const unproduced = this.#readsUnproduced(index, action);
    if (unproduced) {
      // Acting on it would use a value the run never produced (or a stale default).
      if (CLICKS.has(action.type) || action.type === "navigate") this.#blocked = true;
      return await finish({
        status: "skipped",
        errorCode: "skipped_dependency",
        error: `Skipped: it reads {{${unproduced.key}}}, which ${
          this.#name(unproduced.by)
        } did not produce (on_error: skip_dependent)`,
      });
    }
    const failedBefore = action.type === "key_press"
      ? this.#failedInStep(index, action)
      : undefined;
    if (failedBefore !== undefined) {
      // the key would go wherever the failed action left the focus (another form's Enter)
      return await finish({
        status: "skipped",
        errorCode: "skipped_dependency",
        error: `Skipped: ${this.#name(failedBefore)} of the same step did not run`,
      });
    }
    if (this.#blocked && DEPENDENT_TYPES.has(action.type)) {
      return await finish({
        status: "skipped",
        errorCode: "skipped_dependency",
        error: "Skipped: an earlier click or navigate failed (on_error: skip_dependent)",
      });
    }
    let text = action.text;
    const override = this.#override(index);
    if (action.type === "type") {
      if (override !== undefined) text = override;
      else if (text !== undefined && text.includes(REDACTED)) {
        return await finish({
          status: "skipped",
          errorCode: "redacted_value",
          error:
            "Action requires redacted credential. Provide value_overrides or re-record with sensitive_data_enabled.",
        });
      }
    }
    const state: { resolved?: Resolved; element?: FoundElement } = {};
    let outcome: Omit<Completed, "index" | "action" | "durationMs" | "description">;
    try {
      if (this.options.overlay !== false) {
        // The first page call of the action: a page that stopped answering fails it here.
        await this.#bounded(
          showOverlay(this.driver, {
            subtitle: `Playback [${this.#progress(index)}]: ${description}`,
            highlight: null,
          }),
          "draw the subtitle",
        );
      }
      // A pause or a hold the source asks for is the action's work, not time it may lose.
      const ms = this.#actionMs() + holdMs(action);
      this.#deadline = performance.now() + ms;
      outcome = await withDeadline(
        this.#execute(index, action, text, override, state),
        ms,
        () => new TimeoutFailure(`The action did not finish within ${ms} ms`),
      );
      this.#unresponsive = undefined;
    } catch (err) {
      // A timeout leaves the page unresponsive (no screenshot of it); any other failure answered.
      this.#unresponsive = err instanceof TimeoutFailure ? err.message : undefined;
      const failure = err instanceof ActionFailure
        ? err
        : err instanceof TimeoutFailure
        ? new ActionFailure("timeout", err.message)
        : new ActionFailure("page_error", errorText(err));
      if (failure.tried && !state.resolved) {
        // No level found it: the levels tried still count against their selectors (fragile stats).
        state.resolved = {
          index,
          strategy: "none",
          selector: "",
          healed: false,
          tried: failure.tried,
        };
      }
      outcome = {
        status: "failed",
        errorCode: failure.code,
        error: failure.message,
        ...(failure.code === "selector_not_found" && this.#urlMismatch
          ? { likelyCause: "auth_redirect" }
          : {}),
      };
    }
    const dialogs = this.driver.takeDialogs?.() ?? [];
    if (dialogs.length > 0) {
      outcome = { ...outcome, warning: joinWarnings(outcome.warning, describeDialogs(dialogs)) };
    }
    if ((outcome.status === "failed" || outcome.status === "healed") && !this.#unresponsive) {
      const { warning, ...shot } = await this.#screenshot(
        index,
        outcome.status,
        outcome.status === "healed" ? state.resolved?.bounds : undefined,
      );
      outcome = { ...outcome, ...shot };
      if (warning) outcome = { ...outcome, warning: joinWarnings(outcome.warning, warning) };
    }
    if (!outcome.pageUrl) {
      const url = await this.#bounded(this.driver.url(), "read the url").catch(() => this.#lastUrl);
      if (url) outcome = { ...outcome, pageUrl: url };
    }
    if (CLICKS.has(action.type) || action.type === "navigate") {
      if (outcome.status === "failed") this.#blocked = this.options.onError === "skip_dependent";
      else this.#blocked = false;
    }
    return await finish(outcome, state.resolved);
  }

  async #execute(
    index: number,
    action: PlaybackAction,
    text: string | undefined,
    override: string | undefined,
    state: { resolved?: Resolved; element?: FoundElement },
  ): Promise<Omit<Completed, "index" | "action" | "durationMs" | "description">> {
    const d = this.driver;
    switch (action.type) {
      case "navigate": {
        if (!action.url) throw new ActionFailure("page_error", "navigate has no url");
        const url = this.#template(action.url);
        let nav;
        try {
          nav = await d.navigate(url);
        } catch (err) {
          throw new ActionFailure(isUnsafeUrl(err) ? "unsafe_url" : "page_error", errorText(err));
        }
        this.#lastUrl = nav.finalUrl;
        const out: Omit<Completed, "index" | "action" | "durationMs" | "description"> = {
          status: "ok",
          selectorUsed: "navigate",
          pageUrl: nav.finalUrl,
          navigation: { waitedFor: nav.waitedFor, durationMs: nav.durationMs },
        };
        if (nav.waitedFor === "timeout" && !sameUrl(nav.finalUrl, url)) {
          // Still on the previous page: the server was slow, not an auth redirect.
          throw new ActionFailure(
            "navigation_timeout",
            `${url} did not load within 5 s; the browser still shows ${nav.finalUrl}`,
          );
        }
        if (sameUrl(nav.finalUrl, url)) {
          this.#urlMismatch = false;
        } else {
          this.#urlMismatch = true;
          out.originalUrl = url;
          out.errorCode = "url_mismatch";
          out.error =
            `Expected ${url}, landed on ${nav.finalUrl}. Browser may need authentication.`;
        }
        if (nav.waitedFor === "timeout") {
          out.warning = "navigation_timeout: the page was not ready after 5 s; continuing";
          if (!out.errorCode) {
            out.errorCode = "navigation_timeout";
            out.error = `${url} did not finish loading within 5 s`;
          }
        }
        if (nav.status !== undefined && nav.status >= 400) {
          // The page loaded (as Playwright's goto, a 404 does not fail it), but later selectors
          // will look for the recorded page on an error page: the report says why.
          const reason = nav.statusText || STATUS_CODES[nav.status] || "";
          out.warning = joinWarnings(
            out.warning,
            `HTTP ${nav.status}${reason ? ` ${reason}` : ""}`,
          );
        }
        return out;
      }
      case "key_press": {
        if (!action.key) throw new ActionFailure("page_error", "key_press has no key");
        if (action.target) break; // pressed into its element below
        await d.press(action.key);
        await this.#settle();
        return { status: "ok", selectorUsed: "keyboard" };
      }
      case "scroll": {
        if (action.scrollTo) {
          await d.scrollTo(action.scrollTo);
          return { status: "ok", selectorUsed: "scroll" };
        }
        if (!action.target) {
          await d.scroll(action.direction ?? "down");
          return { status: "ok", selectorUsed: "scroll" };
        }
        break;
      }
      case "memory_set": {
        if (!action.storeAs) throw new ActionFailure("page_error", "memory_set has no storeAs");
        const value = this.#template(action.value ?? action.text ?? "");
        this.#memory[action.storeAs] = value;
        return { status: "ok", selectorUsed: "memory", value, storeAs: action.storeAs };
      }
      case "wait": {
        if (action.target) break; // waits for its element below
        if (action.durationMs !== undefined) {
          await sleep(action.durationMs, this.options.signal);
          return { status: "ok", selectorUsed: "wait" };
        }
        // `- wait` alone: until the page settles (Maestro's waitForAnimationToEnd)
        await d.waitForSettle({ quietMs: 500, timeoutMs: Math.max(0, this.#left()) })
          .catch(() => {});
        return { status: "ok", selectorUsed: "settle" };
      }
      case "back":
        return await this.#back();
      case "reload":
        return await this.#reload();
      case "switch_tab":
        return await this.#switchTab(action);
      case "swipe": {
        if (action.target) break; // swipes across its element below
        const { width, height } = this.#viewport;
        const [from, to] = swipeLine({ x: 0, y: 0, w: width, h: height }, action.direction, 0.25);
        await this.#swipe(from, to);
        return { status: "ok", selectorUsed: "screen" };
      }
      case "assert_not_visible":
        return await this.#assertNotVisible(action);
      case "screenshot": {
        const shot = await this.#screenshot(index, "checkpoint", undefined);
        // The action's whole purpose: without an image it failed; an unwritten file only warns.
        if (!shot.screenshot) {
          throw new ActionFailure("page_error", shot.warning ?? "no screenshot");
        }
        return { status: "ok", selectorUsed: "screenshot", ...shot };
      }
    }
    // Every other action acts on an element.
    if (!action.target && action.type === "type") {
      if (this.plan.platform === "web") await this.#checkFocusedField();
      await d.type(this.#template(text ?? "", override !== undefined));
      return { status: "ok", selectorUsed: "focused" };
    }
    if (!action.target) {
      throw new ActionFailure("selector_not_found", `${action.type} has no target`);
    }
    // a selector's `{{…}}` is filled from memory as a value's is (a secret then leaves the
    // stored events through the scrubber, as any value does)
    const target = this.#templateTarget(action.target);
    if (action.count !== undefined) {
      const counted = await this.#assertCount(action, target);
      // a count is the whole check of a wait for elements: several (or none) is no one element
      if (action.type === "assert_visible") return { status: "ok", selectorUsed: counted };
    }
    const located = await this.#locate(
      index,
      target === action.target ? action : { ...action, target },
      state,
    );
    const { point, element, healed, strategy, selector, level, position } = located;
    const status = healed ? "healed" as const : "ok" as const;
    const sel = {
      selectorUsed: strategy,
      ...(healed ? { healedSelector: selector, healedLevel: position + 1 } : {}),
    };
    if (
      element && !element.enabled && action.type !== "read_text" && action.type !== "hover" &&
      action.type !== "wait" && action.type !== "swipe" && !action.type.startsWith("assert")
    ) {
      throw new ActionFailure("element_disabled", `${selector} matched a disabled element`);
    }
    switch (action.type) {
      case "click":
      case "double_click": {
        const count = action.type === "double_click" ? 2 : 1;
        if (count > 1 || action.button) {
          await d.click!(point, { ...(action.button ? { button: action.button } : {}), count });
        } else await d.tap(point);
        await this.#settle();
        return { status, ...sel };
      }
      case "hover":
        await d.hover!(point);
        await this.#settle();
        return { status, ...sel };
      case "long_press":
        if (!d.longPress) {
          throw new ActionFailure(
            "unsupported_action_type",
            `long_press: the ${this.plan.platform} driver cannot hold a press`,
          );
        }
        await d.longPress(point, action.durationMs ?? LONG_PRESS_MS);
        await this.#settle();
        return { status, ...sel };
      case "swipe": {
        const [from, to] = swipeLine(
          visiblePart(element?.bounds ?? { x: point.x, y: point.y, w: 1, h: 1 }, this.#viewport),
          action.direction,
          0.2,
        );
        await this.#swipe(from, to);
        return { status, ...sel };
      }
      case "wait":
        return { status, ...sel };
      case "type": {
        const value = this.#template(text ?? "", override !== undefined);
        if (value.includes(REDACTED)) {
          throw new ActionFailure("redacted_value", "Refusing to type a redacted placeholder");
        }
        if (tagOf(element) === "select") {
          // A Recorder `change` on a <select> (or any typing into one) picks the option.
          await d.select(point, value);
        } else await d.type(value, { point, clear: true });
        // a device's driver taps the field first to give it the focus: the player's own tap
        const focusTap = this.plan.platform !== "web" && d.focus === undefined
          ? [`tapped the field at (${Math.round(point.x)}, ${Math.round(point.y)}) to focus it`]
          : undefined;
        return { status, ...sel, ...(focusTap ? { playerActions: focusTap } : {}) };
      }
      case "select": {
        const value = this.#template(action.value ?? text ?? "");
        await d.select(point, value);
        return { status, ...sel };
      }
      case "check":
        await d.check(point, action.checked ?? true);
        return { status, ...sel };
      case "key_press": {
        // into the element that had the focus when it was recorded, found (healed) as any
        const tapped = await this.#focus(point, target);
        await d.press(action.key!);
        await this.#settle();
        return {
          status,
          ...sel,
          ...(tapped
            ? {
              playerActions: [
                `tapped the field at (${Math.round(point.x)}, ${Math.round(point.y)}) to focus it`,
              ],
            }
            : {}),
        };
      }
      case "scroll":
        await d.scroll(action.direction ?? "down", { point });
        return { status, ...sel };
      case "read_text": {
        const value = element?.text ?? "";
        if (action.storeAs) this.#memory[action.storeAs] = value;
        return { status, ...sel, value, ...(action.storeAs ? { storeAs: action.storeAs } : {}) };
      }
      case "assert_visible":
        return { status, ...sel };
      case "assert_text": {
        // Retried until the action times out, as Playwright's toHaveText: the element's text
        // is read again (by the level that found it) until it matches; a failure names the
        // last text seen.
        let test: (text: string) => boolean;
        let expectation: string;
        if (action.expectedPattern !== undefined) {
          const re = new RegExp(`^(?:${this.#template(action.expectedPattern)})$`);
          test = (text) => re.test(text.trim());
          expectation = `text matching /${action.expectedPattern}/`;
        } else {
          const expected = this.#template(action.expected ?? "");
          test = (text) => normalise(text) === normalise(expected);
          expectation = `text ${JSON.stringify(expected)}`;
        }
        const started = performance.now();
        const until = started + (this.options.expectWaitMs ?? Infinity);
        let actual = element?.text ?? "";
        for (let attempt = 0; !test(actual) && attempt < MAX_POLLS; attempt++) {
          if (
            this.#left() < RESERVE_MS + POLL_MS || performance.now() + POLL_MS > until || !level
          ) {
            throw new ActionFailure(
              "assertion_failed",
              `Expected ${expectation}, found ${JSON.stringify(actual)}${
                attempt > 0 ? ` (still, after ${Math.round(performance.now() - started)} ms)` : ""
              }`,
            );
          }
          await sleep(POLL_MS, this.options.signal);
          const again = await this.#reread(level);
          if (again !== undefined) actual = again;
        }
        return { status, ...sel, value: actual };
      }
    }
    throw new ActionFailure("unsupported_action_type", `Cairn does not play ${action.type}`);
  }

  /**
   * A type without a target goes to the focused element, which must take text (blaze's
   * `notEditable` rule): typing into an error page's body types nothing and is no success.
   * Web only: Chrome's tree says exactly what has the focus, while a device's driver finds its
   * focused field itself (and types through the keyboard when it finds none).
   */
  async #checkFocusedField(): Promise<void> {
    const { root } = (await this.driver.snapshot()).screen;
    const field = focusedNode(root);
    if (!field || field === root || field.className === "RootWebArea") { // the page itself
      throw new ActionFailure(
        "selector_not_found",
        "No text field has the focus: a type without a selector types into the focused element",
      );
    }
    const refused = notEditable(field, `the focused ${describeNode(field)}`);
    if (refused) {
      const locked = !field.enabled || field.attrs?.readonly === "true";
      throw new ActionFailure(locked ? "element_disabled" : "selector_not_found", refused);
    }
  }

  /** Runs the cascade, waiting for the page to settle before giving up on selectors. */
  async #locate(
    index: number,
    action: PlaybackAction,
    state: { resolved?: Resolved; element?: FoundElement },
  ): Promise<{
    point: Point;
    element?: FoundElement;
    healed: boolean;
    strategy: string;
    selector: string;
    /** The selector level that found it (none for the coordinate fallback). */
    level?: CascadeLevel;
    /** The level's position in the cascade (0: the first selector; coordinates last). */
    position: number;
  }> {
    const target = action.target!;
    const mode: SelectorMode = action.selectorMode ?? this.plan.selectorMode ?? "adaptive";
    const levels: CascadeLevel[] = this.plan.platform === "web"
      ? webCascade(target, mode)
      : androidCascade(target, mode);
    const selectorLevels = levels.filter((l) => l.strategy !== "coordinates");
    // An assertion (or a wait for an element) waits for it up to the action timeout, as
    // Playwright's `expect` does; other actions up to `locateWaitMs` before healing gives up.
    // Either leaves time to report why the element was not found.
    const wanted = ASSERTS.has(action.type)
      ? action.type === "wait" && action.durationMs !== undefined
        ? action.durationMs
        : this.options.expectWaitMs ?? Infinity
      : this.options.locateWaitMs ?? 2_000;
    const deadline = performance.now() +
      Math.min(wanted, this.#left() - Math.min(RESERVE_MS, this.#actionMs() / 4));
    const verify = async (level: CascadeLevel, element: FoundElement): Promise<true | string> => {
      const snap = await this.driver.snapshot();
      if (!WEAK.has(level.strategy)) {
        // a fallback (healed, or an indexed one): the element must be of the kind the chain
        // names and must not contradict the names the step recorded
        const read = READS.has(action.type);
        const checked = checkFingerprint(snap.screen, element.bounds, target, {
          names: isPositional(level),
          read,
        });
        if (checked === true || !isPositional(level) || read) return checked;
        // A class + index whose element shows another name is taken only where the recorded
        // point lands once the layout is registered by the run's other elements (the screen
        // they are on, moved as a whole): recorded class, recorded place, same screen. A
        // value is never read that way.
        // The recorded name must be gone from the screen (renamed): one still shown elsewhere
        // names another element than this one.
        const recorded = this.#recordedPoint(action);
        const kind = checkFingerprint(snap.screen, element.bounds, target, { read });
        if (
          kind === true && recorded && !nameStillShown(snap.screen, recordedNames(target)) &&
          atRegisteredPoint(snap.screen, element.bounds, recorded, this.#landmarks)
        ) return true;
        return checked;
      }
      // the selector's own unique match: a read takes any element, a click one that nothing
      // recorded contradicts
      const check = checkPointTarget(snap.screen, center(element.bounds), target, {
        matched: true,
        read: READS.has(action.type) || action.type === "assert_visible",
      });
      return check.ok ? true : check.reason;
    };
    // Past strict mode the winner is checked against the chain's later identity selectors (as
    // far as needed): two that pick different elements are refused, never guessed between.
    const resolve = (levels: CascadeLevel[]) =>
      resolveTarget(this.driver, levels, {
        verify,
        verifyHealed: true,
        confirm: mode !== "strict",
      });
    let res: Resolution = await resolve(selectorLevels);
    for (
      let attempt = 0;
      !res.element && selectorLevels.length > 0 && attempt < MAX_POLLS;
      attempt++
    ) {
      // Selectors the device cannot read never match: nothing to wait for.
      if (res.unreadable.length === selectorLevels.length) break;
      // Still two elements once the page settled: waiting longer only delays the refusal.
      if (res.ambiguous && attempt > 0) break;
      const left = deadline - performance.now();
      if (left <= 0) break;
      if (attempt === 0) {
        await this.driver.waitForSettle({ quietMs: 150, timeoutMs: Math.min(left, 1_500) })
          .catch(() => {});
      } else await sleep(Math.min(100, left));
      res = await resolve(selectorLevels);
    }
    if (res.element && res.level && res.healed) {
      // The page may have rendered the element between two levels' lookups: look again
      // with the better levels before calling it healed.
      const better = selectorLevels.slice(0, selectorLevels.indexOf(res.level));
      const again = await resolve(better);
      if (again.element || again.ambiguous) {
        res = { ...again, tried: [...res.tried, ...again.tried] };
      }
    }
    if (res.ambiguous) {
      const { level, element, other, otherElement } = res.ambiguous;
      const at = (e: FoundElement) => {
        const c = center(e.bounds);
        return `(${Math.round(c.x)}, ${Math.round(c.y)})`;
      };
      throw new ActionFailure(
        "ambiguous",
        `${level.selector} and ${other.selector} match different elements (at ${at(element)} and ${
          at(otherElement)
        }); not acting on either`,
        res.tried.map((t) => ({ strategy: t.strategy, selector: t.selector, matches: t.matches })),
      );
    }
    const tried = res.tried.map((t) => ({
      strategy: t.strategy,
      selector: t.selector,
      matches: t.matches,
    }));
    if (res.element && res.level) {
      const level = res.level;
      const element = await this.#intoView(level, res.element);
      const point = center(element.bounds);
      const recorded = this.#recordedPoint(action);
      if (recorded && this.plan.platform !== "web") {
        this.#landmarks.push({ recorded, bounds: element.bounds });
      }
      state.element = element;
      state.resolved = {
        index,
        strategy: level.strategy,
        selector: level.selector,
        healed: res.healed,
        point,
        bounds: roundBounds(element.bounds),
        tried,
      };
      return {
        point,
        element,
        healed: res.healed,
        strategy: level.strategy,
        selector: level.selector,
        level,
        position: res.position ?? 0,
      };
    }
    // A device's text field named by its label (a form of labelled fields): the one field of
    // the recorded class whose label is the recorded name, wherever the form put it.
    const labelled = this.plan.platform === "android" && target.name !== undefined
      ? await this.#fieldByLabel(target, tried)
      : undefined;
    if (labelled) {
      const { element, selector } = labelled;
      const point = center(element.bounds);
      state.element = element;
      state.resolved = {
        index,
        strategy: "label",
        selector,
        healed: true,
        point,
        bounds: roundBounds(element.bounds),
        tried,
      };
      return {
        point,
        element,
        healed: true,
        strategy: "label",
        selector,
        position: selectorLevels.length,
      };
    }
    const coords = levels.find((l) => l.strategy === "coordinates");
    let offScreen: string | undefined;
    if (coords && target.point) {
      const recorded = action.viewport ?? this.plan.viewport;
      const point = scalePoint(
        target.point,
        recorded && { ...recorded, devicePixelRatio: this.plan.devicePixelRatio ?? 1 },
        this.#viewport,
        { space: this.plan.coordinateSpace ?? "css" },
      );
      const { width, height } = this.#viewport;
      if (point.x >= 0 && point.y >= 0 && point.x < width && point.y < height) {
        const snap = await this.driver.snapshot();
        let check = checkPointTarget(snap.screen, point, target);
        if (!check.ok) {
          // the layout moved as a whole (a banner above it): the recorded point, moved as the
          // run's other elements on this screen moved, under the same checks
          const off = layoutOffset(snap.screen, this.#landmarks);
          if (off && (off.x !== 0 || off.y !== 0)) {
            const moved = { x: point.x + off.x, y: point.y + off.y };
            const again = checkPointTarget(snap.screen, moved, target);
            if (again.ok) {
              check = again;
              point.x = moved.x;
              point.y = moved.y;
            }
          }
        }
        tried.push({
          strategy: "coordinates",
          selector: coords.selector,
          matches: check.ok ? 1 : 0,
        });
        if (check.ok) {
          const bounds = { x: point.x - 10, y: point.y - 10, w: 20, h: 20 };
          // What the point resolved to, so reads and asserts see its text, not "".
          const element: FoundElement = {
            bounds: check.node.bounds,
            visible: true,
            enabled: check.node.enabled,
            text: nodeText(check.node),
          };
          state.element = element;
          state.resolved = {
            index,
            strategy: "coordinates",
            selector: `xy=${point.x},${point.y}`,
            healed: selectorLevels.length > 0,
            point,
            bounds,
            tried,
          };
          return {
            point,
            element,
            healed: selectorLevels.length > 0,
            strategy: "coordinates",
            selector: `xy=${point.x},${point.y}`,
            position: selectorLevels.length,
          };
        }
        throw new ActionFailure(
          "selector_not_found",
          `No selector matched exactly one visible element and the coordinate fallback refused: ${check.reason}`,
          tried,
        );
      }
      // Nothing can be tapped off the device's screen: say so instead of trying.
      offScreen =
        `the coordinate fallback (${point.x}, ${point.y}) is outside the ${width}×${height} ${
          this.plan.platform === "web" ? "viewport" : "screen"
        }`;
      tried.push({ strategy: "coordinates", selector: coords.selector, matches: 0 });
    }
    if (res.sawHidden) {
      throw new ActionFailure(
        "element_hidden",
        `The element exists but is hidden (${
          res.tried.filter((t) => t.hidden).map((t) => t.selector).join(", ")
        })${offScreen ? `, and ${offScreen}` : ""}`,
        tried,
      );
    }
    const summary = describeTried(res.tried);
    throw new ActionFailure(
      "selector_not_found",
      summary
        ? `No selector matched exactly one visible element (${summary})${
          offScreen ? `, and ${offScreen}` : ""
        }`
        : offScreen
        ? `Cannot ${action.type} at the recorded point: ${offScreen}`
        : `No usable selector for ${describeAction(action, this.plan.platform)} in ${mode} mode`,
      tried,
    );
  }

  /**
   * The text field of the recorded class whose label ({@linkcode fieldLabel}) is the recorded
   * name, when exactly one on the screen has it; the lookup is added to `tried`.
   */
  async #fieldByLabel(
    target: Target,
    tried: Tried,
  ): Promise<{ element: FoundElement; selector: string } | undefined> {
    const name = target.name!.replace(/\s+/g, " ").trim();
    const classes = [target, ...(target.alternatives ?? [])]
      .map((t) => t.className)
      .filter((c): c is string => c !== undefined);
    if (name === "" || classes.length === 0) return undefined;
    const { root } = (await this.driver.snapshot()).screen;
    const found: UiNode[] = [];
    for (const [n] of walk(root)) {
      if (!n.visible || !classes.includes(n.className)) continue;
      if (fieldLabel(root, n)?.replace(/\s+/g, " ").trim() === name) found.push(n);
    }
    const selector = `label=${JSON.stringify(name)} >> ${classes[0]}`;
    tried.push({ strategy: "label", selector, matches: found.length });
    const n = found.length === 1 ? found[0]! : undefined;
    if (!n) return undefined;
    return {
      element: { bounds: n.bounds, visible: true, enabled: n.enabled, text: nodeText(n) },
      selector,
    };
  }

  /** The point the recording acted on for an action, scaled to the replay screen. */
  #recordedPoint(action: PlaybackAction): Point | undefined {
    const at = action.target?.point;
    if (!at) return undefined;
    const recorded = action.viewport ?? this.plan.viewport;
    return scalePoint(
      at,
      recorded && { ...recorded, devicePixelRatio: this.plan.devicePixelRatio ?? 1 },
      this.#viewport,
      { space: this.plan.coordinateSpace ?? "css" },
    );
  }

  /**
   * Gives the element at `point` the focus: the driver's own focus, else (a device) a tap when
   * the target is a text field, the element a key goes to; anything else is pressed as it is.
   * Returns whether it tapped (the player's own action, which the report lists).
   */
  async #focus(point: Point, target: Target): Promise<boolean> {
    if (this.driver.focus) {
      try {
        await this.driver.focus(point);
      } catch (err) {
        throw new ActionFailure("element_disabled", errorText(err));
      }
      return false;
    }
    const field = [target, ...(target.alternatives ?? [])].some((t) =>
      /EditText|TextField|textbox|searchbox|combobox/i.test(`${t.className ?? ""} ${t.role ?? ""}`)
    );
    if (field) await this.driver.tap(point);
    return field;
  }

  /**
   * The index of the action just before this one in its step when it failed or was not played
   * (a skipped dependency, a redacted value): it left the focus where the key would go, or did
   * not fill what the key submits. Undefined when it ran, or when the action opens its step. An
   * action without a step (a recording's) takes the action just before it.
   */
  #failedInStep(index: number, action: PlaybackAction): number | undefined {
    const i = index - 1;
    const before = this.plan.actions[i];
    if (!before || before.stepIndex !== action.stepIndex) return undefined;
    const r = this.#results[i];
    const failed = r !== undefined && (r.status === "failed" ||
      r.status === "skipped" &&
        (r.errorCode === "skipped_dependency" || r.errorCode === "redacted_value"));
    return failed ? i : undefined;
  }

  /**
   * Waits (up to the action timeout) until one of the target's selectors matches as many
   * visible elements as the action's `count` asks (`>=` by default), as a Recorder
   * `waitForElement` with a count; fails naming what each selector matched.
   *
   * @returns the strategy of the selector that satisfied it
   */
  async #assertCount(action: PlaybackAction, target: Target): Promise<string> {
    const want = action.count!;
    const op = action.countOperator ?? ">=";
    const mode: SelectorMode = action.selectorMode ?? this.plan.selectorMode ?? "adaptive";
    const levels =
      (this.plan.platform === "web" ? webCascade(target, mode) : androidCascade(target, mode))
        .filter((l) => l.strategy !== "coordinates");
    const holds = (n: number) => op === "==" ? n === want : op === "<=" ? n <= want : n >= want;
    const started = performance.now();
    const until = started + (this.options.expectWaitMs ?? Infinity);
    let counts: string[] = [];
    for (let attempt = 0; attempt < MAX_POLLS; attempt++) {
      counts = [];
      for (const level of levels) {
        let n = 0;
        for (const q of level.queries) {
          const found = await this.driver.find(q).catch(() => []);
          const { nth: _, ...all } = level; // every match counts, not the n-th
          n = pickMatch(all, found).visible.length;
          if (n > 0) break;
        }
        if (holds(n)) return level.strategy;
        counts.push(`${level.selector} → ${n}`);
      }
      if (this.#left() < RESERVE_MS + POLL_MS || performance.now() + POLL_MS > until) break;
      await sleep(POLL_MS, this.options.signal);
    }
    throw new ActionFailure(
      "assertion_failed",
      `Expected ${op} ${want} visible element${want === 1 ? "" : "s"}, found ${
        counts.join("; ") || "no selector"
      }`,
    );
  }

  /** What is left of the action in flight's timeout (ms). */
  #left(): number {
    return this.#deadline - performance.now();
  }

  /**
   * The text of the element a level found, read again (a retried assertion); undefined when
   * the level no longer picks one.
   */
  async #reread(level: CascadeLevel): Promise<string | undefined> {
    for (const q of level.queries) {
      const m = pickMatch(level, await this.driver.find(q).catch(() => []));
      if (m.element) return m.element.text ?? "";
      if (m.visible.length > 0) return undefined;
    }
    return undefined;
  }

  /** A `reload` (the browser's F5): the tab's page shown again, waiting for it (web only). */
  async #reload(): Promise<Omit<Completed, "index" | "action" | "durationMs" | "description">> {
    if (!this.driver.reload) {
      throw new ActionFailure(
        "unsupported_action_type",
        `reload: the ${this.plan.platform} driver cannot reload a page`,
      );
    }
    let nav;
    try {
      nav = await this.driver.reload();
    } catch (err) {
      throw new ActionFailure("page_error", errorText(err));
    }
    this.#lastUrl = nav.finalUrl;
    if (nav.waitedFor === "timeout") {
      throw new ActionFailure(
        "navigation_timeout",
        `${nav.requestedUrl} did not reload within 5 s`,
      );
    }
    return { status: "ok", selectorUsed: "reload", pageUrl: nav.finalUrl };
  }

  /**
   * A `switch_tab`: a new tab (`newTab`, then its url if any), or the open tab that shows the
   * url — the one with the recorded id first when several do, else the recorded id alone.
   */
  async #switchTab(
    action: PlaybackAction,
  ): Promise<Omit<Completed, "index" | "action" | "durationMs" | "description">> {
    const d = this.driver;
    const url = action.url ? this.#template(action.url) : undefined;
    if (action.newTab) {
      if (!d.openTab) {
        throw new ActionFailure(
          "unsupported_action_type",
          `switch_tab: the ${this.plan.platform} driver cannot open a tab`,
        );
      }
      await d.openTab();
      if (!url) return { status: "ok", selectorUsed: "new_tab" };
      let nav;
      try {
        nav = await d.navigate(url);
      } catch (err) {
        throw new ActionFailure("page_error", errorText(err));
      }
      this.#lastUrl = nav.finalUrl;
      return { status: "ok", selectorUsed: "new_tab", pageUrl: nav.finalUrl };
    }
    const tabs = await d.tabs();
    const showing = url ? tabs.filter((t) => sameUrl(t.url, url)) : [];
    const tab = showing.find((t) => t.id === action.tab) ?? showing[0] ??
      tabs.find((t) => t.id === action.tab);
    if (!tab) {
      throw new ActionFailure(
        "selector_not_found",
        `switch_tab: no open tab shows ${url ?? "the recorded page"}${
          action.tab ? ` and no tab ${action.tab} is open` : ""
        } (open: ${tabs.map((t) => `${t.id} ${t.url}`).join(", ") || "none"})`,
      );
    }
    await d.switchTab(tab.id);
    this.#lastUrl = tab.url;
    return { status: "ok", selectorUsed: `tab ${tab.id}`, pageUrl: tab.url };
  }

  /** A `back`: the tab's history on the web (waiting for the page), the Back key elsewhere. */
  async #back(): Promise<Omit<Completed, "index" | "action" | "durationMs" | "description">> {
    const d = this.driver;
    if (!d.back) {
      await d.press("Back");
      await this.#settle();
      return { status: "ok", selectorUsed: "back" };
    }
    let nav;
    try {
      nav = await d.back();
    } catch (err) {
      throw new ActionFailure("page_error", errorText(err));
    }
    this.#lastUrl = nav.finalUrl;
    if (nav.waitedFor === "timeout" && !sameUrl(nav.finalUrl, nav.requestedUrl)) {
      throw new ActionFailure(
        "navigation_timeout",
        `Going back to ${nav.requestedUrl} did not finish within 5 s; the browser still shows ${nav.finalUrl}`,
      );
    }
    return {
      status: "ok",
      selectorUsed: "back",
      pageUrl: nav.finalUrl,
      navigation: { waitedFor: nav.waitedFor, durationMs: nav.durationMs },
      ...(nav.waitedFor === "timeout"
        ? { warning: "navigation_timeout: the page was not ready after 5 s; continuing" }
        : {}),
    };
  }

  async #swipe(from: Point, to: Point): Promise<void> {
    if (!this.driver.swipe) {
      throw new ActionFailure(
        "unsupported_action_type",
        `swipe: the ${this.plan.platform} driver cannot drag a pointer`,
      );
    }
    await this.driver.swipe(from, to);
    await this.#settle();
  }

  /**
   * An `assert_not_visible`: passes once no selector level of the target matches a visible
   * element (none at all, or only hidden ones), retried until the action times out, as
   * Playwright's toBeHidden. The levels that name the element count (a CSS path or XPath only
   * when the target has nothing else); the coordinate fallback never does.
   */
  async #assertNotVisible(
    action: PlaybackAction,
  ): Promise<Omit<Completed, "index" | "action" | "durationMs" | "description">> {
    const target = action.target;
    if (!target) throw new ActionFailure("selector_not_found", "assert_not_visible has no target");
    const mode: SelectorMode = action.selectorMode ?? this.plan.selectorMode ?? "adaptive";
    const all =
      (this.plan.platform === "web" ? webCascade(target, mode) : androidCascade(target, mode))
        .filter((l) => l.strategy !== "coordinates");
    const strong = all.filter((l) => !WEAK.has(l.strategy));
    const levels = strong.length > 0 ? strong : all;
    if (levels.length === 0) {
      throw new ActionFailure(
        "selector_not_found",
        `No usable selector for ${describeAction(action, this.plan.platform)} in ${mode} mode`,
      );
    }
    const started = performance.now();
    const until = started + (this.options.expectWaitMs ?? Infinity);
    let seen: { level: CascadeLevel; count: number } | undefined;
    for (let attempt = 0; attempt < MAX_POLLS; attempt++) {
      seen = undefined;
      let unread = 0;
      let invalid: string | undefined;
      for (const level of levels) {
        let count = 0;
        let levelUnread = 0;
        for (const q of level.queries) {
          let found: FoundElement[];
          try {
            found = await this.driver.find(q);
          } catch (err) {
            levelUnread++;
            invalid ??= errorText(err);
            continue;
          }
          const m = pickMatch(level, found);
          count = level.nth !== undefined ? (m.element ? 1 : 0) : m.visible.length;
          if (count > 0) break;
        }
        if (levelUnread === level.queries.length) unread++;
        if (count > 0) {
          seen = { level, count };
          break;
        }
      }
      if (!seen && unread === levels.length) {
        // nothing could be looked up: absence proves nothing
        throw new ActionFailure(
          "selector_not_found",
          `Cannot look up ${levels[0]!.selector}: ${invalid}`,
        );
      }
      if (!seen) return { status: "ok", selectorUsed: levels[0]!.strategy };
      if (this.#left() < RESERVE_MS + POLL_MS || performance.now() + POLL_MS > until) break;
      await sleep(POLL_MS, this.options.signal);
      if (this.options.signal?.aborted) break;
    }
    const { level, count } = seen!;
    throw new ActionFailure(
      "assertion_failed",
      `Expected ${level.selector} not to be visible; ${count} visible match${
        count === 1 ? "" : "es"
      } after ${Math.round(performance.now() - started)} ms`,
    );
  }

  /**
   * Scrolls an element found outside the viewport into it (input lands on points, so the
   * point must be on screen) and looks it up again with the level that found it.
   */
  async #intoView(level: CascadeLevel, element: FoundElement): Promise<FoundElement> {
    const vp = this.#viewport;
    const c = center(element.bounds);
    if (c.x >= 0 && c.y >= 0 && c.x < vp.width && c.y < vp.height) return element;
    const dy = Math.round(c.y - vp.height / 2);
    const dx = Math.round(c.x - vp.width / 2);
    if (c.y < 0 || c.y >= vp.height) {
      await this.driver.scroll(dy > 0 ? "down" : "up", { distance: Math.abs(dy) });
    }
    if (c.x < 0 || c.x >= vp.width) {
      await this.driver.scroll(dx > 0 ? "right" : "left", { distance: Math.abs(dx) });
    }
    // The same pick as the cascade's (the n-th of an indexed level, a pattern's matches).
    for (const q of level.queries) {
      const m = pickMatch(level, await this.driver.find(q).catch(() => []));
      if (m.element) return m.element;
      if (m.visible.length > 0) break;
    }
    return element;
  }

  async #settle(): Promise<void> {
    const quiet = this.options.settleAfterMs ?? 50;
    if (quiet > 0) {
      await this.driver.waitForSettle({ quietMs: quiet, timeoutMs: SETTLE_CAP_MS }).catch(() => {});
    }
  }

  /**
   * Under `skip_dependent`, the first memory key the action's templates read whose producing
   * action failed or was skipped (a value typed from an override is literal: it reads nothing).
   */
  #readsUnproduced(
    index: number,
    action: PlaybackAction,
  ): { key: string; by: number } | undefined {
    if (this.options.onError !== "skip_dependent" || this.#unproduced.size === 0) return;
    const overridden = action.type === "type" && this.#override(index) !== undefined;
    const templates = [
      action.url,
      overridden ? undefined : action.text,
      action.value,
      action.expected,
      action.expectedPattern,
      ...(action.target ? targetStrings(action.target) : []),
    ];
    for (const t of templates) {
      if (!t?.includes("{{")) continue;
      let keys: string[];
      try {
        keys = templateVariables(t);
      } catch {
        continue; // a malformed template fails when the action runs, with its column
      }
      for (const key of keys) {
        const by = this.#unproduced.get(key);
        if (by !== undefined) return { key, by };
      }
    }
    return undefined;
  }

  /** A target with its selectors' templates filled from memory (the same one when it has none). */
  #templateTarget(target: Target): Target {
    if (!targetStrings(target).some((s) => s.includes("{{"))) return target;
    return mapTargetStrings(target, (s) => this.#template(s));
  }

  #template(text: string, literal = false): string {
    if (literal || !text.includes("{{")) return text;
    try {
      return (this.options.evaluate ?? evaluateTemplate)(text, this.#memory);
    } catch (err) {
      let missing: string[] = [];
      try {
        missing = templateVariables(text).filter((v) => !(v in this.#memory));
      } catch { /* a template that does not parse: the error below says so */ }
      const secret = missing.find((v) => this.plan.unsetMemory?.includes(v));
      if (secret !== undefined) {
        throw new ActionFailure(
          "redacted_value",
          `{{${secret}}} is a secret the trail does not hold: supply it with --memory ${secret}=…`,
        );
      }
      const hint = missing.length ? ` (supply --memory ${missing[0]}=…)` : "";
      throw new ActionFailure(
        "page_error",
        `Cannot evaluate ${JSON.stringify(text)}: ${errorText(err)}${hint}`,
      );
    }
  }

  /**
   * Takes, stores and (with `screenshotDir`) writes a screenshot. Never throws: a screenshot
   * that could not be taken, stored or written comes back as a `warning` saying which and why,
   * with whatever was kept (the blob when only the file failed).
   */
  async #screenshot(
    index: number,
    kind: string,
    highlight: Bounds | undefined,
  ): Promise<{ screenshot?: BlobRef; screenshotPath?: string; warning?: string }> {
    let png: Uint8Array;
    try {
      if (highlight) await this.#bounded(showOverlay(this.driver, { highlight }), "highlight");
      png = await this.#bounded(this.driver.screenshot(), "take a screenshot");
      if (highlight) {
        await this.#bounded(showOverlay(this.driver, { highlight: null }), "clear the highlight");
      }
    } catch (err) {
      return { warning: `screenshot not taken: ${errorText(err)}` };
    }
    let ref: BlobRef;
    try {
      ref = await this.store.putBlob(png, "image/png");
    } catch (err) {
      return { warning: `screenshot not stored: ${errorText(err)}` };
    }
    if (!this.options.screenshotDir) return { screenshot: ref };
    const dir = `${this.options.screenshotDir}/${this.id}`;
    const path = `${dir}/${kind}-${this.#numbers[index] ?? "open"}.png`;
    try {
      await Deno.mkdir(dir, { recursive: true });
      await Deno.writeFile(path, png);
    } catch (err) {
      return {
        screenshot: ref,
        warning: `screenshot not written to ${path}: ${
          errorText(err)
        } (stored as blob ${ref.hash})`,
      };
    }
    return { screenshot: ref, screenshotPath: path };
  }

  #actionMs(): number {
    return this.options.actionTimeoutMs ?? DEFAULT_ACTION_TIMEOUT_MS;
  }

  /**
   * Waits for a page call at most `ms` (default 2 s); one that
   * does not answer marks the page unresponsive and fails with a {@linkcode TimeoutFailure}.
   */
  async #bounded<T>(
    work: Promise<T>,
    what: string,
    ms = PAGE_CALL_CAP_MS,
  ): Promise<T> {
    const value = await withDeadline(work, ms, () => {
      const message = `The page did not answer within ${ms} ms (${what}): it may be hung`;
      this.#unresponsive = message;
      return new TimeoutFailure(message);
    });
    return value;
  }

  async #append(events: NewEvent[], expected?: "no_stream"): Promise<void> {
    const correlationId = this.options.testId;
    // Scrubbed whole: a secret can reach any of their strings (a url, an error, a value read).
    const scrubbed = events.map((e) => ({ ...e, data: this.#secrets.value(e.data) }) as NewEvent);
    const withMeta = correlationId
      ? scrubbed.map((e) => ({ ...e, meta: { ...(e.meta ?? {}), correlationId } }) as NewEvent)
      : scrubbed;
    const res = await this.store.append(this.stream, withMeta, {
      expectedVersion: expected ?? this.#version,
    });
    this.#version = res.streamVersion;
  }
}

class TimeoutFailure extends Error {}

/** How long an action pauses or holds by design: a `wait`'s duration, a long press's hold. */
function holdMs(action: PlaybackAction): number {
  if (action.type === "long_press") return action.durationMs ?? LONG_PRESS_MS;
  return action.type === "wait" ? action.durationMs ?? 0 : 0;
}

/** Resolves after `ms`, or as soon as `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done);
  });
}

function errorText(err: unknown): string {
  if (err instanceof DriverError || err instanceof Error) return err.message.split("\n")[0]!;
  return String(err);
}

/** The tag name of a found element, from the CSS path the Chrome driver gives as its handle. */
function tagOf(element: FoundElement | undefined): string | undefined {
  const last = element?.handle?.split(/\s*>+\s*/).at(-1);
  return last?.match(/^[a-z][a-z0-9-]*/)?.[0];
}

/**
 * The line a swipe drags along inside `box`: through its middle, in `direction` (the way the
 * pointer moves, Maestro's: `up` from low to high), from `margin` of the box's size before its
 * far edge to `margin` after its near edge.
 */
function swipeLine(
  box: Bounds,
  direction: PlaybackAction["direction"],
  margin: number,
): [Point, Point] {
  const c = center(box);
  const lo = (start: number, size: number) => Math.round(start + size * margin);
  const hi = (start: number, size: number) => Math.round(start + size * (1 - margin));
  switch (direction ?? "up") {
    case "up":
      return [{ x: c.x, y: hi(box.y, box.h) }, { x: c.x, y: lo(box.y, box.h) }];
    case "down":
      return [{ x: c.x, y: lo(box.y, box.h) }, { x: c.x, y: hi(box.y, box.h) }];
    case "left":
      return [{ x: hi(box.x, box.w), y: c.y }, { x: lo(box.x, box.w), y: c.y }];
    case "right":
      return [{ x: lo(box.x, box.w), y: c.y }, { x: hi(box.x, box.w), y: c.y }];
  }
}

/** The part of `b` inside the viewport (`b` itself when it lies wholly outside). */
function visiblePart(b: Bounds, vp: { width: number; height: number }): Bounds {
  const x = Math.max(b.x, 0);
  const y = Math.max(b.y, 0);
  const w = Math.min(b.x + b.w, vp.width) - x;
  const h = Math.min(b.y + b.h, vp.height) - y;
  return w > 0 && h > 0 ? { x, y, w, h } : b;
}

/** Two diagnostics of one action as one `warning`. */
function joinWarnings(first: string | undefined, next: string): string {
  return first ? `${first}; ${next}` : next;
}

function normalise(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

function roundBounds(b: Bounds): Bounds {
  return { x: Math.round(b.x), y: Math.round(b.y), w: Math.round(b.w), h: Math.round(b.h) };
}

/**
 * Whether two urls name the same page: equal after dropping the fragment and a trailing slash.
 *
 * @param a a url
 * @param b another url
 * @returns true when they name the same page
 */
export function sameUrl(a: string, b: string): boolean {
  const norm = (u: string) => {
    try {
      const x = new URL(u);
      x.hash = "";
      return x.href.replace(/\/$/, "");
    } catch {
      return u.replace(/#.*$/, "").replace(/\/$/, "");
    }
  };
  return norm(a) === norm(b);
}
