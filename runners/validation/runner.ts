/**
 * The validation loop (000 "Validation Loop"): project a capture's trail → replay it
 * deterministically through the playback runner on a fresh page load (no agent) → capture the
 * replay's screens → compare every action with the capture → refine failing steps from the
 * hierarchies of every run → replay again, as the policy allows. An action whose selectors find
 * nothing is repaired during the replay itself: its element is placed on the page by the
 * capture's fingerprint (engine/validation/place.ts) and the replay goes on from it with the new
 * selectors, so the steps after it are played and compared in the same iteration. Every iteration is appended to
 * `validation-<id>` (`ValidationStarted`, `ValidationIterationCompleted`,
 * `ValidationCompleted`); the report is the fold of that stream ({@linkcode readValidation}).
 *
 * @module
 */
import type { EventStore } from "../../events/mod.ts";
import { NotFoundError } from "../../events/mod.ts";
import type { EventData, NewEvent, StoredEvent } from "../../events/mod.ts";
import { trailToPlan } from "../../engine/playback/mod.ts";
import { planMemoryKeys } from "../../engine/playback/mod.ts";
import { rebasePlan, rebaseUrl } from "../../engine/playback/mod.ts";
import { projectSessionTrail } from "../../engine/optimizer/mod.ts";
import type { ScreenTable } from "../../engine/screens/mod.ts";
import {
  type Selector,
  type SelectorMode,
  stringifyTrail,
  type Trail,
} from "../../engine/trail/mod.ts";
import type { Screen } from "../../engine/screens/mod.ts";
import {
  type CapturedAction,
  compareAction,
  type ReplayedAction,
} from "../../engine/validation/mod.ts";
import {
  converged,
  decide,
  DEFAULT_MAX_ITERATIONS,
  evolve,
  initialState,
  iterations,
  nextMove,
  type Policy,
  policyFlags,
  type StepOutcome,
  stepStatus,
  type ValidationCommand,
  type ValidationState,
} from "../../engine/validation/mod.ts";
import { heuristicsLevel } from "../../engine/trail/mod.ts";
import {
  describeSelector,
  pruneSelectors,
  type RefineOptions,
  refineSelectors,
} from "../../engine/validation/mod.ts";
import { flagUnrecordable, withSelectors } from "../../engine/validation/mod.ts";
import { placeSelectors } from "../../engine/validation/mod.ts";
import { editTrailSource } from "../../engine/validation/mod.ts";
import type { DocumentAnswer, Driver, Snapshot } from "../../drivers/mod.ts";
import { playbackStream, runPlayback } from "../playback/mod.ts";
import { recordScreens } from "./_screens.ts";
import { SecretScrubber } from "../../drivers/mod.ts";
import { STATUS_CODES } from "node:http";

/** Options of {@linkcode startValidation}. */
export interface ValidationOptions {
  /** The url every replay opens (default: the capture's). */
  url?: string;
  /** authoring (default), dev or ci. */
  policy?: Policy;
  /** Replays at most under the authoring policy (default 3). */
  maxIterations?: number;
  /** Validation id (default a random `val-…`). */
  validationId?: string;
  /**
   * Selector mode the capture is projected at (default adaptive). A trail given in `trail` that
   * names its own `config.selectorMode` is compared with the capture projected at that mode
   * instead, as for `heuristics`: the kinds and targets it was written from.
   */
  mode?: SelectorMode;
  /**
   * Heuristics version the capture is projected at (default the current one). A trail given
   * in `trail` that names its own `config.heuristics` is compared with the capture projected
   * at that version instead: the targets it was written from.
   */
  heuristics?: string;
  /** A trail to validate instead of projecting the capture (ci: the committed trail). */
  trail?: Trail;
  /**
   * The text `trail` was parsed from (a file the user wrote): the final trail is that text with
   * only what validation changed replaced, so comments and the user's spelling survive.
   */
  trailSource?: string;
  /**
   * Values for the trail's memory keys (a password slot the trail keeps as `null`): used by the
   * replays only, never stored (not in an event, the trail or the report).
   */
  memory?: Readonly<Record<string, string>>;
  /**
   * More values kept out of every event and blob the validation stores, as `memory`'s are: those
   * given to earlier runs in the same browser (`cairn serve`), whose page the first replay may
   * start on.
   */
  secrets?: readonly string[];
  /**
   * Called before each replay after the first, once the last one ended: `cairn serve` opens a
   * fresh tab there (in a browser it launched, in a fresh browser context), so each replay starts
   * from the clean state the first one did and the capture was made from, and a page that counts
   * its visits in local storage is not flagged unstable for what an earlier replay left.
   */
  beforeReplay?: () => Promise<void>;
  /** One line per iteration and per step. */
  onProgress?: (line: string) => void;
  /** How long a lookup waits for the page before the cascade gives up (default 1 000 ms). */
  locateWaitMs?: number;
  /** Per-action timeout (default 10 000 ms). */
  actionTimeoutMs?: number;
  /** Stops the loop: the running replay stops before its next action, the validation fails. */
  signal?: AbortSignal;
}

