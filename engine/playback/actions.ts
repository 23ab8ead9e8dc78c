/**
 * The one action model of playback: every source — a Cairn trail, a `recording_v1`,
 * a Chrome DevTools Recorder flow, a synthetic action array — maps into a {@linkcode PlaybackPlan}
 * of {@linkcode PlaybackAction}s, and the runner plays only this.
 *
 * @module
 */
import { z } from "zod";
import { templateVariables } from "../trail/mod.ts";
import { scopeLookup } from "./cascade.ts";

/** Action types the engine executes; any other type is skipped as `unsupported_action_type`. */
export const ACTION_TYPES = [
  "navigate",
  "click",
  "double_click",
  "hover",
  "type",
  "select",
  "check",
  "key_press",
  "scroll",
  "screenshot",
  "read_text",
  "assert_text",
  "assert_visible",
  "assert_not_visible",
  "memory_set",
  "long_press",
  "swipe",
  "back",
  "wait",
  "reload",
  "switch_tab",
] as const;
export type ActionType = typeof ACTION_TYPES[number];

/** Action types that locate an element through the cascade. */
export const TARGETED_TYPES: ReadonlySet<string> = new Set([
  "click",
  "double_click",
  "hover",
  "type",
  "select",
  "check",
  "read_text",
  "assert_text",
  "assert_visible",
  "assert_not_visible",
  "long_press",
]);

/** Action types skipped under `on_error: skip_dependent` after a failed click or navigate. */
export const DEPENDENT_TYPES: ReadonlySet<string> = new Set(["type", "select", "check"]);

/** The literal a recorder writes in place of sensitive typed text. */
export const REDACTED = "[redacted]";

const Point = z.object({ x: z.number(), y: z.number() });
const Size = z.object({ width: z.number().positive(), height: z.number().positive() });

/**
 * The ancestor a target lies inside (a trail's `childOf`): the target's lookups search only
 * inside the elements it matches. Every property given must hold for the ancestor.
 */
export interface Within {
  testId?: string;
  ariaLabel?: string;
  id?: string;
  contentDescription?: string;
  /**
   * Row anchors (a trail's text-only `childOf: { text }` chain), innermost first: the element
   * lies in the nearest ancestor showing the first text and is the only match there (web and
   * Android). With it, only `within` applies: the scope the rows lie in (web).
   */
  texts?: string[];
  /** ARIA role (and accessible name) of the ancestor. */
  role?: string;
  name?: string;
  /** The ancestor shows this text (a text node inside it, whitespace-normalised, any case). */
  text?: string;
  /** The ancestor shows a text this regex matches whole. */
  textRegex?: string;
  /** A class the ancestor has. */
  className?: string;
  /** A CSS selector the ancestor matches. */
  cssPath?: string;
  /** The n-th (0-based, document order) of the ancestors matching the rest. */
  index?: number;
  /** The ancestor's own ancestor (a nested `childOf`). */
  within?: Within;
}

const WithinSchema: z.ZodType<Within> = z.lazy(() =>
  z.object({
    testId: z.string().min(1).optional(),
    ariaLabel: z.string().min(1).optional(),
    id: z.string().min(1).optional(),
    contentDescription: z.string().min(1).optional(),
    texts: z.array(z.string().min(1)).min(1).optional(),
    role: z.string().min(1).optional(),
    name: z.string().min(1).optional(),
    text: z.string().min(1).optional(),
    textRegex: z.string().min(1).optional(),
    className: z.string().min(1).optional(),
    cssPath: z.string().min(1).optional(),
    index: z.number().int().nonnegative().optional(),
    within: WithinSchema.optional(),
  }).strict()
) as z.ZodType<Within>;

