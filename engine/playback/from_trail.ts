/**
 * A Cairn trail (docs/architecture.md "Trail format") as a playback plan. Trail kinds map onto plan
 * actions: tap → click, inputText → type, keyPress → key_press, readText → read_text (with
 * `storeAs`), assertText → assert_text (`equals` or `matches`), assertVisible →
 * assert_visible, assertNotVisible → assert_not_visible, longPress → long_press, memorySet →
 * memory_set (`value` into `storeAs`), wait → wait (its `value` a duration: `durationMs`);
 * navigate, select, check, scroll, swipe and back keep their names. Templates stay as
 * written: the runner evaluates them against memory at replay time. A step's selector mode
 * rides on each of its actions; a `recordable: false` step becomes an `agent_step` action,
 * reported as skipped (the agent handles it on every run).
 *
 * @module
 */
import { type Selector, textAnchors, type Trail, type TrailAction } from "../trail/mod.ts";
import type { PlaybackAction, PlaybackPlan, Target, Within } from "./actions.ts";
import { PLAYBACK_TYPE_OF_KIND } from "./actions.ts";
import { parseDuration } from "../trail/mod.ts";

/**
 * Merges a trail selector (and its fallbacks, in order) into one target: the first selector's
 * properties lead the cascade, later ones fill what it lacks. `childOf` becomes `within` (the
 * cascade scopes its lookups to the parent's match; a text-only `childOf` chain to the row
 * showing those texts), `textRegex` a regex text level, `index` the n-th match of a level. With
 * two or more selectors that name an element, each is also kept on its own, in order, as
 * `alternatives`: the web and Android cascades try them so, each with its own `index` and
 * `childOf`, and the merged fields only name and check the element.
 *
 * @param selectors the selector and the fallback list, in order
 * @returns the target
 * @example
 * ```ts
 * const t = targetFromTrailSelectors([{ contentDescription: "input-email" }, { id: "field", index: 0 }]);
 * if (t.alternatives?.length !== 2 || t.alternatives[1]!.index !== 0) throw new Error();
 * ```
 */
export function targetFromTrailSelectors(selectors: readonly Selector[]): Target {
  const t = mergeSelectors(selectors);
  const named = selectors.filter((s) => Object.keys(s).some((k) => !NOT_NAMING.has(k)));
  if (named.length > 1) {
    t.alternatives = named.map((s) => {
      const { point: _point, ...own } = mergeSelectors([s]);
      return own;
    });
  }
  return t;
}

/** Selector keys that do not name an element on their own (a point is the coordinate level). */
const NOT_NAMING: ReadonlySet<string> = new Set(["xy", "viewport", "index"]);

/** The selectors' properties merged into one target, the first selector's leading. */
function mergeSelectors(selectors: readonly Selector[]): Target {
  const t: Target = {};
  for (const s of selectors) {
    if (s.testId && !t.testId) t.testId = s.testId;
    if (s.ariaLabel && !t.ariaLabel) t.ariaLabel = s.ariaLabel;
    if (s.contentDescription && !t.contentDescription) t.contentDescription = s.contentDescription;
    if (s.role && !t.role) t.role = s.role;
    if (s.name && !t.name) t.name = s.name;
    if (s.id && !t.id) t.id = s.id;
    if (s.text && !t.text) t.text = s.text;
    if (s.className && !t.className) t.className = s.className;
    if (s.index !== undefined && t.index === undefined) t.index = s.index;
    if (s.cssPath && !t.cssPath) t.cssPath = s.cssPath;
    if (s.xy && !t.point) t.point = { x: s.xy[0], y: s.xy[1] };
    if (s.textRegex && !t.textRegex) t.textRegex = s.textRegex;
    if (s.childOf && !t.within) t.within = withinOf(s.childOf);
  }
  return t;
}

/**
 * A trail's `childOf` as the ancestor the cascade scopes its lookups to: every property of the
 * parent (and its own `childOf`, nested); the innermost text-only parents are row anchors
 * (`texts`), scoped by the parents around them (`within`).
 */