/** A started validation. */
export interface StartedValidation {
  validationId: string;
  streamId: string;
  /** Settles with the final state; rejects only when the loop itself breaks. */
  done: Promise<ValidationState>;
}

/**
 * The stream a validation's events go to.
 *
 * @param validationId the validation id
 * @returns `validation-<id>`
 */
export function validationStream(validationId: string): string {
  return `validation-${validationId}`;
}

/**
 * Reads a validation's state (progress while it runs, the report once done).
 *
 * @param store the event store
 * @param validationId the validation id
 * @returns the state, or undefined for an unknown id
 */
export async function readValidation(
  store: EventStore,
  validationId: string,
): Promise<ValidationState | undefined> {
  let state = initialState;
  let any = false;
  for await (const e of store.readStream(validationStream(validationId))) {
    state = evolve(state, e);
    any = true;
  }
  return any ? state : undefined;
}

interface CaptureIndex {
  /** By step index, by recording action index. */
  actions: Map<number, CapturedAction[]>;
  /** The NL text of each captured step, by index. */
  steps: Map<number, string>;
  trail: Trail;
}

/** Raised by {@linkcode startValidation} while another validation runs on the same browser. */
export class ValidationBusyError extends Error {
  override name = "ValidationBusyError";
  constructor() {
    super("A validation is already running on this browser; wait for it to complete");
  }
}

/** Raised by {@linkcode startValidation} when the trail given names another session. */
export class TrailSessionError extends Error {
  override name = "TrailSessionError";
}

/** Raised by {@linkcode startValidation} when `options.memory` names a key the trail lacks. */
export class MemoryKeyError extends Error {
  override name = "MemoryKeyError";
  /**
   * @param message what is wrong
   * @param unknown the keys the trail neither has nor reads
   */
  constructor(message: string, readonly unknown: readonly string[] = []) {
    super(message);
  }
}

/** Raised by {@linkcode startValidation} when the trail's platform is not the driver's. */
export class PlatformMismatchError extends Error {
  override name = "PlatformMismatchError";
}

const busy = new WeakSet<Driver>();

/**
 * Lookup failures a validation places the element for during the replay: the selectors found
 * nothing, only a hidden element (markup left behind, a layout for another width), or elements
 * of the chain that disagree (the player's `ambiguous`): the element may still be on the page.
 */
const PLACEABLE: ReadonlySet<string> = new Set([
  "selector_not_found",
  "element_hidden",
  "ambiguous",
]);

async function indexCapture(
  store: EventStore,
  sessionId: string,
  mode: SelectorMode | undefined,
  heuristics: string | undefined,
): Promise<CaptureIndex> {
  const screens = new Map<string, Screen>();
  const tables = new Map<string, ScreenTable>();
  const projection = await projectSessionTrail(store, sessionId, {
    screens,
    tables,
    ...(mode ? { mode } : {}),
    ...(heuristics ? { heuristics } : {}),
  });
  const events: StoredEvent[] = [];
  for await (const e of store.readStream(`session-${sessionId}`)) events.push(e);
  const performed = events.filter((e) => e.type === "ActionPerformed");
  const completed = new Map<string, EventData<"ActionCompleted">>();
  for (const e of events) if (e.type === "ActionCompleted") completed.set(e.data.actionId, e.data);
  const actions = new Map<number, CapturedAction[]>();
  const steps = new Map<number, string>();
  for (const x of projection.explain) {
    steps.set(x.step - 1, x.stepText);
    if (!x.written) continue;
    const list = actions.get(x.step - 1) ?? [];
    const src = performed[x.action - 1];
    const done = src?.type === "ActionPerformed" ? completed.get(src.data.actionId) : undefined;
    const c: CapturedAction = { kind: x.written.kind };
    if (x.target) {
      const screen = screens.get(x.target.screen);
      const table = tables.get(x.target.screen);
      if (screen && table) {
        c.screen = screen;
        c.node = table.node(x.target.node);
      }
    }
    if (done) {
      c.ok = done.ok;
      if (done.value !== undefined) c.value = done.value;
    }
    if (x.written.storeAs) c.storeAs = x.written.storeAs;
    list.push(c);
    actions.set(x.step - 1, list);
  }
  return { actions, steps, trail: projection.trail };
}

function selectorsOf(trail: Trail, step: number, action: number): Selector[] {
  const a = trail.trail[step]?.recording?.[action];
  if (!a) return [];
  return [...(a.selector ? [a.selector] : []), ...(a.selectors ?? [])];
}

