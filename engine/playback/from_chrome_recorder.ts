/**
 * A Chrome DevTools Recorder flow as a playback plan: `setViewport` gives the recorded
 * viewport, `navigate`, `click`/`doubleClick`, `change` (type), `keyDown` (key_press; its
 * `keyUp` is dropped), `scroll` and `waitForElement` (assert_visible) map onto 003's actions;
 * every other step type is kept and reported as skipped (`unsupported_action_type`).
 * The step's selector alternatives (aria, CSS, XPath, pierce, text) feed the cascade.
 *
 * @module
 */
import { recorderSelectors, type UserFlow } from "../formats/chrome_recorder.ts";
import type { PlaybackAction, PlaybackPlan } from "./actions.ts";
import { targetFromSelectors } from "./target_from_selectors.ts";

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
  for (const step of flow.steps) {
    const s = step as typeof step & { x?: number; y?: number };
    const target = step.selectors
      ? targetFromSelectors(recorderSelectors(step.selectors))
      : undefined;
    const label = flow.title;
    const base = { ...(label ? { label } : {}), ...(viewport ? { viewport } : {}) };
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
        actions.push({ type: "click", ...(target ? { target } : {}), ...base });
        break;
      case "change":
        actions.push({
          type: "type",
          ...(target ? { target } : {}),
          text: step.value ?? "",
          ...base,
        });
        break;
      case "keyDown":
        actions.push({ type: "key_press", key: step.key!, ...base });
        break;
      case "keyUp":
        break;
      case "scroll":
        if (target) actions.push({ type: "scroll", target, ...base });
        else actions.push({ type: "scroll", scrollTo: { x: s.x ?? 0, y: s.y ?? 0 }, ...base });
        break;
      case "waitForElement":
        actions.push({ type: "assert_visible", ...(target ? { target } : {}), ...base });
        break;
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
