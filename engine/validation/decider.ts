/**
 * The validation loop as a decider (HOUSE_STYLE, event sourcing): pure
 * {@linkcode decide}`(command, state) → events` and {@linkcode evolve}`(state, event) → state`
 * over the stream `validation-<id>`, with the workflow policies mapped to flags in one
 * place ({@linkcode policyFlags}) and the loop's next move in {@linkcode nextMove}.
 *
 * A step converges when its current selectors passed a replay and have not failed since they
 * were adopted. A step whose selectors failed and could not be refined stays unconverged, so
 * a later lucky replay cannot call a random target stable.
 *
 * @module
 */
import type { EventData, NewEvent, StoredEvent } from "../../events/mod.ts";
import { InvalidStreamError } from "../../events/mod.ts";

/** The workflows: test authoring, dev loop, CI regression. */
export type Policy = "authoring" | "dev" | "ci";

/** What a policy does. */
export interface PolicyFlags {
  /** Replays at most. */
  maxIterations: number;
  /** Refine failing steps from both runs' hierarchies. */
  refine: boolean;
  /** Keep replaying while a step is unconverged even when nothing was refined (new data each run). */
  persist: boolean;
  /** What an unstable step becomes: flagged `recordable: false`, NL fallback, or a re-blaze alert. */
  onUnstable: "flag" | "fallback_nl" | "reblaze";
}

/** Default number of iterations of the authoring loop (until convergence fails). */
export const DEFAULT_MAX_ITERATIONS = 3;
/** Most iterations a caller may ask for (`--max-iterations`, `max_iterations`). */
export const MAX_ITERATIONS = 20;

/**
 * The one place policies map to loop behaviour. Authoring: all passes and the loop until
 * stable (up to `maxIterations`), unstable steps flagged. Dev: one replay, one refinement from
 * both sessions and one more replay, then NL fallback. CI: replay only; a failure is reported
 * and needs a new blaze.
 *
 * @param policy the workflow
 * @param maxIterations the authoring limit (ignored by dev and ci)
 * @returns the flags
 * @example
 * ```ts
 * if (policyFlags("ci").refine || policyFlags("dev").maxIterations !== 2) throw new Error();
 * ```
 */
export function policyFlags(policy: Policy, maxIterations = DEFAULT_MAX_ITERATIONS): PolicyFlags {
  switch (policy) {
    case "authoring":
      return { maxIterations, refine: true, persist: true, onUnstable: "flag" };
    case "dev":
      return { maxIterations: 2, refine: true, persist: false, onUnstable: "fallback_nl" };
    case "ci":
      return { maxIterations: 1, refine: false, persist: false, onUnstable: "reblaze" };
  }
}

/** Where one step stands. */
export interface StepTrack {
  index: number;
  step: string;
  refinedEver: boolean;
  failedSinceRefine: boolean;
  passesSinceRefine: number;
  /** The latest replay's evidence. */
  evidence: string[];
  /** What each refinement changed, prefixed with its iteration. */
  refinements: string[];
  /** The latest replay could not type it: a memory value it needs was not supplied. */
  skipped?: boolean;
  /** The trail marks it `recordable: false`: the agent handles it, the replay has nothing of it. */
  notRecordable?: boolean;
  /** Its recording is empty (`recording: []`): it passes, but no replay proves anything of it. */
  empty?: boolean;
  /** The latest replay it failed only after an earlier step failed or was not replayed. */
  dependent?: boolean;
  /** The latest replay this step failed on its own (not after an earlier step), with its evidence. */
  lastFailure?: { iteration: number; evidence: string[] };
}

/** One iteration as folded from its event. */
export interface IterationSummary {
  iteration: number;
  playbackId: string;
  passed: boolean;
  steps: EventData<"ValidationIterationCompleted">["steps"];
}

/** The state of a validation. */
export interface ValidationState {
  status: "new" | "running" | "stable" | "unstable" | "failed";
  validationId: string;
  sessionId: string;
  policy: Policy;
  maxIterations: number;
  url?: string;
  iteration: number;
  steps: StepTrack[];
  iterations: IterationSummary[];
  /** The latest trail YAML (the final one once completed). */
  trail: string;
  finalSteps?: EventData<"ValidationCompleted">["steps"];
  message?: string;
}

/** The state before `ValidationStarted`. */
export const initialState: ValidationState = {
  status: "new",
  validationId: "",
  sessionId: "",
  policy: "authoring",
  maxIterations: DEFAULT_MAX_ITERATIONS,
  iteration: 0,
  steps: [],
  iterations: [],
  trail: "",
};