/** For each plan action: its step and the recording action it came from. */
function planOrigins(trail: Trail): ({ step: number; action: number } | undefined)[] {
  const out: ({ step: number; action: number } | undefined)[] = [];
  const plan = trailToPlan(trail);
  const cursor = new Map<number, { action: number; left: number }>();
  for (const a of plan.actions) {
    if (a.stepIndex === undefined || a.type === "agent_step") {
      out.push(undefined);
      continue;
    }
    const rec = trail.trail[a.stepIndex]?.recording ?? [];
    let c = cursor.get(a.stepIndex);
    if (!c || c.left === 0) {
      const next = c ? c.action + 1 : 0;
      c = { action: next, left: rec[next]?.repeat ?? 1 };
    }
    c.left--;
    cursor.set(a.stepIndex, c);
    out.push({ step: a.stepIndex, action: c.action });
  }
  return out;
}

/**
 * Starts a validation and returns its id at once; the loop runs in the background.
 *
 * @param driver the browser (one validation or playback at a time per browser)
 * @param store the event store holding the capture
 * @param sessionId the capture session
 * @param options url, policy, iterations, progress
 * @returns the validation id and a promise of the final state
 * @throws {NotFoundError} when the session does not exist
 * @throws {ValidationBusyError} while another validation runs on this browser
 * @throws {PlatformMismatchError} when the trail is for another platform than the driver's
 * @throws {TrailSessionError} when `options.trail` names another session in `config.id`
 * @throws {MemoryKeyError} when `options.memory` names a key the trail neither has in its memory nor reads in a template
 * @throws {RangeError} when `options.heuristics` is a version this build does not know
 */
export async function startValidation(
  driver: Driver,
  store: EventStore,
  sessionId: string,
  options: ValidationOptions = {},
): Promise<StartedValidation> {
  if (busy.has(driver)) throw new ValidationBusyError();
  busy.add(driver);
  try {
    const started = await begin(driver, store, sessionId, options);
    started.done = started.done.finally(() => busy.delete(driver));
    return started;
  } catch (err) {
    busy.delete(driver);
    throw err;
  }
}

async function begin(
  driver: Driver,
  store: EventStore,
  sessionId: string,
  options: ValidationOptions,
): Promise<StartedValidation> {
  const other = options.trail?.config.id;
  if (other !== undefined && other !== sessionId) {
    throw new TrailSessionError(
      `the trail is session ${other}'s (config.id), not session ${sessionId}'s`,
    );
  }
  // The trail's own heuristics version and selector mode: its steps, kinds and targets are that
  // projection's (a flexible trail's assertVisible is an assertText at adaptive).
  const heuristics = options.trail?.config.heuristics ?? options.heuristics;
  const mode = options.trail?.config.selectorMode ?? options.mode;
  const capture = await indexCapture(store, sessionId, mode, heuristics);
  const policy = options.policy ?? "authoring";
  const flags = policyFlags(policy, options.maxIterations ?? DEFAULT_MAX_ITERATIONS);
  const validationId = options.validationId ?? `val-${crypto.randomUUID().slice(0, 12)}`;
  const streamId = validationStream(validationId);
  let trail: Trail = options.trail ?? capture.trail;
  const platform = trail.config.platform ?? "web";
  if (platform !== driver.platform) {
    throw new PlatformMismatchError(
      `Session ${sessionId} was captured on ${platform}; validation replays ${driver.platform} sessions only (${
        driver.platform === "web"
          ? "in Chromium; replay an Android trail with cairn replay"
          : "this driver"
      })`,
    );
  }
  // as replay: a key of the trail's memory, or one a template reads
  const keys = planMemoryKeys(trailToPlan(trail));
  const unknown = Object.keys(options.memory ?? {}).filter((k) => !keys.includes(k));
  if (unknown.length > 0) {
    const known = keys.join(", ") || "none";
    throw new MemoryKeyError(
      `Memory key ${unknown.map((k) => JSON.stringify(k)).join(", ")} is neither in the ` +
        `trail's memory nor read by its templates (keys: ${known})`,
      unknown,
    );
  }
  const url = options.url ?? trail.config.url;
  if (url) trail = { ...trail, config: { ...trail.config, url } };
  if (options.url) trail = withPlaceholdersRebased(trail, new URL(options.url));
  const loop = new Loop(driver, store, streamId, capture, options);
  await loop.apply({
    type: "StartValidation",
    data: {
      validationId,
      sessionId,
      policy,
      maxIterations: flags.maxIterations,
      ...(url ? { url } : {}),
    },
  });
  const done = loop.run(trail);
  return { validationId, streamId, done };
}

/**
 * Runs a validation to the end.
 *
 * @param driver the browser
 * @param store the event store
 * @param sessionId the capture session
 * @param options see {@linkcode ValidationOptions}
 * @returns the final state (status, iterations, steps, trail)
 */
export async function runValidation(
  driver: Driver,
  store: EventStore,
  sessionId: string,
  options: ValidationOptions = {},
): Promise<ValidationState> {
  const started = await startValidation(driver, store, sessionId, options);
  return await started.done;
}

