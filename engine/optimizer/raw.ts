/**
 * Heuristics `v0`, the raw lens: the trail as the blaze recorded it — the runtime selectors the
 * agent used (or the point it tapped), literal values, successful calls only — with no
 * post-processing (the raw recording of a blaze). It is the baseline the optimizer's
 * versions are compared with (`cairn reproject --from v0 --heuristics v1`).
 *
 * @module
 */
import type { Selector, TrailAction, TrailActionKind, TrailStep } from "../trail/mod.ts";
import type { CapturedAction, CaptureModel } from "./draft.ts";
import type { ExplainEntry } from "./optimize.ts";

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
  reload: "reload",
  switchTab: "switchTab",
  wait: "wait",
};

/** Where a raw action's selector came from, for `--explain`. */
type SelectorSource = "runtime" | "recorder" | "point" | "value read" | "expected text";

function runtimeSelector(
  a: CapturedAction,
  size?: { width: number; height: number },
): { selector: Selector; from: SelectorSource } | undefined {
  const t = a.data.target;
  const r = t?.selector ?? {};
  const sel: Selector = {};
  if (r.id) sel.id = r.id;
  if (r.testId) sel.testId = r.testId;
  if (r.contentDescription) sel.contentDescription = r.contentDescription;
  if (r.text) sel.text = r.text;
  if (r.css) sel.cssPath = r.css;
  if (Object.keys(sel).length > 0) return { selector: sel, from: "runtime" };
  const rec = t?.selectors;
  if (rec?.aria) return { selector: { ariaLabel: rec.aria }, from: "recorder" };
  if (rec?.css) return { selector: { cssPath: rec.css }, from: "recorder" };
  if (a.data.point) {
    const xy: Selector = { xy: [Math.round(a.data.point.x), Math.round(a.data.point.y)] };
    if (size) xy.viewport = size;
    return { selector: xy, from: "point" };
  }
  return undefined;
}

const SOURCE_LINES: Record<SelectorSource, string> = {
  runtime: "selector: the runtime selector the agent used, unchecked",
  recorder: "selector: the recorder's own selector, unchecked",
  point: "selector: the point acted on (no runtime selector)",
  "value read": "selector: the text the action read",
  "expected text": "selector: the text the assertion expected",
};

/** What the raw lens writes for a trail step, and why for each captured action. */
export interface RawTrail {
  steps: TrailStep[];
  /** One entry per captured action, as `optimize()` explains its passes. */
  explain: ExplainEntry[];
}

/**
 * Projects the raw recording of a capture (heuristics `v0`) and explains each action: written
 * as recorded (and where its selector came from), or dropped because it failed or has no
 * trail action.
 *
 * @param model the folded capture
 * @returns the steps, one per NL step, and the explanation
 */
export function rawTrail(model: CaptureModel): RawTrail {
  const steps: TrailStep[] = model.steps.map((step) => ({ step, recording: [] }));
  const explain: ExplainEntry[] = [];
  for (const a of model.actions) {
    const kind = KINDS[a.data.kind];
    const entry = {
      step: a.step + 1,
      stepText: model.steps[a.step]!,
      action: a.seq + 1,
      kind: a.data.kind,
    };
    if (!kind || !a.ok) {
      const why = !a.ok
        ? `dropped: the call failed${a.error !== undefined ? ` (${a.error})` : ""}`
        : `dropped: ${a.data.kind} has no trail action`;
      explain.push({ ...entry, outcome: why, lines: [] });
      continue;
    }
    const size = a.screen !== undefined ? model.sizes.get(a.screen) : undefined;
    const d = a.data;
    const out: TrailAction = { kind };
    let found = runtimeSelector(a, size);
    if (kind === "readText" && !d.target?.selector) {
      const v = a.value ?? d.value;
      if (v !== undefined) found = { selector: { text: v }, from: "value read" };
    }
    if (kind === "assertVisible" && d.expected !== undefined) {
      found = { selector: { text: d.expected }, from: "expected text" };
    }
    const lines: string[] = [];
    if (
      found && kind !== "navigate" && kind !== "keyPress" && kind !== "back" &&
      kind !== "reload" && kind !== "switchTab"
    ) {
      out.selector = found.selector;
      lines.push(SOURCE_LINES[found.from]);
    }
    if (kind === "inputText" && d.text !== undefined) out.text = d.text;
    if (d.url !== undefined && (kind === "navigate" || kind === "switchTab")) out.url = d.url;
    if (kind === "switchTab" && d.toolParams?.newTab === true) out.newTab = true;
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
    const { kind: _, ...rest } = out;
    explain.push({
      ...entry,
      outcome: `as recorded: ${kind} ${JSON.stringify(rest)}`,
      lines,
      written: out,
    });
  }
  return { steps, explain };
}