/** The selector properties of a target: one recorded selector's worth (see {@linkcode Target}). */
const TargetSelector = z.object({
  /** `data-testid` (web) or a bare test tag. */
  testId: z.string().min(1).optional(),
  /** `aria-label` (web). */
  ariaLabel: z.string().min(1).optional(),
  /** ARIA role; with `name`, the role + accessible name level. */
  role: z.string().min(1).optional(),
  name: z.string().min(1).optional(),
  /** DOM id (web) or Android resource-id. */
  id: z.string().min(1).optional(),
  /** Visible text. */
  text: z.string().min(1).optional(),
  /** A computed CSS path (dynamic class names are filtered at replay). */
  cssPath: z.string().min(1).optional(),
  /** A raw CSS selector given by a synthetic flow (tried first, as the author wrote it). */
  css: z.string().min(1).optional(),
  /** An XPath given by a Chrome Recorder flow. */
  xpath: z.string().min(1).optional(),
  /** Android content-desc. */
  contentDescription: z.string().min(1).optional(),
  /** Native class name and its index among matches (Android class + index level). */
  className: z.string().min(1).optional(),
  index: z.number().int().nonnegative().optional(),
  /**
   * Text the element's text contains, as a Chrome Recorder `text/` selector matches: the
   * deepest elements whose whitespace-normalised text holds it (Chrome's replay too).
   */
  textContains: z.string().min(1).optional(),
  /** Visible text as a regular expression, matched against the whole text (a trail's `textRegex`). */
  textRegex: z.string().min(1).optional(),
  /** The ancestor the element lies inside (a trail's `childOf`): lookups are scoped to it. */
  within: WithinSchema.optional(),
});

/**
 * What a recording knows of the element an action targeted: every selector the recorder
 * computed. The cascade tries one selector's properties in a fixed order (see `cascade.ts`),
 * and follows `alternatives` when a trail gave an ordered list.
 */
export const Target = TargetSelector.extend({
  /**
   * A trail's ordered fallback list (`selectors: [...]`), one entry per selector that names an
   * element (an `xy` alone is `point`): the web and Android cascades try them in this order, and
   * an entry's `index` and `within` qualify only that entry's lookups. The fields above are the
   * entries merged (the first one's properties lead), for reports and the identity check of
   * positional matches (CSS path, XPath, coordinates).
   */
  alternatives: z.array(TargetSelector).optional(),
  /** Where the action happened, in the recording's coordinate space. */
  point: Point.optional(),
});
export type Target = z.infer<typeof Target>;

/** Mouse buttons a click may use besides the main (left) one. */
export const MouseButton = z.enum(["middle", "right", "back", "forward"]);
export type MouseButton = z.infer<typeof MouseButton>;

/** Selector modes: strict fails rather than heals. */
export const SelectorMode = z.enum(["strict", "flexible", "adaptive"]);
export type SelectorMode = z.infer<typeof SelectorMode>;

/** One action to play. */
export const PlaybackAction = z.object({
  /** One of {@linkcode ACTION_TYPES}, or anything else (skipped as unsupported). */
  type: z.string().min(1),
  target: Target.optional(),
  /** Text to type (may hold `{{expr}}` templates, evaluated at replay time). */
  text: z.string().optional(),
  /** Value to select. */
  value: z.string().optional(),
  /** Checkbox state to set (default true). */
  checked: z.boolean().optional(),
  /**
   * The mouse button of a `click` or `double_click` other than the main one (a Recorder click's
   * `auxiliary`, `secondary`, `back`, `forward`); web only.
   */
  button: MouseButton.optional(),
  /** Key name for `key_press`. */
  key: z.string().optional(),
  /** Url for `navigate`; for `switch_tab`, the url the tab shows (or opens, with `newTab`). */
  url: z.string().optional(),
  /** `switch_tab`: the tab's id when it was recorded (`tab-2`), tried when no url matches. */
  tab: z.string().optional(),
  /** `switch_tab`: open a new tab (the person's Ctrl+T) rather than go to an open one. */
  newTab: z.boolean().optional(),
  /**
   * How long: a `wait`'s pause (or, with a target, the longest it waits for the element to show),
   * a `long_press`'s hold. Absent: a `wait` for a target waits up to the action timeout, a long
   * press holds {@linkcode LONG_PRESS_MS}.
   */
  durationMs: z.number().nonnegative().optional(),
  /**
   * Direction of a relative `scroll` (trail scrolls: the way the content moves), or of a `swipe`
   * (the way the pointer moves, as Maestro's: `up` drags from low to high).
   */
  direction: z.enum(["up", "down", "left", "right"]).optional(),
  /** Absolute scroll position for `scroll`. */
  scrollTo: Point.optional(),
  /** Expected text of `assert_text` (templates allowed) or a regex source. */
  expected: z.string().optional(),
  expectedPattern: z.string().optional(),
  /** Memory key `read_text` writes. */
  storeAs: z.string().optional(),
  /**
   * How many visible elements the target's selectors must match (a Recorder `waitForElement`'s
   * `count`), compared by `countOperator` (default `>=`): checked, waiting up to the action
   * timeout, before the action's own work.
   */
  count: z.number().int().nonnegative().optional(),
  countOperator: z.enum([">=", "==", "<="]).optional(),
  /** Recorder clock of the action (ms), for `timing: recorded`. */
  timestampMs: z.number().optional(),
  /** Viewport when the action was recorded (coordinate scaling). */
  viewport: Size.optional(),
  selectorMode: SelectorMode.optional(),
  /** The NL step or a short label, shown in the subtitle. */
  label: z.string().optional(),
  stepIndex: z.number().int().nonnegative().optional(),
  /**
   * Cairn added it: the page the source starts on, opened before its first action (a session,
   * a trail's `config.url`, `--url`). Not one of the source's actions, it has no number of its own
   * (see {@linkcode sourceNumbers}).
   */
  added: z.boolean().optional(),
});
export type PlaybackAction = z.infer<typeof PlaybackAction>;