class Loop {
  state: ValidationState = initialState;
  #version = 0;
  /** The trail the loop is on (the one a broken loop reports). */
  #current!: Trail;
  /** Replay screens of each (step, action), oldest first. */
  #replayScreens = new Map<string, Screen[]>();
  /** The memory values supplied: kept out of every event and blob the replays store. */
  #secrets = new SecretScrubber();

  constructor(
    readonly driver: Driver,
    readonly store: EventStore,
    readonly streamId: string,
    readonly capture: CaptureIndex,
    readonly options: ValidationOptions,
  ) {
    for (const v of Object.values(options.memory ?? {})) this.#secrets.add(v);
    for (const v of options.secrets ?? []) this.#secrets.add(v);
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
    return { ...event, data: this.#secrets.value(event.data) } as NewEvent;
  }

  #say(line: string): void {
    this.options.onProgress?.(line);
  }

  /**
   * Runs the loop to the end. When it breaks (the browser dies, the store refuses), the stream
   * still ends: a `ValidationCompleted` `failed` naming the error, then the error is rethrown.
   */
  async run(start: Trail): Promise<ValidationState> {
    this.#current = start;
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
        trail: stringifyTrail(this.#current),
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
      this.#say(this.#secrets.text(line));
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
      this.#say(
        `iteration ${n}/${flags.maxIterations}: replaying ` +
          (played === 0 ? "no action" : count(played, "action")) +
          (agent > 0 ? ` (${count(agent, "step")} left to the agent)` : "") +
          (own.length === 0 ? " (every recording is empty)" : "") + opens,
      );
      const playbackId = `${this.state.validationId}-${n}`;
      const run = await this.#replay(trail, playbackId, flags.refine);
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
      this.#current = trail;
      const { replayed, repairs, unplaced } = run;
      const screens: EventData<"ValidationIterationCompleted">["screens"] = [];
      for (const [index, snap] of run.screens) {
        const bytes = this.#secrets.hierarchy(snap.raw.bytes, snap.raw.mediaType);
        const ref = await this.store.putBlob(bytes, snap.raw.mediaType);
        screens.push({ index, hierarchy: ref, format: snap.raw.format });
      }
      const outcomes: StepOutcome[] = [];
      const perStep = new Map<
        number,
        {
          passed: boolean;
          evidence: string[];
          failing: number[];
          /** Actions whose selector found nothing, or only after healing. */
          lookup: number[];
          elementFailure: boolean;
          missing?: string;
          /** An action the player did not play (a kind or a gesture it has no way to play). */
          unplayed?: string[];
          /** Its text is not the captured step's: a failure of its own. */
          uncompared?: boolean;
          /** An action acted on a clearly different element (role, name or text): its own. */
          otherElement?: boolean;
          /** Its actions placed and played again during the replay (refined there). */
          repaired?: boolean;
        }
      >();
      const missing = missingSecrets(trail, this.options.memory);
      origins.forEach((o, i) => {
        if (!o) return;
        const r = replayed.get(i) ?? { status: "skipped" as const, error: "no result recorded" };
        const snap = run.screens.get(i);
        // A later document it led to (a link followed, a form posted) that is an error page.
        const doc = run.documents.get(i);
        const pageError = doc ? answerError(doc) : undefined;
        const replay: ReplayedAction = {
          ...r,
          ...(snap ? { screen: snap.screen } : {}),
          ...(pageError !== undefined ? { pageError } : {}),
        };
        const captured = this.#captured(trail, o.step, o.action) ??
          { kind: trail.trail[o.step]?.recording?.[o.action]?.kind ?? "unknown" };
        const entry = perStep.get(o.step) ??
          { passed: true, evidence: [], failing: [], lookup: [], elementFailure: false };
        perStep.set(o.step, entry);
        const uses = usedKey(trail.trail[o.step]?.recording?.[o.action], missing);
        if (uses !== undefined) {
          // Typed with a value the trail never stored: the replay proves nothing about the step.
          entry.missing ??= uses;
          entry.evidence.push(
            `action ${o.action + 1}: not validated: memory ${JSON.stringify(uses)} has no value ` +
              `(supply --memory ${uses}=…)`,
          );
          return;
        }
        if (r.status === "skipped" && r.errorCode === "unsupported_action_type") {
          // The player's own gap, not evidence about the app: the action is neither compared
          // nor held against the step, which stays as written (not validated).
          const kind = trail.trail[o.step]?.recording?.[o.action]?.kind ?? "action";
          const line = `action ${o.action + 1} (${kind}) was not played (${
            r.error ?? r.errorCode
          })`;
          (entry.unplayed ??= []).push(line);
          return;
        }
        const capturedStep = this.capture.steps.get(o.step);
        if (capturedStep !== trail.trail[o.step]?.step) {
          // Nothing to compare with: a replay that merely ran proves nothing about the step.
          entry.passed = false;
          entry.uncompared = true;
          const why = capturedStep === undefined
            ? "the capture has no step at this position"
            : `the capture's step ${o.step + 1} is ${JSON.stringify(capturedStep)}`;
          const line = `not compared with the capture: ${why}`;
          if (!entry.evidence.includes(line)) entry.evidence.push(line);
          return;
        }
        const repair = repairs.get(i);
        if (repair) {
          // Its selectors as written found nothing; the replay placed the element and played it
          // again with the new ones: that second play is what is compared below.
          entry.repaired = true;
          entry.evidence.push(
            `action ${o.action + 1} (${captured.kind}): ${repair.failure} (as written)`,
            `action ${o.action + 1}: refined from the replay's screen: ${
              repair.evidence.join("; ")
            }`,
          );
        }
        const placing = unplaced.get(i);
        if (placing) entry.evidence.push(`action ${o.action + 1}: not placed: ${placing}`);
        const verdict = compareAction(captured, replay);
        entry.passed &&= verdict.passed;
        entry.elementFailure ||= verdict.elementFailure;
        entry.otherElement ||= verdict.otherElement === true;
        for (const e of verdict.evidence) {
          entry.evidence.push(`action ${o.action + 1} (${captured.kind}): ${e}`);
        }
        // a placed action keeps what the replay placed (refining it again from the same screens
        // would only repeat that)
        if (verdict.elementFailure && !repair) entry.failing.push(o.action);
        if (
          !repair && !verdict.passed && (r.errorCode === "selector_not_found" ||
            r.healed === true || r.strategy === "coordinates")
        ) entry.lookup.push(o.action);
        if (snap) {
          const key = `${o.step}:${o.action}`;
          const list = this.#replayScreens.get(key) ?? [];
          if (!list.includes(snap.screen)) list.push(snap.screen);
          this.#replayScreens.set(key, list);
        }
      });
      // Why a later step's failure may not be its own: an earlier step failed, or was not
      // replayed at all (the agent's, or a secret with no value), so the page is not in the
      // state the capture left it in.
      let earlier: string | undefined;
      for (const [index, step] of trail.trail.entries()) {
        const entry = perStep.get(index);
        const named = `step ${index + 1} ${JSON.stringify(step.step)}`;
        if (!entry) {
          const agent = step.recordable === false || !step.recording;
          outcomes.push({
            index,
            step: step.step,
            passed: true,
            evidence: [
              agent
                ? "recordable: false: the agent handles this step, nothing to replay"
                : "empty recording: the step replays no action, nothing to compare",
            ],
            refined: false,
            // Not proven stable: the replay had nothing of it (it stays recordable: false), or
            // it has nothing to replay (it passes, proving nothing).
            ...(agent ? { notRecordable: true } : { empty: true }),
          });
          if (agent) earlier ??= `${named} was not replayed (recordable: false)`;
          continue;
        }
        if (entry.missing !== undefined) {
          outcomes.push({
            index,
            step: step.step,
            passed: true,
            evidence: entry.evidence,
            refined: false,
            missing: entry.missing,
          });
          earlier ??= `${named} was not replayed (memory ${
            JSON.stringify(entry.missing)
          } has no value)`;
          continue;
        }
        if (entry.unplayed && entry.passed) {
          // Every action it played held, but one was not played: not proven, not failed. Its
          // evidence ends with why (the report's "not validated: …").
          const why = entry.unplayed.join("; ");
          outcomes.push({
            index,
            step: step.step,
            passed: true,
            evidence: [...entry.evidence, `not validated: ${why}`],
            refined: false,
            unplayed: why,
          });
          earlier ??= `${named} was not replayed whole (${why})`;
          continue;
        }
        if (entry.unplayed) entry.evidence.push(`also not played: ${entry.unplayed.join("; ")}`);
        // Placed during the replay: refined, and the steps after it were played on the page it
        // left (when its new selectors held, they are not after a failure).
        let refined = entry.repaired === true;
        // After an earlier failure even a hidden element or a changed size is the earlier
        // step's doing (nothing signed in, nothing shown), so it is neither held against this
        // step's selectors nor refined from a screen in the wrong state. A step whose text is
        // not the captured one is its own failure, and so is one whose selector acted on a
        // clearly different element (another name or role): no earlier step makes it so.
        const after = !entry.passed && !entry.uncompared && !entry.otherElement
          ? earlier
          : undefined;
        if (!entry.passed) earlier ??= `${named} failed`;
        // A selector that found nothing (or needed healing) may be its own fault even then: it
        // is refined when a candidate holds on every run's screen (the element is there); what
        // found the element in another state is not refined from that screen.
        const refineAt = after === undefined ? entry.failing : entry.lookup;
        if (!entry.passed && flags.refine) {
          for (const action of new Set(refineAt)) {
            const next = this.#refine(trail, index, action);
            entry.evidence.push(`action ${action + 1}: ${next.line}`);
            if (next.trail) {
              trail = next.trail;
              this.#current = trail;
              refined = true;
            }
          }
        }
        const dependent = after !== undefined && !refined;
        if (dependent) {
          entry.evidence.push(
            `not validated: it failed only after ${after} (not held against its selectors)`,
          );
        }
        outcomes.push({
          index,
          step: step.step,
          // its selectors as written failed, whatever the placed ones did
          passed: entry.passed && !entry.repaired,
          evidence: entry.evidence,
          refined,
          ...(dependent ? { dependent } : {}),
        });
      }
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
        this.#say(
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
      : flagUnrecordable(this.#prune(trail, unconverged), unstable);
    const given = this.options.trail;
    const source = this.options.trailSource;
    const text = given && source !== undefined
      ? editTrailSource(source, given, final)
      : stringifyTrail(final);
    await this.apply({ type: "CompleteValidation", data: { trail: text } });
    this.#say(
      `${this.state.status} after ${iterations(this.state.iteration)}` +
        (this.state.message ? `: ${this.state.message}` : ""),
    );
    return this.state;
  }

