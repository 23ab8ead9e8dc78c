/**
 * Heuristics `v0`, the raw lens: the trail as the blaze recorded it — the runtime selectors the
 * agent used (or the point it tapped), literal values, successful calls only — with no
 * post-processing (000's "Raw recording (from blaze)"). It is the baseline the optimizer's
 * versions are compared with (`cairn reproject --from v0 --heuristics v1`).
 *
 * @module
 */
import type { Selector, TrailAction, TrailActionKind, TrailStep } from "../trail.ts";
import type { CapturedAction, CaptureModel } from "./draft.ts";

const KINDS: Partial<Record<string, TrailActionKind>> = {
  tap: "tap",
  inputText: "inputText",
  swipe: "swipe",
  scroll: "scroll",
  navigate: "navigate",
  keyPress: "keyPress",
  select: "select",
  check: "check",
  readText: "readText",
  assertVisible: "assertVisible",
  assertText: "assertText",
  memorySet: "memorySet",
  back: "back",
  wait: "wait",
};

function runtimeSelector(
  a: CapturedAction,
  size?: { width: number; height: number },
): Selector | undefined {
  const t = a.data.target;
  const r = t?.selector ?? {};
  const sel: Selector = {};
  if (r.id) sel.id = r.id;
  if (r.testId) sel.testId = r.testId;
  if (r.contentDescription) sel.contentDescription = r.contentDescription;
  if (r.text) sel.text = r.text;
  if (r.css) sel.cssPath = r.css;
  if (Object.keys(sel).length > 0) return sel;
  const rec = t?.selectors;
  if (rec?.aria) return { ariaLabel: rec.aria };
  if (rec?.css) return { cssPath: rec.css };
  if (a.data.point) {
    const xy: Selector = { xy: [Math.round(a.data.point.x), Math.round(a.data.point.y)] };
    if (size) xy.viewport = size;
    return xy;
  }
  return undefined;
}

/**
 * Projects the raw recording of a capture (heuristics `v0`).
 *
 * @param model the folded capture
 * @returns the steps, one per NL step
 */
export function rawSteps(model: CaptureModel): TrailStep[] {
  const steps: TrailStep[] = model.steps.map((step) => ({ step, recording: [] }));
  for (const a of model.actions) {
    const kind = KINDS[a.data.kind];
    if (!kind || !a.ok) continue;
    const size = a.screen !== undefined ? model.sizes.get(a.screen) : undefined;
    const d = a.data;
    const out: TrailAction = { kind };
    let selector = runtimeSelector(a, size);
    if (kind === "readText" && !d.target?.selector) {
      const v = a.value ?? d.value;
      if (v !== undefined) selector = { text: v };
    }
    if (kind === "assertVisible" && d.expected !== undefined) selector = { text: d.expected };
    if (selector && kind !== "navigate" && kind !== "keyPress" && kind !== "back") {
      out.selector = selector;
    }
    if (kind === "inputText" && d.text !== undefined) out.text = d.text;
    if (d.url !== undefined && kind === "navigate") out.url = d.url;
    if (d.key !== undefined && kind === "keyPress") out.key = d.key;
    if (d.direction !== undefined) out.direction = d.direction;
    if ((kind === "select" || kind === "memorySet") && (d.value ?? a.value) !== undefined) {
      out.value = (d.value ?? a.value)!;
    }
    if (kind === "check" && d.checked !== undefined) out.checked = d.checked;
    if ((kind === "readText" || kind === "memorySet") && d.storeAs !== undefined) {
      out.storeAs = d.storeAs;
    }
    if (kind === "assertText" && d.expected !== undefined) out.equals = d.expected;
    steps[a.step]!.recording!.push(out);
  }
  return steps;
}