/** One step's outcome in a replay, as the runner measured it. */
export interface StepOutcome {
  index: number;
  step: string;
  passed: boolean;
  evidence: string[];
  /** New selectors were adopted for the next replay. */
  refined: boolean;
  /** It failed only after an earlier step failed (the right element, a different outcome). */
  dependent?: boolean;
  /** Not validated: it types this memory key, a secret with no value supplied. */
  missing?: string;
  /**
   * Not validated: the player did not play one of its actions (a kind it does not play here);
   * every action it played held.
   */
  unplayed?: string;
  /** Not validated: the trail marks it `recordable: false` (the agent handles it). */
  notRecordable?: boolean;
  /** An empty recording: nothing was replayed, so nothing is proven (it still passes). */
  empty?: boolean;
}

/** Commands (imperative). */
export type ValidationCommand =
  | { type: "StartValidation"; data: EventData<"ValidationStarted"> }
  | {
    type: "RecordIteration";
    data: {
      playbackId: string;
      trail: string;
      outcomes: StepOutcome[];
      screens?: EventData<"ValidationIterationCompleted">["screens"];
    };
  }
  | { type: "CompleteValidation"; data: { trail: string } };

/**
 * Whether a step has converged: its current selectors passed and have not failed since.
 *
 * @param s the step
 * @returns true when converged
 */
export function converged(s: StepTrack): boolean {
  return !s.failedSinceRefine && s.passesSinceRefine > 0;
}

/**
 * Whether a step was never judged: its current selectors have neither passed nor failed on
 * their own, the latest replay failing it only after an earlier step failed or was not
 * replayed. It is not proven, and not held against its selectors either.
 *
 * @param s the step
 * @returns true when not validated
 */
export function notValidated(s: StepTrack): boolean {
  return !converged(s) && !s.failedSinceRefine && s.dependent === true;
}

/**
 * A step's verdict as things stand: not validated (`skipped`, `not_recordable`), else
 * `unstable` until it converged, then `refined` or `stable`.
 *
 * @param s the step
 * @returns its status
 * @example
 * ```ts
 * const s = { index: 0, step: "Go", refinedEver: false, failedSinceRefine: false, passesSinceRefine: 1, evidence: [], refinements: [] };
 * if (stepStatus(s) !== "stable" || stepStatus({ ...s, notRecordable: true }) !== "not_recordable") throw new Error();
 * ```
 */
export function stepStatus(
  s: StepTrack,
): EventData<"ValidationCompleted">["steps"][number]["status"] {
  if (s.skipped) return "skipped";
  if (s.notRecordable) return "not_recordable";
  if (notValidated(s)) return "skipped";
  if (!converged(s)) return "unstable";
  return s.refinedEver ? "refined" : "stable";
}

/**
 * Decides the events a command produces.
 *
 * @param command the command
 * @param state the current state
 * @returns the events to append
 * @throws {TypeError} when the command does not fit the state (start twice, record before start)
 * @example
 * ```ts
 * const events = decide({ type: "StartValidation", data: { validationId: "v1", sessionId: "s1", policy: "ci", maxIterations: 1 } }, initialState);
 * if (events[0]!.type !== "ValidationStarted") throw new Error();
 * ```
 */
