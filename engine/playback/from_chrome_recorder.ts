/**
 * A Chrome DevTools Recorder flow as a playback plan: `setViewport` gives the recorded
 * viewport, `navigate`, `click` (with its mouse button: `auxiliary` is the middle one,
 * `secondary` the right one, `back`, `forward`), `doubleClick` (double_click), `change` (type),
 * `keyDown` (key_press, with the modifiers held as a chord, `Shift+Tab`; its `keyUp` and a
 * modifier's own keys are dropped), `scroll`, `hover` (the mouse over the element) and
 * `waitForElement` map onto playback's actions — a `waitForElement` is an assert_visible, an
 * assert_text when its `properties` give the element's `textContent`, `innerText` or `value`,
 * an assert_not_visible with `visible: false`, and carries its `count` and `operator`; one with
 * another property or `attributes` is skipped naming them, never passed as a visibility check;
 * every other step type is kept and
 * reported as skipped
 * (`unsupported_action_type`), and so is a step inside a frame (`frame: [0]`: the player acts on
 * the top frame only), as `click_in_frame`, `change_in_frame`, ….
 * The step's selector alternatives (aria, CSS, XPath, pierce, text) feed the cascade as Chrome
 * reads them (see {@linkcode recorderTarget}).
 *
 * @module
 */
import {
  recorderKeyPresses,
  recorderSelectors,
  type UserFlow,
  waitForElementChecks,
} from "../formats/mod.ts";
import type { MouseButton, PlaybackAction, PlaybackPlan, Target } from "./actions.ts";
import { targetFromSelectors } from "./target_from_selectors.ts";
import { escapeRegex } from "../trail/mod.ts";

/**
 * The target of a Recorder step's selectors (as {@linkcode recorderSelectors} keys them), read
 * as Chrome reads them: a `text/` selector is text the element's text contains (Chrome's text
 * query; the Recorder writes the first words of the element's text, `text/Custom selector` for
 * "Custom selector attribute"), never the whole text; a CSS selector on the flow's
 * `selectorAttribute` (`[data-qa='pay']`) is the author's, tried first as written.
 *
 * @param selectors the selector map
 * @param selectorAttribute the flow's `selectorAttribute`, when it has one
 * @returns the target
 * @example
 * ```ts
 * const t = recorderTarget({ css: "[data-qa='pay']", text: "Pay now" }, "data-qa");
 * if (t.css !== "[data-qa='pay']" || t.textContains !== "Pay now" || t.text !== undefined) {
 *   throw new Error();
 * }
 * ```
 */
export function recorderTarget(
  selectors: Readonly<Record<string, string>>,
  selectorAttribute?: string,
): Target {
  const rest: Record<string, string> = {};
  let contains: string | undefined;
  let authored: string | undefined;
  const own = selectorAttribute
    ? new RegExp(`^\\[${escapeRegex(selectorAttribute)}=(?:"[^"]*"|'[^']*'|[^\\]"']+)\\]$`)
    : undefined;
  for (const [key, value] of Object.entries(selectors)) {
    const kind = key.replace(/\.\d+$/, "");
    if (kind === "text" && !value.includes(" >>> ")) contains ??= value;
    else if ((kind === "css" || kind === "pierce") && own?.test(value)) authored ??= value;
    else rest[key] = value;
  }
  const t = targetFromSelectors(rest);
  if (contains !== undefined && contains.trim() !== "") t.textContains = contains;
  if (authored !== undefined) t.css = authored;
  return t;
}

/** A Recorder click's `button` as the player's mouse button (`primary` is the default click). */
const BUTTONS: Readonly<Record<string, MouseButton>> = {
  auxiliary: "middle",
  secondary: "right",
  back: "back",
  forward: "forward",
};

/**
 * The mouse button of a Recorder click other than the main one.
 *
 * @param button the step's `button` (`primary`, `auxiliary`, `secondary`, `back`, `forward`)
 * @returns the player's button, or undefined for the main one (or none, or an unknown one)
 * @example
 * ```ts
 * if (recorderButton("secondary") !== "right" || recorderButton("primary") !== undefined) {
 *   throw new Error();
 * }
 * ```
 */
export function recorderButton(button: unknown): MouseButton | undefined {
  return typeof button === "string" && Object.hasOwn(BUTTONS, button) ? BUTTONS[button] : undefined;
}

