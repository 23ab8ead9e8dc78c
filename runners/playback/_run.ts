/**
 * The {@linkcode Run} that sequences one playback: the `PlaybackStarted` event, then each
 * action in turn (skipped, or located and acted on within its timeout, then reported), then
 * `PlaybackCompleted`. The pieces it calls live beside it: `_skip.ts`, `_act.ts` (with
 * `_locate.ts`, `_asserts.ts`, `_navigation.ts`), `_settle.ts`, `report.ts`.
 *
 * @module
 */
import type { EventStore, NewEvent } from "../../events/mod.ts";
import {
  describeAction,
  type PlaybackAction,
  type PlaybackPlan,
  type PlaybackReport,
  viewportWarning,
} from "../../engine/playback/mod.ts";
import { describeDialogs, type Driver, withDeadline } from "../../drivers/mod.ts";
import { showOverlay } from "./overlay.ts";
import {
  ActionFailure,
  type Completed,
  errorText,
  type LookupState,
  type Outcome,
  type Resolved,
  RunContext,
  TimeoutFailure,
} from "./_context.ts";
import {
  DEFAULT_ACTION_TIMEOUT_MS,
  MAX_RECORDED_DELAY_MS,
  type PlaybackOptions,
} from "./options.ts";
import { bounded, holdMs, sleep } from "./_settle.ts";
import { CLICKS, whyNotPlayed } from "./_skip.ts";
import { execute } from "./_act.ts";
import { append, joinWarnings, readPlaybackReport, recordSkip, screenshot } from "./report.ts";

/** One playback: its state in a {@linkcode RunContext}, its actions played in order. */
export class Run {
  readonly ctx: RunContext;

  constructor(driver: Driver, store: EventStore, plan: PlaybackPlan, options: PlaybackOptions) {
    this.ctx = new RunContext(driver, store, plan, options);
  }

  /** The playback id. */
  get id(): string {
    return this.ctx.id;
  }

  /** The stream its events go to. */
  get stream(): string {
    return this.ctx.stream;
  }