function withinOf(parent: Selector): Within {
  // the innermost text-only parents are row anchors, inside whatever scope lies around them
  const texts: string[] = [];
  let p: Selector | undefined = parent;
  for (
    ;
    p && p.text && Object.keys(p).every((k) => k === "text" || k === "childOf");
    p = p.childOf
  ) {
    texts.push(p.text);
  }
  if (texts.length > 0) return p ? { texts, within: withinOf(p) } : { texts };
  const w: Within = {};
  for (const key of WITHIN_KEYS) {
    const v = parent[key];
    if (v !== undefined && v !== "") (w as Record<string, unknown>)[key] = v;
  }
  if (parent.childOf) w.within = withinOf(parent.childOf);
  return w;
}

/** The parent properties a `within` carries as they are. */
const WITHIN_KEYS = [
  "testId",
  "ariaLabel",
  "contentDescription",
  "id",
  "role",
  "name",
  "text",
  "textRegex",
  "className",
  "cssPath",
  "index",
] as const;

/**
 * Why a selector's `childOf` (at any depth) cannot scope a lookup on a platform, or undefined:
 * a parent is found by its properties, so a point (`xy`, `viewport`) names none; Android scopes
 * only under an id, test id, content description or aria-label parent (a `childSelector`) or a
 * text-only chain (row anchors), one property and one level.
 *
 * @param sel a selector of an action
 * @param platform where the trail plays
 * @returns the field path below the selector (`childOf.role`) and why, or undefined
 * @example
 * ```ts
 * if (childOfProblem({ text: "Add", childOf: { role: "listitem" } }, "web") !== undefined) throw new Error();
 * if (childOfProblem({ text: "Add", childOf: { role: "listitem" } }, "android")?.field !== "childOf.role") throw new Error();
 * ```
 */
export function childOfProblem(
  sel: Selector,
  platform: string,
): { field: string; message: string } | undefined {
  if (!sel.childOf) return undefined;
  let path = "childOf";
  for (let p: Selector | undefined = sel.childOf; p; p = p.childOf) {
    for (const k of ["xy", "viewport"] as const) {
      if (p[k] !== undefined) {
        return {
          field: `${path}.${k}`,
          message: "a parent is found by its properties, not by a point: give its id, text, …",
        };
      }
    }
    if (p.childOf) path += ".childOf";
  }
  if (platform !== "android" || textAnchors(sel)) return undefined;
  const parent = sel.childOf;
  const keys = Object.keys(parent);
  const scoping = ["id", "testId", "contentDescription", "ariaLabel"];
  const other = keys.find((k) => !scoping.includes(k));
  if (other === undefined && keys.length === 1) return undefined;
  const field = other ?? keys[1]!;
  return {
    field: `childOf.${field}`,
    message:
      "on Android a childOf scopes under one id, testId, contentDescription or ariaLabel, or is a text-only row anchor",
  };
}