export function decide(command: ValidationCommand, state: ValidationState): NewEvent[] {
  switch (command.type) {
    case "StartValidation":
      if (state.status !== "new") {
        throw new TypeError(`Validation ${state.validationId} already started`);
      }
      return [{ type: "ValidationStarted", data: command.data }];
    case "RecordIteration": {
      if (state.status !== "running") {
        throw new TypeError(`Validation is ${state.status}, not running`);
      }
      const prior = new Map(state.steps.map((s) => [s.index, s]));
      const steps = command.data.outcomes.map((o) => {
        const refinedBefore = prior.get(o.index)?.refinedEver ?? false;
        return {
          index: o.index,
          step: o.step,
          status: o.missing !== undefined || o.unplayed !== undefined
            ? "skipped" as const
            : o.notRecordable
            ? "not_recordable" as const
            : !o.passed
            ? "unstable" as const
            : refinedBefore
            ? "refined" as const
            : "stable" as const,
          evidence: o.evidence,
          passed: o.passed,
          ...(o.refined ? { refined: true } : {}),
          ...(!o.passed && o.dependent ? { dependent: true } : {}),
          ...(o.empty ? { empty: true } : {}),
        };
      });
      return [{
        type: "ValidationIterationCompleted",
        data: {
          iteration: state.iteration + 1,
          playbackId: command.data.playbackId,
          passed: command.data.outcomes.every((o) => o.passed),
          steps,
          trail: command.data.trail,
          ...(command.data.screens ? { screens: command.data.screens } : {}),
        },
      }];
    }
    case "CompleteValidation": {
      if (state.status !== "running") {
        throw new TypeError(`Validation is ${state.status}, not running`);
      }
      const flags = policyFlags(state.policy, state.maxIterations);
      const steps = state.steps.map((s) => ({
        index: s.index,
        step: s.step,
        status: stepStatus(s),
        evidence: [...s.refinements, ...earlierFailure(s, state.iteration), ...s.evidence],
        ...(s.empty ? { empty: true } : {}),
      }));
      const unstable = steps.filter((s) => s.status === "unstable");
      const whyNot = (s: (typeof steps)[number]) =>
        s.status === "skipped"
          ? `step ${s.index + 1} "${s.step}" not validated: ${
            s.evidence.at(-1)?.replace(/^.*not validated: /, "") ?? "a memory value is missing"
          }`
          : s.empty
          ? `step ${s.index + 1} "${s.step}" has an empty recording (it replays no action)`
          : `step ${s.index + 1} "${s.step}" is recordable: false (the agent handles it)`;
      const skipped = steps.filter((s) => s.status === "skipped").map(whyNot);
      // an empty recording passes, but a replay of nothing proves nothing
      const proven = steps.some((s) =>
        (s.status === "stable" || s.status === "refined") && !s.empty
      );
      const list = unstable.map((s) => `step ${s.index + 1} "${s.step}"`).join(", ");
      let status: EventData<"ValidationCompleted">["status"] = "stable";
      let message: string | undefined;
      /** Lines naming the steps not validated, after the message. */
      let notes = skipped;
      if (unstable.length === 0 && !proven) {
        // Every step was skipped, is the agent's or is empty: "stable" would claim what no
        // replay showed.
        status = "failed";
        const why = steps.filter((s) =>
          s.status === "skipped" || s.status === "not_recordable" || s.empty
        ).map(whyNot);
        message = `Nothing was validated: ${why.join("; ") || "the trail has no steps"}`;
        notes = [];
      } else if (unstable.length === 0 && skipped.length > 0) {
        // The other steps held, but not every step was replayed: the trail is not proven stable.
        status = "unstable";
        message = `Not proven stable: ${skipped.join("; ")}`;
        notes = [];
      } else if (unstable.length > 0 && flags.onUnstable === "reblaze") {
        status = "failed";
        const first = unstable[0]!;
        message = `Replay failed at ${list}: ${telling(first.evidence) ?? "no evidence"}. ` +
          "The trail no longer matches the app: a new blaze from the NL steps is needed";
      } else if (unstable.length > 0) {
        status = "unstable";
        message = flags.onUnstable === "fallback_nl"
          ? `Fell back to the NL step for ${list} (recordable: false)`
          : `Could not stabilise ${list} after ${iterations(state.iteration)}: marked ` +
            "recordable: false";
      }
      return [{
        type: "ValidationCompleted",
        data: {
          status,
          iterations: state.iteration,
          trail: command.data.trail,
          steps,
          ...(message || notes.length
            ? { message: [message, ...notes].filter((m) => m).join("; ") }
            : {}),
        },
      }];
    }
  }
}

/**
 * Folds one event into the state.
 *
 * @param state the state so far
 * @param event a `validation-<id>` event
 * @returns the next state
 * @throws {InvalidStreamError} for an event type that does not belong to a validation stream, or
 *   a stream that does not start with `ValidationStarted`
 */
