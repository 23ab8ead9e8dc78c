/**
 * The validation loop (see docs/validation.md): project a capture's trail → replay it
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
import { planMemoryKeys, trailToPlan } from "../../engine/playback/mod.ts";
import type { Trail } from "../../engine/trail/mod.ts";
import {
  DEFAULT_MAX_ITERATIONS,
  evolve,
  initialState,
  policyFlags,
  type ValidationState,
} from "../../engine/validation/mod.ts";
import type { Driver } from "../../drivers/mod.ts";
import { indexCapture, withPlaceholdersRebased } from "./_capture.ts";
import { Loop } from "./_loop.ts";
import {
  MemoryKeyError,
  PlatformMismatchError,
  type StartedValidation,
  TrailSessionError,
  ValidationBusyError,
  type ValidationOptions,
} from "./options.ts";

export * from "./options.ts";

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

const busy = new WeakSet<Driver>();

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
