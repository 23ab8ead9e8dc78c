/**
 * The validation loop: replay, judge, refine, record the iteration, until the policy says stop;
 * then the final trail (unstable steps flagged, fallbacks pruned) completes the stream.
 *
 * @module
 */
import type { EventStore } from "../../events/mod.ts";
import type { EventData, NewEvent } from "../../events/mod.ts";
import { rebasePlan, trailToPlan } from "../../engine/playback/mod.ts";
import type { Screen } from "../../engine/screens/mod.ts";
import { stringifyTrail, type Trail } from "../../engine/trail/mod.ts";
import {
  converged,
  decide,
  editTrailSource,
  evolve,
  flagUnrecordable,
  initialState,
  iterations,
  nextMove,
  policyFlags,
  stepStatus,
  type ValidationCommand,
  type ValidationState,
} from "../../engine/validation/mod.ts";
import type { Driver } from "../../drivers/mod.ts";
import { SecretScrubber } from "../../drivers/mod.ts";
import type { LoopContext } from "./_context.ts";
import { type CaptureIndex, planOrigins } from "./_capture.ts";
import { replay } from "./_replay.ts";
import { prune } from "./_refine.ts";
import { compareActions, stepOutcomes } from "./_judge.ts";
import type { ValidationOptions } from "./options.ts";

/** One validation's loop (the {@linkcode LoopContext} its pieces are given). */
export class Loop implements LoopContext {
  state: ValidationState = initialState;
  #version = 0;
  /** The trail the loop is on (the one a broken loop reports). */
  current!: Trail;
  /** Replay screens of each (step, action), oldest first. */
  readonly replayScreens = new Map<string, Screen[]>();
  /** The memory values supplied: kept out of every event and blob the replays store. */
  readonly secrets = new SecretScrubber();

  constructor(
    readonly driver: Driver,
    readonly store: EventStore,
    readonly streamId: string,
    readonly capture: CaptureIndex,
    readonly options: ValidationOptions,
  ) {
    for (const v of Object.values(options.memory ?? {})) this.secrets.add(v);
    for (const v of options.secrets ?? []) this.secrets.add(v);
    this.driver.addSecrets?.([...Object.values(options.memory ?? {}), ...(options.secrets ?? [])]);
  }

  async apply(command: ValidationCommand): Promise<void> {
    const events = decide(command, this.state).map((e) => this.#scrubbed(e));
    const res = await this.store.append(this.streamId, events, {
      expectedVersion: this.#version === 0 ? "no_stream" : this.#version,
    });
    this.#version = res.streamVersion;
    for (const e of events) this.state = evolve(this.state, e);
  }

  /**
   * An event of the validation's own stream with the secrets taken out: a message or evidence
   * may quote a page's url (`… the browser still shows lock.html?code=<pin>`).
   */
  #scrubbed(event: NewEvent): NewEvent {
    return { ...event, data: this.secrets.value(event.data) } as NewEvent;
  }

  say(line: string): void {
    this.options.onProgress?.(line);
  }

  /**
   * Runs the loop to the end. When it breaks (the browser dies, the store refuses), the stream
   * still ends: a `ValidationCompleted` `failed` naming the error, then the error is rethrown.
   */
  async run(start: Trail): Promise<ValidationState> {
    this.current = start;
    try {
      return await this.#loop(start);
    } catch (err) {
      await this.#fail(err);
      throw err;
    }
  }