export function evolve(state: ValidationState, event: NewEvent | StoredEvent): ValidationState {
  if (
    state.status === "new" && event.type !== "ValidationStarted" && VALIDATION_TYPES.has(event.type)
  ) {
    // a report without its start has no id, session or policy: not a validation to show
    throw new InvalidStreamError(
      `A validation stream must start with ValidationStarted, not ${event.type}`,
    );
  }
  switch (event.type) {
    case "ValidationStarted": {
      const d = event.data;
      return {
        ...initialState,
        status: "running",
        validationId: d.validationId,
        sessionId: d.sessionId,
        policy: d.policy,
        maxIterations: d.maxIterations,
        ...(d.url ? { url: d.url } : {}),
      };
    }
    case "ValidationIterationCompleted": {
      const d = event.data;
      const prior = new Map(state.steps.map((s) => [s.index, s]));
      const steps = d.steps.map((o): StepTrack => {
        const p = prior.get(o.index) ??
          {
            index: o.index,
            step: o.step,
            refinedEver: false,
            failedSinceRefine: false,
            passesSinceRefine: 0,
            evidence: [],
            refinements: [],
          };
        const passed = o.passed ?? o.status !== "unstable";
        const next: StepTrack = {
          ...p,
          evidence: o.evidence,
          passesSinceRefine: passed ? p.passesSinceRefine + 1 : p.passesSinceRefine,
          failedSinceRefine: passed || o.dependent ? p.failedSinceRefine : true,
        };
        delete next.skipped;
        delete next.notRecordable;
        delete next.empty;
        delete next.dependent;
        if (!passed && o.dependent) next.dependent = true;
        if (o.status === "skipped") next.skipped = true;
        if (o.status === "not_recordable") next.notRecordable = true;
        if (o.empty) next.empty = true;
        if (!passed && !o.dependent) {
          next.lastFailure = { iteration: d.iteration, evidence: o.evidence };
        }
        if (o.refined) {
          next.refinements = [
            ...p.refinements,
            ...o.evidence.filter((e) => e.includes("refined from")).map((e) =>
              `iteration ${d.iteration}: ${e}`
            ),
          ];
          next.refinedEver = true;
          next.failedSinceRefine = false;
          next.passesSinceRefine = 0;
        }
        return next;
      });
      return {
        ...state,
        iteration: d.iteration,
        steps,
        trail: d.trail,
        iterations: [...state.iterations, {
          iteration: d.iteration,
          playbackId: d.playbackId,
          passed: d.passed,
          steps: d.steps,
        }],
      };
    }
    case "ValidationCompleted": {
      const d = event.data;
      return {
        ...state,
        status: d.status,
        trail: d.trail,
        finalSteps: d.steps,
        ...(d.message ? { message: d.message } : {}),
      };
    }
    default:
      throw new InvalidStreamError(`Event ${event.type} does not belong to a validation stream`);
  }
}

const VALIDATION_TYPES: ReadonlySet<string> = new Set([
  "ValidationStarted",
  "ValidationIterationCompleted",
  "ValidationCompleted",
]);

/** The validation projection (HOUSE_STYLE): a stream's events folded into its state. */
export const validationProjection = {
  name: "validation",
  version: 1,
  evolve,
  initialState,
} as const;

/**
 * What the loop does next: replay again, or complete.
 *
 * @param state the state after the latest iteration
 * @returns `replay` or `complete`
 */
export function nextMove(state: ValidationState): "replay" | "complete" {
  if (state.status !== "running") throw new TypeError(`Validation is ${state.status}`);
  if (state.iteration === 0) return "replay";
  const flags = policyFlags(state.policy, state.maxIterations);
  // a step failing only after an unreplayed or failing one gets no new data by itself
  if (state.steps.every((s) => converged(s) || notValidated(s))) return "complete";
  if (state.iteration >= flags.maxIterations || !flags.refine) return "complete";
  const last = state.iterations.at(-1);
  const refinedNow = last?.steps.some((s) => s.refined) ?? false;
  if (!flags.persist && !refinedNow) return "complete";
  return "replay";
}

/**
 * The evidence of a step's last failure when a later replay passed, so an unstable step's report
 * still says why it failed (a lucky last load does not hide it).
 */
function earlierFailure(s: StepTrack, lastIteration: number): string[] {
  if (converged(s) || !s.lastFailure || s.lastFailure.iteration === lastIteration) return [];
  return s.lastFailure.evidence.map((e) => `iteration ${s.lastFailure!.iteration}: ${e}`);
}

/** Evidence that only says what held: how the element was found, that it is the same one. */
const HELD = /resolved with |same element \(|moved by \(.*\) with the layout|memory slot \S+ = /;

/**
 * The evidence line that explains a failure: the first that is not merely what held (the
 * strategy that resolved it, the same element, a move with the layout).
 *
 * @param evidence a step's evidence, in order
 * @returns the line, or the first one when every line is of what held
 * @example
 * ```ts
 * const why = telling(["action 1 (tap): resolved with test_id add-3", "action 1 (tap): a different element: size 40×20 → 80×20"]);
 * if (!why?.includes("a different element")) throw new Error();
 * ```
 */
export function telling(evidence: readonly string[]): string | undefined {
  return evidence.find((e) => e && !HELD.test(e)) ?? evidence.find((e) => e);
}

/**
 * A count of iterations in words.
 *
 * @param n the count
 * @returns "1 iteration", "3 iterations"
 */
export function iterations(n: number): string {
  return `${n} iteration${n === 1 ? "" : "s"}`;
}