/**
 * The number each action has in its source: its position among the actions that are not
 * `added`, from 0 — the number the replay table shows, `--override N` and `value_overrides`
 * take, and `PlaybackActionCompleted.sourceIndex` records. An added action has none, so opening
 * the page first (or `--url`) never shifts the source's numbers.
 *
 * @param actions a plan's actions
 * @returns per action its number, or undefined for an added one
 * @example
 * ```ts
 * const n = sourceNumbers([{ type: "navigate", added: true }, { type: "click" }, { type: "type" }]);
 * if (n[0] !== undefined || n[1] !== 0 || n[2] !== 1) throw new Error();
 * ```
 */
export function sourceNumbers(actions: readonly PlaybackAction[]): (number | undefined)[] {
  let next = 0;
  return actions.map((a) => a.added ? undefined : next++);
}

/** Where a plan came from (mirrors `PlaybackStarted.source`). */
export const PlanSource = z.object({
  kind: z.enum(["trail", "recording", "flow", "actions"]),
  sessionId: z.string().optional(),
  recordingId: z.string().optional(),
  file: z.string().optional(),
});
export type PlanSource = z.infer<typeof PlanSource>;

/** A playable plan: the actions plus what is known of the recording environment. */
export const PlaybackPlan = z.object({
  source: PlanSource,
  platform: z.enum(["web", "android", "ios"]),
  actions: z.array(PlaybackAction),
  /** Viewport of the recording (viewport mismatch warning, coordinate scaling). */
  viewport: Size.optional(),
  /** Device pixel ratio of the recording. */
  devicePixelRatio: z.number().positive().optional(),
  /** `css` (web clientX/Y, the default) or `device` pixels (multiplied by the pixel ratio). */
  coordinateSpace: z.enum(["css", "device"]).optional(),
  /** Memory defaults (trail `config.memory`). */
  memory: z.record(z.string(), z.string()).optional(),
  /** Memory keys the trail names without a value (`config.memory: { pin: null }`, a secret). */
  unsetMemory: z.array(z.string()).optional(),
  /** Selector mode of the whole plan; an action's own mode wins. */
  selectorMode: SelectorMode.optional(),
});
export type PlaybackPlan = z.infer<typeof PlaybackPlan>;

/**
 * Whether an action type is one the engine executes.
 *
 * @param type the action's type
 * @returns true for the types of {@linkcode ACTION_TYPES}
 * @example
 * ```ts
 * if (!isSupported("click") || isSupported("drag")) throw new Error();
 * ```
 */
export function isSupported(type: string): type is ActionType {
  return (ACTION_TYPES as readonly string[]).includes(type);
}

/**
 * A short description of an action for the subtitle and the CLI table, in the notation of the
 * platform it plays on: web `click [data-testid=submit]`, `navigate http://…`, `type #email`,
 * `click "Remove" >> nth=1`, `click row("Banana") >> "Add"`, `click #list >> "Add"` (a trail's
 * first selector, as the cascade tries it, inside its `childOf`);
 * Android `type ~input-email`, `click id=com.app:id/ok`, `click text="LOGIN"`,
 * `click ~Task 5 >> id=…:id/star_button` (a trail's first selector, as the cascade tries it).
 *
 * @param action the action
 * @param platform where it plays (default web)
 * @returns one line
 * @example
 * ```ts
 * const a = { type: "click", target: { contentDescription: "Forms", text: "Forms" } };
 * if (describeAction(a, "android") !== "click ~Forms") throw new Error();
 * ```
 */
