/**
 * What the trail exporters (Playwright, Maestro, DevTools Recorder) share: the selector chain an
 * action plays with, the environment variable a secret comes from, how an action is named in a
 * warning, and the result type.
 *
 * @module
 */
import type { Selector, Trail, TrailAction, TrailStep } from "../trail/mod.ts";

/** An exported file: its text and the lines naming what the format could not express. */
export interface ExportResult {
  text: string;
  /** One line per action (or trail feature) the format has no place for, naming it. */
  warnings: string[];
  /** The default file name (`<id>.spec.ts`, `<id>.maestro.yaml`, `<id>.recorder.json`). */
  fileName: string;
}

/**
 * The selectors an action tries, in order: `selector` first, then `selectors`; only the first
 * when the step (or the trail) plays in strict mode.
 *
 * @param action the action
 * @param strict whether only the primary selector is tried
 * @returns the chain (empty for an action without selectors)
 */
export function selectorChain(action: TrailAction, strict: boolean): Selector[] {
  const all = [...(action.selector ? [action.selector] : []), ...(action.selectors ?? [])];
  return strict ? all.slice(0, 1) : all;
}

/** Whether a step plays in strict mode (its own mode, else the trail's). */
export function isStrict(trail: Trail, step: TrailStep): boolean {
  return (step.selectorMode ?? trail.config.selectorMode) === "strict";
}

/**
 * The environment variable a secret memory key is read from: the key in upper snake case
 * (`password` → `PASSWORD`, `cardPin` → `CARD_PIN`, `user.pin` → `USER_PIN`).
 *
 * @param key the memory key
 * @returns the variable name
 * @example
 * ```ts
 * if (secretEnvName("cardPin") !== "CARD_PIN" || secretEnvName("user.pin") !== "USER_PIN") throw new Error();
 * ```
 */
export function secretEnvName(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/[^A-Za-z0-9]+/g, "_").toUpperCase();
}

/** The memory keys without a default (secrets the run must supply). */
export function secretKeys(trail: Trail): string[] {
  return Object.entries(trail.config.memory ?? {}).filter(([, v]) => v === null).map(([k]) => k);
}

/**
 * How a warning names an action: `step 2 "Add one item", action 1 (tap)`.
 *
 * @param stepIndex 0-based step index
 * @param step the step
 * @param actionIndex 0-based action index within the step
 * @param action the action
 * @returns the name
 */
export function actionName(
  stepIndex: number,
  step: TrailStep,
  actionIndex: number,
  action: TrailAction,
): string {
  return `step ${stepIndex + 1} ${JSON.stringify(step.step)}, action ${
    actionIndex + 1
  } (${action.kind})`;
}

/**
 * A duration as milliseconds: `1500`, `1500ms`, `1.5s`, `1m` (a trail's `wait` value).
 *
 * @param v the duration
 * @returns milliseconds, or undefined when it is not one
 */
export function durationMs(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/.exec(v);
  if (!m) return undefined;
  const n = Number(m[1]);
  return Math.round(m[2] === "s" ? n * 1000 : m[2] === "m" ? n * 60_000 : n);
}

/** A file name stem from the trail's id or title. */
export function trailStem(trail: Trail, fallback = "trail"): string {
  const raw = trail.config.id ?? trail.config.title ?? fallback;
  return raw.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "") || fallback;
}

/** Whether a text holds a template (`{{…}}` or `${name}`). */
export function hasTemplate(s: string): boolean {
  return s.includes("{{") || /\$\{\s*[A-Za-z_]/.test(s);
}