  /**
   * Replays the trail once (one iteration). When refining is allowed, an action whose selectors
   * find nothing is placed on the page as it is then ({@linkcode placeSelectors}): the replay
   * stops there and goes on from that action with its new selectors, on the same page, so every
   * later step is played in the state the capture had (not skipped as after a failure) and each
   * failing step that can be placed is refined in this one iteration. At most one placement per
   * action; every continuation is a playback of its own (`<id>.2`, `<id>.3`, …), their results
   * merged by plan position.
   */
  async #replay(
    start: Trail,
    playbackId: string,
    refine: boolean,
  ): Promise<{
    trail: Trail;
    openingError?: string;
    replayed: Map<number, ReplayedAction>;
    screens: Map<number, Snapshot>;
    documents: Map<number, DocumentAnswer>;
    repairs: Map<number, { failure: string; evidence: string[] }>;
    unplaced: Map<number, string>;
  }> {
    const planOf = (t: Trail) =>
      this.options.url ? rebasePlan(trailToPlan(t), this.options.url) : trailToPlan(t);
    const origins = planOrigins(start);
    const replayed = new Map<number, ReplayedAction>();
    const screens = new Map<number, Snapshot>();
    const documents = new Map<number, DocumentAnswer>();
    const repairs = new Map<number, { failure: string; evidence: string[] }>();
    const unplaced = new Map<number, string>();
    /** Values read into memory so far (a continuation starts with them). */
    const read: Record<string, string> = {};
    let trail = start;
    let from = 0;
    for (let segment = 1; segment <= origins.length + 1; segment++) {
      const plan = planOf(trail);
      const id = segment === 1 ? playbackId : `${playbackId}.${segment}`;
      const rec = recordScreens(this.driver, this.store, this.#secrets);
      // The page could not be opened: the run proves nothing about any step, so it stops there
      // (no later lookup is recorded against its selectors) and the validation fails.
      const stop = new AbortController();
      let openingError: string | undefined;
      let placed: { index: number; trail: Trail } | undefined;
      const memory = { ...(this.options.memory ?? {}), ...read };
      await runPlayback(rec.driver, rec.store, { ...plan, actions: plan.actions.slice(from) }, {
        playbackId: id,
        overlay: false,
        onError: "continue",
        locateWaitMs: this.options.locateWaitMs ?? 1_000,
        // an assertion fails as fast as a lookup does: each iteration replays the whole trail
        expectWaitMs: this.options.locateWaitMs ?? 1_000,
        ...(Object.keys(memory).length > 0 ? { memory } : {}),
        ...(this.options.actionTimeoutMs ? { actionTimeoutMs: this.options.actionTimeoutMs } : {}),
        signal: this.options.signal
          ? AbortSignal.any([this.options.signal, stop.signal])
          : stop.signal,
        afterAction: async (local, action, result) => {
          const index = local + from;
          if (
            result.storeAs && result.value !== undefined &&
            (result.status === "ok" || result.status === "healed")
          ) read[result.storeAs] = result.value;
          if (index === 0 && action.type === "navigate") {
            if (result.status === "failed") {
              openingError = result.error ?? `${action.url}: ${result.errorCode ?? "failed"}`;
            } else {
              // An error page loads (as Playwright's goto, replay only warns), but a trail
              // replayed on it proves nothing about the recorded page.
              const nav = rec.navigations.get(local);
              if (nav?.status === undefined || nav.status < 400) return;
              openingError = answerError({ ...nav, url: nav.finalUrl });
              if (openingError === undefined) return;
            }
            stop.abort();
            return;
          }
          if (!refine || result.status !== "failed" || !PLACEABLE.has(result.errorCode ?? "")) {
            return;
          }
          const o = origins[index];
          if (!o || repairs.has(index) || unplaced.has(index)) return;
          const next = await this.#place(trail, o.step, o.action);
          if (!next.trail) {
            unplaced.set(index, next.line);
            return;
          }
          repairs.set(index, {
            failure: `${result.errorCode}: ${result.error ?? ""}`.trim(),
            evidence: next.evidence,
          });
          placed = { index, trail: next.trail };
          stop.abort();
        },
      });
      this.options.signal?.throwIfAborted();
      const results = await readReplay(this.store, id);
      for (const [local, r] of results) {
        const index = local + from;
        // the action placed is played again by the next segment: its failure is not its result
        if (placed?.index === index) continue;
        // a segment stopped for a placement records nothing after it
        if (placed && index > placed.index) continue;
        replayed.set(index, r);
      }
      for (const [local, snap] of rec.screens) {
        if (placed && local + from > placed.index) continue;
        screens.set(local + from, snap);
      }
      for (const [local, doc] of rec.documents) {
        if (placed && local + from > placed.index) continue;
        documents.set(local + from, doc);
      }
      if (openingError !== undefined) {
        return { trail, openingError, replayed, screens, documents, repairs, unplaced };
      }
      if (!placed) break;
      const p: { index: number; trail: Trail } = placed;
      trail = p.trail;
      from = p.index;
      this.#say(
        `  step ${origins[p.index]!.step + 1}: its element was placed on the page; ` +
          `replaying on from it with the new selectors (playback ${playbackId}.${segment + 1})`,
      );
    }
    return { trail, replayed, screens, documents, repairs, unplaced };
  }

  /** Places a failing action's element on the page as it is now and gives its new selectors. */
  async #place(
    trail: Trail,
    step: number,
    action: number,
  ): Promise<{ trail?: Trail; evidence: string[]; line: string }> {
    const captured = this.#captured(trail, step, action);
    if (!captured?.screen || !captured.node) {
      return { evidence: [], line: "the capture has no element for this action" };
    }
    const now = await this.driver.snapshot();
    const r = placeSelectors(
      { screen: captured.screen, node: captured.node },
      now.screen,
      this.#rankAt(trail, step, captured.kind),
    );
    if (!r.ok) return { evidence: [], line: r.reason };
    const key = `${step}:${action}`;
    // the page it was placed on is one of the screens its selectors held on
    const list = this.#replayScreens.get(key) ?? [];
    if (!list.includes(now.screen)) list.push(now.screen);
    this.#replayScreens.set(key, list);
    return {
      trail: withSelectors(trail, step, action, r.selectors),
      evidence: r.evidence,
      line: r.evidence.join("; "),
    };
  }

  /** The capture's record of a trail action, when the trail's step is the captured one. */
  #captured(trail: Trail, step: number, action: number): CapturedAction | undefined {
    if (this.capture.steps.get(step) !== trail.trail[step]?.step) return undefined;
    const c = this.capture.actions.get(step)?.[action];
    const kind = trail.trail[step]?.recording?.[action]?.kind;
    return c && c.kind === kind ? c : undefined;
  }

  /** Drops fallbacks of converged steps that did not hold in every replay (strict: all of them). */
  #prune(trail: Trail, skip: readonly number[]): Trail {
    let out = trail;
    for (const [step, s] of trail.trail.entries()) {
      if (skip.includes(step) || this.state.steps[step]?.skipped) continue;
      for (const [action] of (s.recording ?? []).entries()) {
        const captured = this.#captured(out, step, action);
        const replays = this.#replayScreens.get(`${step}:${action}`) ?? [];
        const current = selectorsOf(out, step, action);
        if (!captured?.node || replays.length === 0 || current.length < 2) continue;
        const how = this.#rankAt(out, step, captured.kind);
        const { kept, dropped, reasons } = pruneSelectors(
          current,
          captured.node,
          replays,
          how,
          captured.screen,
        );
        if (dropped.length === 0) continue;
        out = withSelectors(out, step, action, kept);
        this.#say(
          `  step ${step + 1}: dropped fallback ${
            dropped.map((d, k) => `${describeSelector(d)} (${reasons[k]})`).join(", ")
          }`,
        );
      }
    }
    return out;
  }

  /**
   * How a step's candidates are ranked and matched: at the heuristics level of the capture's
   * projection the trail is compared with (its own `config.heuristics`, else the version
   * projected), in the step's selector mode.
   */
  #rankAt(trail: Trail, step: number, kind: string): RefineOptions {
    const version = trail.config.heuristics ?? this.capture.trail.config.heuristics;
    const mode = trail.trail[step]?.selectorMode ?? trail.config.selectorMode;
    return {
      platform: trail.config.platform ?? "web",
      kind,
      ...(version !== undefined ? { level: heuristicsLevel(version) } : {}),
      ...(mode !== undefined ? { mode } : {}),
    };
  }

  #refine(trail: Trail, step: number, action: number): { trail?: Trail; line: string } {
    const captured = this.#captured(trail, step, action);
    if (!captured?.screen || !captured.node) {
      return { line: "not refined: the capture has no element for this action" };
    }
    const replays = this.#replayScreens.get(`${step}:${action}`) ?? [];
    if (replays.length === 0) return { line: "not refined: no replay screen for this action" };
    const r = refineSelectors(
      { screen: captured.screen, node: captured.node },
      replays,
      this.#rankAt(trail, step, captured.kind),
    );
    if (!r.ok) return { line: `not refined: ${r.reason}` };
    const current = selectorsOf(trail, step, action);
    if (JSON.stringify(current) === JSON.stringify(r.selectors)) {
      return { line: "not refined: the selectors that hold in every run are the current ones" };
    }
    return {
      trail: withSelectors(trail, step, action, r.selectors),
      line: `refined from ${replays.length + 1} runs: ${r.evidence.join("; ")}`,
    };
  }
}