  /** Switches to the asked tab, reads the viewport and appends `PlaybackStarted`. */
  async begin(): Promise<void> {
    this.ctx.started = performance.now();
    const ms = Math.max(this.ctx.actionMs(), DEFAULT_ACTION_TIMEOUT_MS);
    if (this.ctx.options.tab) {
      await bounded(
        this.ctx,
        this.ctx.driver.switchTab(this.ctx.options.tab),
        `switch to ${this.ctx.options.tab}`,
        ms,
      );
    }
    this.ctx.viewport = await bounded(
      this.ctx,
      this.ctx.driver.viewport(),
      "read the viewport",
      ms,
    );
    this.ctx.driver.takeDialogs?.(); // answered before this playback: not its actions'
    const warnings: string[] = [];
    const vw = viewportWarning(this.ctx.plan.viewport, this.ctx.viewport);
    if (vw) warnings.push(vw);
    const o = this.ctx.options;
    await append(this.ctx, [{
      type: "PlaybackStarted",
      data: {
        playbackId: this.ctx.id,
        source: this.ctx.plan.source,
        platform: this.ctx.plan.platform,
        actionsTotal: this.ctx.plan.actions.length,
        ...(this.ctx.sourceTotal < this.ctx.plan.actions.length
          ? { addedActions: this.ctx.plan.actions.length - this.ctx.sourceTotal }
          : {}),
        timing: o.timing ?? "fast",
        onError: o.onError ?? "continue",
        ...(o.testId ? { testId: o.testId } : {}),
        ...(o.autoBoundary ? { autoBoundary: true } : {}),
        viewport: { width: this.ctx.viewport.width, height: this.ctx.viewport.height },
        ...(warnings.length ? { warnings } : {}),
      },
    }], "no_stream");
    await this.ctx.options.video?.start(this.ctx.driver, this.ctx.id);
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
        await this.ctx.options.video?.stop();
        await append(this.ctx, [{
          type: "PlaybackCompleted",
          data: { status: "failed", durationMs: Math.round(performance.now() - this.ctx.started) },
        }]).catch(() => {}); // the store refuses even this: the caller still gets `err`
      }
      throw err;
    }
  }

  async #playAll(onCompleted: () => void): Promise<PlaybackReport> {
    let failedStop = false;
    let anyFailed = false;
    let stopped: string | undefined;
    const actions = this.ctx.plan.actions;
    const signal = this.ctx.options.signal;
    let lastTs: number | undefined;
    for (const [index, action] of actions.entries()) {
      if (this.ctx.options.timing === "recorded" && action.timestampMs !== undefined) {
        if (lastTs !== undefined) {
          const delay = Math.min(Math.max(action.timestampMs - lastTs, 0), MAX_RECORDED_DELAY_MS);
          if (delay > 0) await (this.ctx.options.sleep ?? ((ms) => sleep(ms, signal)))(delay);
        }
        lastTs = action.timestampMs;
      }
      const why = () => signal?.reason instanceof Error ? `: ${signal.reason.message}` : "";
      if (signal?.aborted) {
        failedStop = true;
        stopped = `Stopped before ${this.ctx.name(index)}${why()}`;
        break;
      }
      const result = await this.#playOne(index, action);
      if (result.status === "failed") anyFailed = true;
      this.ctx.results[index] = result;
      if (action.storeAs && this.ctx.options.onError === "skip_dependent") {
        if (result.status === "ok" || result.status === "healed") {
          this.ctx.unproduced.delete(action.storeAs);
        } else this.ctx.unproduced.set(action.storeAs, index);
      }
      if (this.ctx.options.afterAction) {
        try {
          await this.ctx.options.afterAction(index, action, result);
        } catch {
          // the hook never fails the playback
        }
      }
      if (result.status === "failed" && signal?.aborted) {
        // the stop interrupted this action (its browser closed under it): the error names it,
        // as the report lists it failed, not the next one
        failedStop = true;
        stopped = `Stopped during ${this.ctx.name(index)}${why()}`;
        break;
      }
      if (result.status === "failed" && this.ctx.options.onError === "stop") {
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
          await recordSkip(this.ctx, rest, skipped, {
            status: "skipped",
            errorCode: "skipped_dependency",
            error: `Skipped: ${this.ctx.name(0)} to ${action.url ?? "its url"} failed (${
              result.errorCode ?? "failed"
            }): no page to act on`,
          });
        }
        break;
      }
    }
    const ended = performance.now(); // finishing the video is not the run's time
    const video = await this.ctx.options.video?.stop();
    await append(this.ctx, [{
      type: "PlaybackCompleted",
      data: {
        ...(video ? { video } : {}),
        // any failed action fails the playback, as a test run: `completed` means none failed
        status: failedStop || anyFailed || this.ctx.unresponsive ? "failed" : "completed",
        durationMs: Math.round(ended - this.ctx.started),
        ...(stopped ? { error: stopped } : {}),
      },
    }]);
    onCompleted();
    const report = await readPlaybackReport(this.ctx.store, this.ctx.id);
    if (!report) throw new Error(`Playback ${this.ctx.id} has no events`);
    return report;
  }

  async #playOne(index: number, action: PlaybackAction): Promise<Completed> {
    const t0 = performance.now();
    const description = describeAction(action, this.ctx.plan.platform);
    const n = this.ctx.numbers[index];
    const base = {
      index,
      ...(n === undefined ? { added: true } : n !== index ? { sourceIndex: n } : {}),
      action: action.type,
      description,
    };
    const finish = async (
      rest: Outcome,
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
      await append(this.ctx, events);
      return completed;
    };

    const skipped = whyNotPlayed(this.ctx, index, action);
    if (skipped) return await finish(skipped);
    let text = action.text;
    const override = this.ctx.override(index);
    if (action.type === "type" && override !== undefined) text = override;
    const state: LookupState = {};
    let outcome: Outcome;
    try {
      if (this.ctx.options.overlay !== false) {
        // The first page call of the action: a page that stopped answering fails it here.
        await bounded(
          this.ctx,
          showOverlay(this.ctx.driver, {
            subtitle: `Playback [${this.ctx.progress(index)}]: ${description}`,
            highlight: null,
          }),
          "draw the subtitle",
        );
      }
      // A pause or a hold the source asks for is the action's work, not time it may lose.
      const ms = this.ctx.actionMs() + holdMs(action);
      this.ctx.deadline = performance.now() + ms;
      outcome = await withDeadline(
        execute(this.ctx, index, action, text, override, state),
        ms,
        () => new TimeoutFailure(`The action did not finish within ${ms} ms`),
      );
      this.ctx.unresponsive = undefined;
    } catch (err) {
      // A timeout leaves the page unresponsive (no screenshot of it); any other failure answered.
      this.ctx.unresponsive = err instanceof TimeoutFailure ? err.message : undefined;
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
        ...(failure.code === "selector_not_found" && this.ctx.urlMismatch
          ? { likelyCause: "auth_redirect" }
          : {}),
      };
    }
    const dialogs = this.ctx.driver.takeDialogs?.() ?? [];
    if (dialogs.length > 0) {
      outcome = { ...outcome, warning: joinWarnings(outcome.warning, describeDialogs(dialogs)) };
    }
    if ((outcome.status === "failed" || outcome.status === "healed") && !this.ctx.unresponsive) {
      const { warning, ...shot } = await screenshot(
        this.ctx,
        index,
        outcome.status,
        outcome.status === "healed" ? state.resolved?.bounds : undefined,
      );
      outcome = { ...outcome, ...shot };
      if (warning) outcome = { ...outcome, warning: joinWarnings(outcome.warning, warning) };
    }
    if (!outcome.pageUrl) {
      const url = await bounded(this.ctx, this.ctx.driver.url(), "read the url").catch(() =>
        this.ctx.lastUrl
      );
      if (url) outcome = { ...outcome, pageUrl: url };
    }
    if (CLICKS.has(action.type) || action.type === "navigate") {
      if (outcome.status === "failed") {
        this.ctx.blocked = this.ctx.options.onError === "skip_dependent";
      } else this.ctx.blocked = false;
    }
    return await finish(outcome, state.resolved);
  }
}