export function describeAction(
  action: PlaybackAction,
  platform: "web" | "android" | "ios" = "web",
): string {
  const t = action.target;
  let what = "";
  if (action.type === "navigate") what = action.url ?? "";
  else if (action.type === "switch_tab") {
    what = action.newTab ? `new tab${action.url ? ` ${action.url}` : ""}` : action.url ?? "";
  } else if (action.type === "key_press") {
    // a key pressed into its element names it: `key_press Enter into #note`
    const into = t &&
      (platform === "web"
        ? describeWebTarget(t.alternatives?.[0] ?? t)
        : describeNativeTarget(t.alternatives?.[0] ?? t));
    what = `${action.key ?? ""}${into ? ` into ${into}` : ""}`;
  } else if (action.type === "scroll" && action.scrollTo) {
    what = `${action.scrollTo.x},${action.scrollTo.y}`;
  } else if (t && platform !== "web") {
    what = describeNativeTarget(t.alternatives?.[0] ?? t) ||
      (t.point ? `(${t.point.x}, ${t.point.y})` : "");
  } else if (t) {
    what = describeWebTarget(t.alternatives?.[0] ?? t) ||
      (t.point ? `(${t.point.x}, ${t.point.y})` : "");
  }
  let type = action.button ? `${action.button} ${action.type}` : action.type;
  if (action.type === "swipe" && action.direction) type = `swipe ${action.direction}`;
  if (action.type === "wait" && action.durationMs !== undefined) {
    type = t ? `wait ≤${action.durationMs} ms for` : `wait ${action.durationMs} ms`;
  }
  return what ? `${type} ${what}` : type;
}

/** A web selector as CSS-minded users read it (`[data-testid=go]`, `#email >> nth=1`); "" for none. */
function describeWebTarget(t: z.infer<typeof TargetSelector>): string {
  const own = t.css ?? (t.testId !== undefined ? `[data-testid=${t.testId}]` : undefined) ??
    (t.ariaLabel !== undefined ? `[aria-label="${t.ariaLabel}"]` : undefined) ??
    (t.id !== undefined ? `#${t.id}` : undefined) ??
    (t.role !== undefined && t.name !== undefined ? `${t.role} "${t.name}"` : undefined) ??
    (t.text !== undefined ? `"${t.text}"` : undefined) ??
    (t.textContains !== undefined ? `text/${t.textContains}` : undefined) ??
    (t.textRegex !== undefined ? `text=/${t.textRegex}/` : undefined) ??
    (t.contentDescription !== undefined ? `~${t.contentDescription}` : undefined) ??
    (t.className !== undefined ? `.${t.className}` : undefined) ??
    t.cssPath ?? t.xpath ?? (t.role !== undefined ? `role=${t.role}` : undefined) ?? "";
  const indexed = own && t.index !== undefined && !t.css && !t.cssPath && !t.xpath
    ? `${own} >> nth=${t.index}`
    : own;
  if (!indexed || !t.within) return indexed;
  // the scope the lookup stays in, as the cascade names it
  const w = t.within;
  const rows = w.texts?.map((text) => `row(${JSON.stringify(text)})`).join(" ");
  const outer = w.texts ? w.within : w;
  const scope = [outer ? scopeLookup(outer).label : undefined, rows].filter(Boolean).join(" >> ");
  return `${scope} >> ${indexed}`;
}

/**
 * A native (Android) selector as Appium users write it: `id=…`, `~content description`,
 * `text="…"`, `text=/regex/`, `Class[index]`, scoped as `~Parent >> …` (row anchors as
 * `row("Task 5") >> …`); "" when it names none.
 */