/**
 * What is wrong with a document's answer, when it is an error page: an HTTP error status
 * (`http://…/shop answered HTTP 404 Not Found`) or a load that failed and left the browser's own
 * error page (`http://…/next could not be loaded (net::ERR_CONNECTION_REFUSED)`).
 */
function answerError(
  doc: { url: string; status?: number; statusText?: string; error?: string },
): string | undefined {
  if (doc.error !== undefined) return `${doc.url} could not be loaded (${doc.error})`;
  if (doc.status === undefined || doc.status < 400) return undefined;
  const reason = doc.statusText || STATUS_CODES[doc.status] || "";
  return `${doc.url} answered HTTP ${doc.status}${reason ? ` ${reason}` : ""}`;
}

/** The memory keys the trail keeps as `null` (secrets) and `memory` gives no value for. */
function missingSecrets(trail: Trail, memory: Readonly<Record<string, string>> = {}): string[] {
  return Object.entries(trail.config.memory ?? {})
    .filter(([k, v]) => v === null && !Object.hasOwn(memory, k))
    .map(([k]) => k);
}

/** The first of `keys` a recording action's templates read, if any. */
function usedKey(action: unknown, keys: readonly string[]): string | undefined {
  if (!action || keys.length === 0) return undefined;
  const templates = JSON.stringify(action).match(/\{\{.*?\}\}/g) ?? [];
  return keys.find((k) =>
    templates.some((t) => new RegExp(`\\b${k.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`).test(t))
  );
}