/**
 * Whether a Recorder step acts inside a frame (`frame: [0]`, `[0, 0]`: the path of frame
 * indices from the top one), which the player does not reach.
 *
 * @param frame the step's `frame`
 * @returns true for a non-empty frame path
 * @example
 * ```ts
 * if (!inFrame([0]) || inFrame([]) || inFrame(undefined)) throw new Error();
 * ```
 */
export function inFrame(frame: unknown): boolean {
  return Array.isArray(frame) && frame.length > 0;
}

/**
 * Converts a Recorder flow into a plan.
 *
 * @param flow a flow (`parseChromeRecorder` of `engine/formats/chrome_recorder.ts`)
 * @param options the file it came from
 * @returns the plan
 * @example
 * ```ts
 * const plan = chromeRecorderToPlan({ steps: [{ type: "click", selectors: [["aria/Go"], ["#go"]] }] });
 * if (plan.actions[0]!.target!.name !== "Go" || plan.actions[0]!.target!.id !== "go") throw new Error();
 * ```
 */
export function chromeRecorderToPlan(
  flow: UserFlow,
  options: { file?: string } = {},
): PlaybackPlan {
  const actions: PlaybackAction[] = [];
  let viewport: { width: number; height: number } | undefined;
  let first: { width: number; height: number } | undefined;
  let dpr: number | undefined;
  const keys = recorderKeyPresses(flow.steps);
  for (const [i, step] of flow.steps.entries()) {
    const s = step as typeof step & { x?: number; y?: number };
    const target = step.selectors
      ? recorderTarget(recorderSelectors(step.selectors), flow.selectorAttribute)
      : undefined;
    const label = flow.title;
    const base = { ...(label ? { label } : {}), ...(viewport ? { viewport } : {}) };
    if (inFrame(step.frame)) {
      // acting in the top frame instead would click whatever matches there
      actions.push({ type: `${step.type}_in_frame`, ...(target ? { target } : {}), ...base });
      continue;
    }
    const button = recorderButton(step.button);
    switch (step.type) {
      case "setViewport":
        if (step.width && step.height) viewport = { width: step.width, height: step.height };
        first ??= viewport;
        if (step.deviceScaleFactor) dpr = step.deviceScaleFactor;
        break;
      case "navigate":
        actions.push({ type: "navigate", url: step.url!, ...base });
        break;
      case "click":
      case "doubleClick":
        actions.push({
          type: step.type === "click" ? "click" : "double_click",
          ...(target ? { target } : {}),
          ...(button ? { button } : {}),
          ...base,
        });
        break;
      case "change":
        actions.push({
          type: "type",
          ...(target ? { target } : {}),
          text: step.value ?? "",
          ...base,
        });
        break;
      case "keyDown": {
        // a modifier's own keyDown is part of the chord the next key names, or nothing
        const key = keys.get(i);
        if (key !== undefined) actions.push({ type: "key_press", key, ...base });
        break;
      }
      case "keyUp":
        break;
      case "scroll":
        if (target) actions.push({ type: "scroll", target, ...base });
        else actions.push({ type: "scroll", scrollTo: { x: s.x ?? 0, y: s.y ?? 0 }, ...base });
        break;
      case "waitForElement": {
        // its properties, count and visibility are checked, never only that something shows
        const checks = waitForElementChecks(step);
        if (checks.unchecked.length > 0) {
          // an expectation the player cannot check is not passed as a visibility check
          actions.push({
            type: `waitForElement ${checks.unchecked.join(", ")}`,
            ...(target ? { target } : {}),
            ...base,
          });
        } else if (!checks.visible) {
          actions.push({ type: "assert_not_visible", ...(target ? { target } : {}), ...base });
        } else {
          actions.push({
            type: checks.text !== undefined ? "assert_text" : "assert_visible",
            ...(target ? { target } : {}),
            ...(checks.text !== undefined ? { expected: checks.text } : {}),
            ...(checks.count !== undefined
              ? { count: checks.count, countOperator: checks.operator! }
              : {}),
            ...base,
          });
        }
        break;
      }
      default:
        actions.push({ type: step.type, ...(target ? { target } : {}), ...base });
    }
  }
  return {
    source: { kind: "flow", ...(options.file ? { file: options.file } : {}) },
    platform: "web",
    actions,
    ...(first ? { viewport: first } : {}),
    ...(dpr ? { devicePixelRatio: dpr } : {}),
  };
}