function describeNativeTarget(t: z.infer<typeof TargetSelector>): string {
  const id = t.id ?? t.testId;
  const desc = t.contentDescription ?? t.ariaLabel;
  const nth = t.index !== undefined ? `[${t.index}]` : "";
  const own = id !== undefined
    ? `id=${id}${nth}`
    : desc !== undefined
    ? `~${desc}${nth}`
    : t.text !== undefined
    ? `text=${JSON.stringify(t.text)}${nth}`
    : t.textRegex !== undefined
    ? `text=/${t.textRegex}/${nth}`
    : t.className !== undefined
    ? `${t.className}${nth}`
    : "";
  const w = t.within;
  const parentId = w?.id ?? w?.testId;
  const parentDesc = w?.contentDescription ?? w?.ariaLabel;
  const scope = parentId !== undefined
    ? `id=${parentId}`
    : parentDesc !== undefined
    ? `~${parentDesc}`
    : w?.texts !== undefined
    ? w.texts.map((text) => `row(${JSON.stringify(text)})`).join(" ")
    : undefined;
  return own && scope ? `${scope} >> ${own}` : own;
}

/**
 * Every string a target's selectors hold (its own, its ordered fallbacks', its `within`
 * ancestors' at any depth): where a selector's `{{…}}` templates live.
 *
 * @param target a target
 * @returns the strings, in no particular order
 * @example
 * ```ts
 * const s = targetStrings({ text: "{{a}}", within: { texts: ["{{b}}"] }, alternatives: [{ id: "c" }] });
 * if (!s.includes("{{a}}") || !s.includes("{{b}}") || !s.includes("c")) throw new Error();
 * ```
 */
export function targetStrings(target: Target): string[] {
  const out: string[] = [];
  mapTargetStrings(target, (s) => {
    out.push(s);
    return s;
  });
  return out;
}

/**
 * A copy of a target with every selector string passed through `fn` (its own, its fallbacks',
 * its `within` ancestors' at any depth); numbers and points stay as they are.
 *
 * @param target a target
 * @param fn what each string becomes (a template filled from memory)
 * @returns the new target
 * @example
 * ```ts
 * const t = mapTargetStrings({ text: "{{x}}", within: { id: "{{x}}" } }, (s) => s.replace("{{x}}", "go"));
 * if (t.text !== "go" || t.within?.id !== "go") throw new Error();
 * ```
 */
export function mapTargetStrings(target: Target, fn: (s: string) => string): Target {
  const map = (v: unknown): unknown => {
    if (typeof v === "string") return fn(v);
    if (Array.isArray(v)) return v.map(map);
    if (v && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = k === "point" ? x : map(x);
      return out;
    }
    return v;
  };
  return map(target) as Target;
}

/** The playback action type of each capture / trail action kind (same name when absent). */
export const PLAYBACK_TYPE_OF_KIND: Readonly<Record<string, string>> = {
  tap: "click",
  doubleTap: "double_click",
  hover: "hover",
  inputText: "type",
  keyPress: "key_press",
  readText: "read_text",
  assertText: "assert_text",
  assertVisible: "assert_visible",
  navigate: "navigate",
  select: "select",
  check: "check",
  scroll: "scroll",
  memorySet: "memory_set",
  assertNotVisible: "assert_not_visible",
  longPress: "long_press",
  swipe: "swipe",
  back: "back",
  wait: "wait",
  reload: "reload",
  switchTab: "switch_tab",
};

/** How long a long press holds when the source gives no duration (ms). */
export const LONG_PRESS_MS = 1_000;

/**
 * The memory keys a plan can use: its memory defaults and every variable one of its templates
 * reads (in values and in selectors), and the trail's keys without a value (a `pin: null` secret; a template may read a key the
 * trail never declared). `replay --memory` and `validate --memory` accept exactly these.
 *
 * @param plan the plan
 * @returns the keys, defaults first
 * @example
 * ```ts
 * const keys = planMemoryKeys({ memory: { user: "ada" }, actions: [{ type: "type", text: "{{pw}}" }] });
 * if (keys.join() !== "user,pw") throw new Error();
 * ```
 */
export function planMemoryKeys(
  plan: Pick<PlaybackPlan, "memory" | "actions" | "unsetMemory">,
): string[] {
  const known = new Set([...Object.keys(plan.memory ?? {}), ...(plan.unsetMemory ?? [])]);
  for (const a of plan.actions) {
    const strings = [a.url, a.text, a.value, a.expected, a.expectedPattern];
    if (a.target) strings.push(...targetStrings(a.target));
    for (const t of strings) {
      if (!t?.includes("{{")) continue;
      try {
        for (const key of templateVariables(t)) known.add(key);
      } catch {
        // a malformed template fails when its action runs, naming the column
      }
    }
  }
  return [...known];
}