async function readReplay(
  store: EventStore,
  playbackId: string,
): Promise<Map<number, ReplayedAction>> {
  const out = new Map<number, ReplayedAction>();
  const resolved = new Map<number, EventData<"PlaybackActionResolved">>();
  let any = false;
  for await (const e of store.readStream(playbackStream(playbackId))) {
    any = true;
    if (e.type === "PlaybackActionResolved") resolved.set(e.data.index, e.data);
    if (e.type !== "PlaybackActionCompleted") continue;
    const d = e.data;
    const r = resolved.get(d.index);
    out.set(d.index, {
      status: d.status,
      ...(d.errorCode ? { errorCode: d.errorCode } : {}),
      ...(d.error ? { error: d.error } : {}),
      ...(d.value !== undefined ? { value: d.value } : {}),
      ...(r && r.strategy !== "none"
        ? { strategy: r.strategy, selector: r.selector, healed: r.healed }
        : {}),
      ...(r?.bounds ? { bounds: r.bounds } : {}),
    });
  }
  if (!any) throw new NotFoundError(`Playback ${playbackId} recorded nothing`);
  return out;
}

/**
 * A trail whose navigates to a placeholder origin (`https://localhost:<test-port>/…`, recorded
 * by DevTools' own flows) go to `base` instead: validation replays them there (`rebasePlan`), so
 * the trail it writes names where it was proven, and replays without `--url`. A navigate to a
 * real origin stays as recorded (only `config.url` says where the trail was validated).
 */
function withPlaceholdersRebased(trail: Trail, base: URL): Trail {
  let changed = false;
  const steps = trail.trail.map((step) => {
    if (!step.recording?.some((a) => a.kind === "navigate" && isPlaceholderUrl(a.url))) {
      return step;
    }
    changed = true;
    return {
      ...step,
      recording: step.recording.map((a) =>
        a.kind === "navigate" && isPlaceholderUrl(a.url)
          ? { ...a, url: rebaseUrl(a.url!, base) }
          : a
      ),
    };
  });
  return changed ? { ...trail, trail: steps } : trail;
}

/** A url that cannot be parsed and holds no template: a placeholder host or port. */
function isPlaceholderUrl(url: string | undefined): boolean {
  return url !== undefined && !url.includes("{{") && !URL.canParse(url);
}