function convert(
  a: TrailAction,
  label: string,
  stepIndex: number,
  at: { source: string; platform: string; path: string },
): PlaybackAction[] {
  const type = PLAYBACK_TYPE_OF_KIND[a.kind] ?? a.kind;
  const selectors = [...(a.selector ? [a.selector] : []), ...(a.selectors ?? [])];
  selectors.forEach((sel, k) => {
    const problem = childOfProblem(sel, at.platform);
    if (!problem) return;
    const where = a.selector ? (k === 0 ? "selector" : `selectors.${k - 1}`) : `selectors.${k}`;
    throw new SyntaxError(
      `${at.source}: ${at.path}.${where}.${problem.field}: ${problem.message}`,
    );
  });
  const viewport = selectors.find((s) => s.viewport)?.viewport;
  const action: PlaybackAction = { type, label, stepIndex };
  if (selectors.length > 0) action.target = targetFromTrailSelectors(selectors);
  if (viewport) action.viewport = viewport;
  if (a.text !== undefined) action.text = a.text;
  if (a.url !== undefined) action.url = a.url;
  if (a.newTab === true) action.newTab = true;
  if (a.key !== undefined) action.key = a.key;
  if (a.value !== undefined && a.kind === "wait") {
    // checked when the trail was read (`parseTrail`): a duration
    const ms = parseDuration(a.value);
    if (ms !== undefined) action.durationMs = ms;
  } else if (a.value !== undefined) action.value = a.value;
  if (a.checked !== undefined) action.checked = a.checked;
  if (a.storeAs !== undefined) action.storeAs = a.storeAs;
  if (a.equals !== undefined) action.expected = a.equals;
  if (a.matches !== undefined) action.expectedPattern = a.matches;
  if (a.direction !== undefined) action.direction = a.direction;
  return Array.from({ length: a.repeat ?? 1 }, () => ({ ...action }));
}

/**
 * Converts a trail into a plan.
 *
 * @param trail a parsed trail (`parseTrail` of `engine/trail/trail.ts`)
 * @param options the file it came from
 * @returns the plan: one action per recorded action (repeats expanded)
 * @throws {SyntaxError} naming the file and field when a `childOf` cannot scope a lookup on the
 *   trail's platform ({@linkcode childOfProblem}): it is refused, never dropped
 * @example
 * ```ts
 * const plan = trailToPlan({ config: { platform: "web" }, trail: [{ step: "Go", recording: [{ kind: "tap", selector: { id: "go" } }] }] });
 * if (plan.actions[0]!.type !== "click" || plan.actions[0]!.target!.id !== "go") throw new Error();
 * ```
 */
export function trailToPlan(trail: Trail, options: { file?: string } = {}): PlaybackPlan {
  const actions: PlaybackAction[] = [];
  trail.trail.forEach((step, stepIndex) => {
    if (step.recordable === false || !step.recording) {
      actions.push({ type: "agent_step", label: step.step, stepIndex });
      return;
    }
    for (const [j, a] of step.recording.entries()) {
      const at = {
        source: options.file ?? "trail",
        platform: trail.config.platform ?? "web",
        path: `trail.${stepIndex}.recording.${j}.${a.kind}`,
      };
      for (const action of convert(a, step.step, stepIndex, at)) {
        if (step.selectorMode) action.selectorMode = step.selectorMode;
        actions.push(action);
      }
    }
  });
  const memory: Record<string, string> = {};
  const unsetMemory: string[] = [];
  for (const [k, v] of Object.entries(trail.config.memory ?? {})) {
    if (v !== null) memory[k] = v;
    else unsetMemory.push(k);
  }
  // a relative navigate (`page2.html`, `/x`) is resolved against config.url, as Playwright's
  // baseURL; one with a scheme (or a placeholder origin, `https://localhost:<test-port>/…`) stays
  const base = trail.config.url && URL.canParse(trail.config.url) ? trail.config.url : undefined;
  if (base) {
    for (const a of actions) {
      if (a.type !== "navigate" || !a.url || a.url.includes("{{")) continue;
      if (/^[a-z][a-z\d+.-]*:/i.test(a.url)) continue;
      a.url = new URL(a.url, base).href;
    }
  }
  if (trail.config.url && actions[0]?.type !== "navigate") {
    actions.unshift({
      type: "navigate",
      url: trail.config.url,
      label: "Open the app",
      added: true,
    });
  }
  return {
    source: { kind: "trail", ...(options.file ? { file: options.file } : {}) },
    platform: trail.config.platform ?? "web",
    actions,
    ...(trail.config.viewport ? { viewport: trail.config.viewport } : {}),
    ...(Object.keys(memory).length ? { memory } : {}),
    ...(unsetMemory.length ? { unsetMemory } : {}),
    ...(trail.config.selectorMode ? { selectorMode: trail.config.selectorMode } : {}),
  };
}