  /** Ends a broken loop's stream as `failed`; never throws (the loop's error is the one). */
  async #fail(err: unknown): Promise<void> {
    if (this.state.status !== "running") return;
    const reason = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    await this.#endFailed(
      `Validation stopped during iteration ${this.state.iteration + 1}: ${reason}`,
      `failed: ${reason}`,
    );
  }

  /**
   * Ends the stream as `failed` with the trail the loop is on, no step changed; never throws.
   */
  async #endFailed(message: string, line: string): Promise<void> {
    const event = this.#scrubbed({
      type: "ValidationCompleted",
      data: {
        status: "failed",
        iterations: this.state.iteration,
        trail: stringifyTrail(this.current),
        steps: this.state.steps.map((s) => ({
          index: s.index,
          step: s.step,
          status: stepStatus(s),
          evidence: [...s.refinements, ...s.evidence],
        })),
        message,
      },
    });
    try {
      const res = await this.store.append(this.streamId, [event], {
        expectedVersion: this.#version,
      });
      this.#version = res.streamVersion;
      this.state = evolve(this.state, event);
      this.say(this.secrets.text(line));
    } catch {
      // The store refuses even this: the caller still gets the loop's own error.
    }
  }
  async #loop(start: Trail): Promise<ValidationState> {
    let trail = start;
    const flags = policyFlags(this.state.policy, this.state.maxIterations);
    while (nextMove(this.state) === "replay") {
      const n = this.state.iteration + 1;
      if (n > 1) await this.options.beforeReplay?.();
      const yaml = stringifyTrail(trail);
      // Recorded navigations are re-pointed at the url's origin (a capture made elsewhere).
      const plan = this.options.url
        ? rebasePlan(trailToPlan(trail), this.options.url)
        : trailToPlan(trail);
      const origins = planOrigins(trail);
      // the trail's own actions, as replay numbers them: the page opened first is not one; an
      // agent's step (recordable: false) is one replay skips, so it is not counted as replayed
      const own = plan.actions.filter((a) => !a.added);
      const agent = own.filter((a) => a.type === "agent_step").length;
      const played = own.length - agent;
      const opens = own.length < plan.actions.length ? ", after opening the page" : "";
      const count = (k: number, what: string) => `${k} ${what}${k === 1 ? "" : "s"}`;
      this.say(
        `iteration ${n}/${flags.maxIterations}: replaying ` +
          (played === 0 ? "no action" : count(played, "action")) +
          (agent > 0 ? ` (${count(agent, "step")} left to the agent)` : "") +
          (own.length === 0 ? " (every recording is empty)" : "") + opens,
      );
      const playbackId = `${this.state.validationId}-${n}`;
      const run = await replay(this, trail, playbackId, flags.refine);
      if (run.openingError !== undefined) {
        // A browser that no longer answers breaks the loop (run() rethrows); a live one had a
        // page it could not open.
        await this.driver.url();
        const message = `The page could not be opened (${run.openingError}). Nothing was ` +
          "validated: no step was compared, changed or flagged";
        await this.#endFailed(message, `failed: ${message}`);
        return this.state;
      }
      // The actions placed during the replay carry their new selectors from here on.
      trail = run.trail;
      this.current = trail;
      const screens: EventData<"ValidationIterationCompleted">["screens"] = [];
      for (const [index, snap] of run.screens) {
        const bytes = this.secrets.hierarchy(snap.raw.bytes, snap.raw.mediaType);
        const ref = await this.store.putBlob(bytes, snap.raw.mediaType);
        screens.push({ index, hierarchy: ref, format: snap.raw.format });
      }
      const perStep = compareActions(this, trail, run, origins);
      const judged = stepOutcomes(this, trail, perStep, flags.refine);
      trail = judged.trail;
      const outcomes = judged.outcomes;
      await this.apply({
        type: "RecordIteration",
        data: { playbackId, trail: yaml, outcomes, screens },
      });
      for (const s of this.state.iterations.at(-1)?.steps ?? []) {
        const why = s.passed
          ? ""
          : `: ${s.evidence.find((e) => !/same element|resolved with/.test(e)) ?? ""}`;
        const mark = s.status === "skipped"
          ? `skipped: ${
            s.evidence.findLast((e) => e.includes("not validated: ")) ?? s.evidence[0] ?? ""
          }`
          : s.status === "not_recordable"
          ? "not validated (recordable: false: the agent handles it)"
          : s.empty
          ? "empty (it replays no action)"
          : s.passed
          ? "passed"
          : s.dependent
          ? "FAILED (after an earlier failure)"
          : "FAILED";
        this.say(
          `  step ${s.index + 1} ${mark}${s.refined ? " → refined" : ""} "${s.step}"${why}`,
        );
      }
    }
    const unconverged = this.state.steps.filter((s) => !converged(s)).map((s) => s.index);
    // a step not validated (it failed only after an earlier one) is not flagged: nothing
    // showed its selectors wrong
    const unstable = this.state.steps.filter((s) => stepStatus(s) === "unstable").map((s) =>
      s.index
    );
    const final = flags.onUnstable === "reblaze"
      ? trail
      : flagUnrecordable(prune(this, trail, unconverged), unstable);
    const given = this.options.trail;
    const source = this.options.trailSource;
    const text = given && source !== undefined
      ? editTrailSource(source, given, final)
      : stringifyTrail(final);
    await this.apply({ type: "CompleteValidation", data: { trail: text } });
    this.say(
      `${this.state.status} after ${iterations(this.state.iteration)}` +
        (this.state.message ? `: ${this.state.message}` : ""),
    );
    return this.state;
  }
}
