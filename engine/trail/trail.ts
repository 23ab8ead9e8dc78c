/**
 * The trail format (docs/architecture.md "Trail format"): a YAML recording of NL steps, each with the
 * actions that replay it. This module holds the zod schema of the normalised model, the YAML
 * reader (which accepts the compact forms and `${name}` references) and the stable
 * writer (the same trail always serialises to the same bytes).
 *
 * ## The normalised action model (what a playback engine consumes)
 *
 * Every action of `trail[i].recording` is a {@linkcode TrailAction}:
 *
 * ```
 * { kind, selector?, selectors?, text?, storeAs?, equals?, matches?, url?, key?,
 *   direction?, value?, checked?, repeat? }
 * ```
 *
 * - `kind` is one of {@linkcode TRAIL_ACTION_KINDS}; the web spellings `click`, `doubleClick`
 *   and `type` are read as `tap`, `doubleTap` and `inputText` (and written back that way when
 *   `config.platform` is `web`). `doubleTap` is two clicks in a row, one double click. `hover`
 *   moves the mouse over the element (a menu that opens on hover); on the web only, a device
 *   has no pointer to hover with.
 * - `selector` is one {@linkcode Selector}: every property given must hold for the same node.
 *   `selectors` is an ordered fallback list (adaptive mode): try each in order, first unique
 *   match wins. An action may carry either, or neither (`inputText` without a selector types
 *   into the focused field; `back`, `navigate`, `keyPress` need none).
 * - `text` (inputText) and `equals`/`matches` (assertText), `value` (select, memorySet) and
 *   `url` (navigate) may hold templates: `{{name}}`, `{{a + 2}}`, `"Hi {{first}}"`; evaluate
 *   them with `evaluateTemplate` of `engine/trail/template.ts` against the run's memory. `matches`
 *   is a regular expression the whole text must match.
 * - `key` (keyPress) is a key name (`Enter`, `Tab`) or a chord: modifiers held while the last
 *   key is pressed, joined by `+` as Playwright's `press` takes them (`Shift+Tab`).
 * - `storeAs` (readText, memorySet) names the memory key the value read or set is stored in.
 * - `direction` (scroll, swipe) is up | down | left | right; `repeat` (scroll, swipe, tap)
 *   how many times in a row (collapsed repeats), default 1. A scroll's direction is the way the
 *   content moves; a swipe's the way the finger (pointer) moves, as Maestro's: `swipe: up` drags
 *   from low to high, over the element of its selector or else the middle of the screen.
 * - `value` (wait) is a duration: milliseconds (`1500`) or with a unit (`1500ms`, `1.5s`, `1m`).
 *   `wait: "2s"` pauses that long; a wait with a selector waits until the element shows (at most
 *   `value`, else the action timeout); `- wait` alone waits for the page to settle.
 * - `longPress` holds the press 1 s at the element's centre; `back` goes back one page (web:
 *   the tab's history, waiting for the page; Android: the Back key); `assertNotVisible` passes
 *   once no visible element matches its selector (retried up to the action timeout).
 *
 * A {@linkcode Selector}'s `index` picks the n-th (0-based, document order) of the nodes that
 * match its other properties; `childOf` requires a matching ancestor; `xy` is a point in the
 * capture's pixel space, scaled by the ratio of the current `viewport` to the recorded one.
 * A `childOf` holding only `text` is a row anchor (see {@linkcode textAnchors}): the node lies
 * in the nearest ancestor that shows that text, and is the only match there.
 *
 * A step with `recordable: false` has no recording: the agent handles it on every run. A step
 * may override the trail's `selectorMode`. `config.memory` seeds the input slots; a key whose
 * value is `null` is a slot without a default (a secret): the run must supply it.
 *
 * @module
 */
import YAML, { isPair, isScalar, Scalar } from "yaml";
import { z } from "zod";
import { HEURISTICS_VERSIONS } from "./heuristics.ts";
import { parseDuration } from "./duration.ts";
import { templateSyntaxError, templateVariables } from "./template.ts";
import { splitKeyChord } from "./key_chord.ts";
import { _keyDefinitions } from "puppeteer-core/internal/common/USKeyboardLayout.js";

/** The selector modes: strict, flexible, adaptive. */
export const SelectorMode = z.enum(["strict", "flexible", "adaptive"]);
export type SelectorMode = z.infer<typeof SelectorMode>;

/** The selector properties, in the order they are written. */
export const SELECTOR_KEYS = [
  "id",
  "testId",
  "contentDescription",
  "ariaLabel",
  "role",
  "name",
  "text",
  "textRegex",
  "className",
  "index",
  "childOf",
  "cssPath",
  "xy",
  "viewport",
] as const;

/** A viewport or screen size. */
export const Viewport = z.object({ width: z.number(), height: z.number() }).strict();
export type Viewport = z.infer<typeof Viewport>;

/** A selector: every property given must hold for the same node. */
export interface Selector {
  id?: string;
  testId?: string;
  contentDescription?: string;
  ariaLabel?: string;
  role?: string;
  name?: string;
  text?: string;
  textRegex?: string;
  className?: string;
  index?: number;
  childOf?: Selector;
  cssPath?: string;
  xy?: [number, number];
  viewport?: Viewport;
}

/** Zod schema of {@linkcode Selector}; `parent` is read as `childOf`. */
export const Selector: z.ZodType<Selector> = z.lazy(() =>
  z.preprocess(
    (v) => {
      if (v && typeof v === "object" && !Array.isArray(v) && "parent" in v) {
        const { parent, ...rest } = v as Record<string, unknown>;
        return { ...rest, childOf: parent };
      }
      return v;
    },
    z.object({
      id: z.string().optional(),
      testId: z.string().optional(),
      contentDescription: z.string().optional(),
      ariaLabel: z.string().optional(),
      role: z.string().optional(),
      name: z.string().optional(),
      text: z.string().optional(),
      textRegex: z.string().optional(),
      className: z.string().optional(),
      index: z.number().int().nonnegative().optional(),
      childOf: Selector.optional(),
      cssPath: z.string().optional(),
      xy: z.tuple([z.number(), z.number()]).optional(),
      viewport: Viewport.optional(),
    }).strict().refine((s) => Object.keys(s).some((k) => k !== "viewport" && k !== "index"), {
      message: "a selector needs at least one property besides index and viewport",
    }),
  )
) as z.ZodType<Selector>;

/** The action kinds of a trail (normalised spelling). */
export const TRAIL_ACTION_KINDS = [
  "tap",
  "doubleTap",
  "longPress",
  "hover",
  "inputText",
  "swipe",
  "scroll",
  "navigate",
  "keyPress",
  "select",
  "check",
  "readText",
  "assertVisible",
  "assertNotVisible",
  "assertText",
  "memorySet",
  "back",
  "wait",
  "reload",
  "switchTab",
] as const;
/** Zod enum of {@linkcode TRAIL_ACTION_KINDS}. */
export const TrailActionKind = z.enum(TRAIL_ACTION_KINDS);
export type TrailActionKind = z.infer<typeof TrailActionKind>;

/** Web spellings read as the normalised kind (and written back on the web). */
const KIND_ALIASES: Record<string, TrailActionKind> = {
  click: "tap",
  doubleClick: "doubleTap",
  type: "inputText",
};
const WEB_SPELLING: Partial<Record<TrailActionKind, string>> = {
  tap: "click",
  doubleTap: "doubleClick",
  inputText: "type",
};

/** One normalised action of a recording (see the module doc). */
export const TrailAction = z.object({
  kind: TrailActionKind,
  selector: Selector.optional(),
  selectors: z.array(Selector).min(1).optional(),
  text: z.string().optional(),
  storeAs: z.string().regex(/^[A-Za-z_][A-Za-z0-9_.]*$/, "expected an identifier").optional(),
  equals: z.string().optional(),
  matches: z.string().optional(),
  url: z.string().optional(),
  key: z.string().optional(),
  direction: z.enum(["up", "down", "left", "right"]).optional(),
  value: z.string().optional(),
  checked: z.boolean().optional(),
  repeat: z.number().int().positive().optional(),
  /** `switchTab`: open a new tab (the person's Ctrl+T) instead of going to an open one. */
  newTab: z.boolean().optional(),
}).strict();
export type TrailAction = z.infer<typeof TrailAction>;

/** One NL step with its recording. */
export const TrailStep = z.object({
  step: z.string(),
  selectorMode: SelectorMode.optional(),
  recordable: z.boolean().optional(),
  recording: z.array(TrailAction).optional(),
}).strict();
export type TrailStep = z.infer<typeof TrailStep>;

/** The trail's `config` section. */
export const TrailConfig = z.object({
  id: z.string().optional(),
  title: z.string().optional(),
  platform: z.enum(["web", "android", "ios"]).optional(),
  selectorMode: SelectorMode.optional(),
  /** The optimizer heuristics version that projected this trail (`v1`); one this build knows. */
  heuristics: z.string().refine((v) => HEURISTICS_VERSIONS.includes(v), {
    error: (issue) =>
      `unknown heuristics version ${JSON.stringify(issue.input)} (known: ${
        HEURISTICS_VERSIONS.join(", ")
      })`,
  }).optional(),
  url: z.string().optional(),
  viewport: Viewport.optional(),
  /** Input slots and their defaults; `null`: no default, the run must supply it. */
  memory: z.record(z.string(), z.string().nullable()).optional(),
}).strict();
export type TrailConfig = z.infer<typeof TrailConfig>;

/** A whole trail. */
export const Trail = z.object({
  config: TrailConfig,
  trail: z.array(TrailStep),
}).strict();
export type Trail = z.infer<typeof Trail>;

const ACTION_FIELD_ORDER = [
  "selector",
  "selectors",
  "text",
  "url",
  "key",
  "direction",
  "value",
  "checked",
  "storeAs",
  "equals",
  "matches",
  "repeat",
  "newTab",
] as const;
const CONFIG_ORDER = [
  "id",
  "title",
  "platform",
  "selectorMode",
  "heuristics",
  "url",
  "viewport",
  "memory",
] as const;
/** Kinds whose scalar shorthand is a text selector (`tap: "Next"`, `assertVisible: "7"`). */
const SCALAR_SELECTOR_KINDS = new Set<TrailActionKind>([
  "tap",
  "doubleTap",
  "longPress",
  "hover",
  "check",
  "readText",
  "assertVisible",
  "assertNotVisible",
]);
const SCALAR_FIELD: Partial<Record<TrailActionKind, keyof TrailAction>> = {
  inputText: "text",
  navigate: "url",
  switchTab: "url",
  keyPress: "key",
  scroll: "direction",
  swipe: "direction",
  wait: "value",
};

/**
 * Parses trail YAML into the normalised model. Compact forms are expanded (`tap: { id: x }`,
 * `tap: "Next"`, `inputText: "{{email}}"`, `assertVisible: "7"`, `- back`) and every
 * `${name}` is read as `{{name}}`.
 *
 * @param text the YAML
 * @param source a file name for error messages
 * @returns the trail
 * @throws {SyntaxError} on malformed YAML (with line and column) or a schema error (with the path)
 * @example
 * ```ts
 * const t = parseTrail("config: {}\ntrail:\n  - step: Go\n    recording:\n      - tap: { id: go }\n");
 * if (t.trail[0]?.recording?.[0]?.selector?.id !== "go") throw new Error();
 * ```
 */
export function parseTrail(
  text: string,
  source = "trail",
  options: ParseTrailOptions = {},
): Trail {
  const tooBig = trailSizeProblem(text);
  if (tooBig) throw new SyntaxError(`${source}: ${tooBig}`);
  const lineCounter = new YAML.LineCounter();
  const doc = YAML.parseDocument(text, { uniqueKeys: true, lineCounter });
  const err = doc.errors[0];
  const overflow = doc.errors.find((e) => /Maximum call stack size exceeded/.test(e.message));
  if (overflow) {
    // the YAML library recurses per level: its stack ran out long before the end
    const pos = overflow.linePos?.[0];
    throw new SyntaxError(
      `${source}${
        pos ? `:${pos.line}:${pos.col}` : ""
      }: nesting deeper than ${MAX_TRAIL_DEPTH} levels`,
    );
  }
  if (err?.code === "MULTIPLE_DOCS") {
    // the library's message would say "please use YAML.parseAllDocuments()"
    const pos = err.linePos?.[0];
    const at = pos ? `:${pos.line}:${pos.col}` : "";
    const maestro = YAML.isMap(doc.contents) && doc.contents.has("appId");
    throw new SyntaxError(
      `${source}${at}: ${
        maestro
          ? "a Maestro flow (appId, ---, commands), not a trail: cairn replay plays it"
          : "a second YAML document (after ---): a trail is one document"
      }`,
    );
  }
  if (err) {
    const pos = err.linePos?.[0];
    const at = pos ? `:${pos.line}:${pos.col}` : "";
    // the library's first line ends "at line L, column C:" (its excerpt follows); `at` says it
    const what = err.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
    throw new SyntaxError(`${source}${at}: ${what}`);
  }
  const deep = deepestNode(doc.contents, MAX_TRAIL_DEPTH);
  if (deep !== undefined) {
    const pos = lineCounter.linePos(deep);
    throw new SyntaxError(
      `${source}:${pos.line}:${pos.col}: nesting deeper than ${MAX_TRAIL_DEPTH} levels`,
    );
  }
  let js: unknown;
  try {
    js = doc.toJS();
  } catch (e) {
    // "Excessive alias count indicates a resource exhaustion attack"
    if (!(e instanceof ReferenceError) || !/alias/i.test(e.message)) throw e;
    throw new SyntaxError(
      `${source}: YAML aliases expand too far (an alias used more than 100 times over): refused`,
    );
  }
  const raw = dollarToBraces(js) as unknown;
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
    throw new SyntaxError(`${source}: expected a mapping with config and trail`);
  }
  const top = raw as Record<string, unknown>;
  if (!Array.isArray(top.trail)) {
    throw new SyntaxError(`${source}: trail: expected a list of steps`);
  }
  const steps = top.trail.map((s, i) => normaliseStep(s, `${source}: trail.${i}`));
  const parsed = Trail.safeParse({ config: top.config ?? {}, trail: steps });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SyntaxError(`${source}: ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  const web = (parsed.data.config.platform ?? "web") === "web";
  parsed.data.trail.forEach((step, i) =>
    step.recording?.forEach((a, j) => {
      const raw = (top.trail as Record<string, unknown>[])[i]?.recording as unknown[];
      const spelled = spelledKind(raw[j]);
      const problem = unrunnable(a, web);
      if (problem) {
        const field = problem.field ? `.${problem.field}` : "";
        throw new SyntaxError(
          `${source}: trail.${i}.recording.${j}.${spelled}${field}: ${problem.message}`,
        );
      }
    })
  );
  if (options.memoryKeys) {
    const unset = unsetVariable(parsed.data, options.memoryKeys);
    if (unset) {
      const entry = (top.trail as Record<string, unknown>[])[unset.step]?.recording as unknown[];
      const spelled = spelledKind(entry[unset.action]);
      throw new SyntaxError(
        `${source}: trail.${unset.step}.recording.${unset.action}.${spelled}.${unset.field}: ` +
          `reads {{${unset.key}}}, which nothing sets: no earlier readText or memorySet stores ` +
          `it, config.memory does not declare it and ${
            options.memorySource ?? "--memory"
          } does not give it`,
      );
    }
  }
  return parsed.data;
}

/**
 * The largest trail read, in characters: the YAML library takes seconds per MiB (a 10 MB trail
 * of 165,575 steps took a minute and 1.7 GB), and no recorded trail comes near it.
 */
export const MAX_TRAIL_CHARS = 1024 * 1024;
/** The deepest nesting of collections a trail may have (a real one has about 10). */
export const MAX_TRAIL_DEPTH = 64;

/**
 * Why a YAML text is too large to read as a trail or flow, or undefined.
 *
 * @param text the file's text
 * @returns the message (without the file name), or undefined
 */
export function trailSizeProblem(text: string): string | undefined {
  if (text.length <= MAX_TRAIL_CHARS) return undefined;
  return `${text.length} characters: a trail is at most 1,048,576 (1 MiB); split it`;
}

/**
 * The source offset of the first collection nested deeper than `max`, walked without
 * recursion (a deep document must not exhaust the stack here either), or undefined.
 */
function deepestNode(root: unknown, max: number): number | undefined {
  const stack: [unknown, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (YAML.isPair(node)) {
      stack.push([node.key, depth], [node.value, depth]);
      continue;
    }
    if (!YAML.isCollection(node)) continue;
    if (depth >= max) return node.range?.[0] ?? 0;
    for (const item of node.items) stack.push([item, depth + 1]);
  }
  return undefined;
}

/** Options of {@linkcode parseTrail}. */
export interface ParseTrailOptions {
  /**
   * The memory keys the run supplies (`--memory`): given, a template reading a key that no
   * earlier action stores, `config.memory` does not declare and these do not hold is refused.
   */
  memoryKeys?: readonly string[];
  /** How the refusal names where the run's memory comes from (default `--memory`). */
  memorySource?: string;
}

/** How an action entry spells its kind (`click`, `tap`, `back`). */
function spelledKind(entry: unknown): string {
  return typeof entry === "string" ? entry : Object.keys(entry as object)[0]!;
}

/**
 * The first template variable of a trail that nothing can set when its action runs: not
 * declared in `config.memory` (a `null` secret counts as declared), not among `supplied` (the
 * run's `--memory` keys), not stored by an earlier `readText`/`memorySet` (`storeAs`).
 *
 * @param trail the trail
 * @param supplied the memory keys the run gives
 * @returns where it is read (step, action, field) and the key, or undefined
 * @example
 * ```ts
 * const t = parseTrail('config: {}\ntrail:\n  - step: s\n    recording:\n      - type: "{{who}}"\n');
 * if (unsetVariable(t, [])?.key !== "who" || unsetVariable(t, ["who"]) !== undefined) throw new Error();
 * ```
 */
export function unsetVariable(
  trail: Trail,
  supplied: readonly string[],
): { step: number; action: number; field: string; key: string } | undefined {
  const known = new Set([...Object.keys(trail.config.memory ?? {}), ...supplied]);
  for (const [i, step] of trail.trail.entries()) {
    for (const [j, a] of (step.recording ?? []).entries()) {
      for (const f of TEMPLATE_FIELDS) {
        const v = a[f];
        if (v === undefined || !v.includes("{{")) continue;
        let keys: string[];
        try {
          keys = templateVariables(v);
        } catch {
          continue; // a syntax error is refused by the reader itself
        }
        const key = keys.find((k) => !known.has(k));
        if (key !== undefined) return { step: i, action: j, field: f, key };
      }
      if (a.storeAs !== undefined) known.add(a.storeAs);
    }
  }
  return undefined;
}

/** Kinds that act on (or read) an element, so they need a selector. */
const NEEDS_SELECTOR = new Set<TrailActionKind>([
  "tap",
  "doubleTap",
  "longPress",
  "hover",
  "select",
  "check",
  "readText",
  "assertVisible",
  "assertNotVisible",
  "assertText",
]);

/** The fields of an action that may hold `{{…}}` templates. */
const TEMPLATE_FIELDS = ["text", "url", "value", "equals", "matches"] as const;

/** The key names the web player (puppeteer's US layout) presses, and "Back". */
const WEB_KEYS = new Set([...Object.keys(_keyDefinitions), "Back"]);
/** Common spellings of a key name the web player knows under another. */
const KEY_SPELLINGS: Record<string, string> = {
  ctrl: "Control",
  cmd: "Meta",
  command: "Meta",
  win: "Meta",
  super: "Meta",
  option: "Alt",
  opt: "Alt",
  esc: "Escape",
  return: "Enter",
  del: "Delete",
  ins: "Insert",
  space: "Space",
  up: "ArrowUp",
  down: "ArrowDown",
  left: "ArrowLeft",
  right: "ArrowRight",
  pgup: "PageUp",
  pgdn: "PageDown",
  pageup: "PageUp",
  pagedown: "PageDown",
};

/** Why a web `keyPress` key could never be pressed, or undefined. */
function keyProblem(key: string): string | undefined {
  for (const k of splitKeyChord(key)) {
    if (WEB_KEYS.has(k)) continue;
    const lower = k.toLowerCase();
    const known = KEY_SPELLINGS[lower] ??
      [...WEB_KEYS].find((w) => w.toLowerCase() === lower);
    const hint = known
      ? `: did you mean "${known}"?`
      : " (key names as Playwright's press takes them: Enter, Tab, Control, ArrowLeft, a)";
    return `unknown key ${JSON.stringify(k)}${hint}`;
  }
  return undefined;
}

/** The selector properties that hold text (an empty one matches nothing). */
const SELECTOR_TEXT_KEYS = SELECTOR_KEYS.filter(
  (k): k is Exclude<(typeof SELECTOR_KEYS)[number], "index" | "childOf" | "xy" | "viewport"> =>
    k !== "index" && k !== "childOf" && k !== "xy" && k !== "viewport",
);

/** Why a selector could never match, with the path of the field below it, or undefined. */
function selectorProblem(
  s: Selector,
): { field: string; message: string } | undefined {
  for (let sel: Selector | undefined = s, at = ""; sel; sel = sel.childOf, at += "childOf.") {
    for (const k of SELECTOR_TEXT_KEYS) {
      if (sel[k] === "") return { field: `${at}${k}`, message: "empty: it would match nothing" };
    }
    if (sel.textRegex !== undefined) {
      const why = regexProblem(sel.textRegex);
      if (why) return { field: `${at}textRegex`, message: why };
    }
  }
  return undefined;
}

/** Why a pattern is not a regular expression (its templates read as text), or undefined. */
function regexProblem(pattern: string): string | undefined {
  try {
    // templates are filled in at replay time: check the pattern around them
    new RegExp(pattern.replace(/\{\{[^}]*\}\}/g, "x"));
    return undefined;
  } catch (err) {
    const why = err instanceof Error
      ? err.message.replace(/^Invalid regular expression: /, "")
      : "";
    return `invalid regular expression: ${why}`;
  }
}

/** Why an action that fits the schema could never run, or undefined. */
function unrunnable(a: TrailAction, web: boolean): { field?: string; message: string } | undefined {
  if (NEEDS_SELECTOR.has(a.kind) && !a.selector && !a.selectors) {
    return { message: "needs a selector (or selectors)" };
  }
  const selectors: [string, Selector][] = [
    ...(a.selector ? [["selector", a.selector] as [string, Selector]] : []),
    ...(a.selectors ?? []).map((s, i) => [`selectors.${i}`, s] as [string, Selector]),
  ];
  for (const [at, s] of selectors) {
    const problem = selectorProblem(s);
    if (problem) return { field: `${at}.${problem.field}`, message: problem.message };
  }
  for (const f of TEMPLATE_FIELDS) {
    const v = a[f];
    const why = v === undefined ? undefined : templateSyntaxError(v);
    if (why) {
      const literal = why.startsWith('Unclosed "{{"')
        ? ` (a literal "{{" is written {{'{{'}})`
        : "";
      return { field: f, message: `${why}${literal}` };
    }
  }
  if (a.kind === "keyPress") {
    if (a.key === undefined || a.key === "") {
      return { field: "key", message: "needs a key (Enter, Tab, Shift+Tab)" };
    }
    const why = web ? keyProblem(a.key) : undefined;
    if (why) return { field: "key", message: why };
  }
  if (a.kind === "assertText") {
    if (a.equals === undefined && a.matches === undefined) {
      return { message: "needs equals or matches" };
    }
    if (a.equals !== undefined && a.matches !== undefined) {
      return { message: "has both equals and matches: give one" };
    }
  }
  if (a.matches !== undefined) {
    const why = regexProblem(a.matches);
    if (why) return { field: "matches", message: why };
  }
  if (a.kind === "memorySet") {
    if (a.storeAs === undefined) return { field: "storeAs", message: "required" };
    if (a.value === undefined) return { field: "value", message: "required" };
  }
  if (a.kind === "navigate" && a.url === undefined) return { field: "url", message: "required" };
  if (a.kind === "switchTab" && a.url === undefined && a.newTab !== true) {
    return { field: "url", message: "required (the url the tab shows), or newTab: true" };
  }
  if (a.kind === "wait" && a.value !== undefined && parseDuration(a.value) === undefined) {
    return {
      field: "value",
      message: `expected a duration up to 10 minutes (1500, 1500ms, 1.5s, 1m), got ${
        JSON.stringify(a.value)
      }`,
    };
  }
  return undefined;
}

function normaliseStep(step: unknown, at: string): unknown {
  if (!step || typeof step !== "object" || Array.isArray(step)) return step;
  const s = step as Record<string, unknown>;
  if (!Array.isArray(s.recording)) return s;
  return {
    ...s,
    recording: s.recording.map((a, j) => normaliseAction(a, `${at}.recording.${j}`)),
  };
}

function normaliseAction(entry: unknown, at: string): unknown {
  if (typeof entry === "string") entry = { [entry]: null };
  if (!entry || typeof entry !== "object" || Array.isArray(entry)) {
    throw new SyntaxError(`${at}: expected an action such as { tap: { id: x } }`);
  }
  const keys = Object.keys(entry);
  if (keys.length !== 1) {
    throw new SyntaxError(`${at}: an action has exactly one key, got ${keys.join(", ")}`);
  }
  const spelled = keys[0]!;
  const kind = KIND_ALIASES[spelled] ?? spelled;
  if (!(TRAIL_ACTION_KINDS as readonly string[]).includes(kind)) {
    throw new SyntaxError(`${at}: unknown action ${JSON.stringify(spelled)}`);
  }
  const k = kind as TrailActionKind;
  const body = (entry as Record<string, unknown>)[spelled];
  if (body === null || body === undefined) return { kind: k };
  if (typeof body === "string" || typeof body === "number" || typeof body === "boolean") {
    const v = String(body);
    if (SCALAR_SELECTOR_KINDS.has(k)) return { kind: k, selector: { text: v } };
    const field = SCALAR_FIELD[k];
    if (field) return { kind: k, [field]: v };
    throw new SyntaxError(`${at}: ${spelled} needs a mapping, got ${JSON.stringify(v)}`);
  }
  if (typeof body !== "object" || Array.isArray(body)) {
    throw new SyntaxError(`${at}: ${spelled} needs a mapping`);
  }
  const b = body as Record<string, unknown>;
  const bodyKeys = Object.keys(b);
  // A bare selector (`tap: { id: x }`): only selector keys; `text` is the typed text of inputText.
  const selectorOnly = bodyKeys.length > 0 &&
    bodyKeys.every((x) => (SELECTOR_KEYS as readonly string[]).includes(x) || x === "parent") &&
    !(k === "inputText" && bodyKeys.includes("text"));
  if (selectorOnly) return { kind: k, selector: b };
  const isSelectorKey = (x: string) =>
    (SELECTOR_KEYS as readonly string[]).includes(x) || x === "parent";
  const unknown = bodyKeys.find((x) => !ACTION_FIELDS.includes(x) && !isSelectorKey(x));
  if (unknown !== undefined) {
    throw new SyntaxError(
      `${at}.${spelled}.${unknown}: not a field of an action (an action takes ${
        ACTION_FIELDS.join(", ")
      }; or, alone, the keys of a selector: ${SELECTOR_KEYS.join(", ")})`,
    );
  }
  // `text` beside an action's fields is a selector's, but the action's own beside a selector
  // and inputText's own (the typed text)
  const textIsOwn = k === "inputText" || "selector" in b || "selectors" in b;
  const selectorKeys = bodyKeys.filter((x) =>
    isSelectorKey(x) && (!ACTION_FIELDS.includes(x) || (x === "text" && !textIsOwn))
  );
  if (selectorKeys.length > 0) {
    const own = bodyKeys.filter((x) => !selectorKeys.includes(x));
    const show = (x: string) =>
      `${x}: ${typeof b[x] === "object" && b[x] !== null ? "…" : JSON.stringify(b[x])}`;
    throw new SyntaxError(
      `${at}.${spelled}: put the selector keys (${selectorKeys.join(", ")}) under "selector:" ` +
        `when the action has its own fields (${own.join(", ")}): ${spelled}: { selector: { ${
          selectorKeys.map(show).join(", ")
        } }, ${own.map(show).join(", ")} }`,
    );
  }
  return { kind: k, ...b };
}

/** The fields of an action besides its kind. */
const ACTION_FIELDS: readonly string[] = Object.keys(TrailAction.shape).filter((k) => k !== "kind");

function dollarToBraces(v: unknown): unknown {
  if (typeof v === "string") {
    return v.replace(/\$\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}/g, "{{$1}}");
  }
  if (Array.isArray(v)) return v.map(dollarToBraces);
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = dollarToBraces(x);
    return out;
  }
  return v;
}

/**
 * Serialises a trail to YAML, stably: fixed key order, block style, string values inside
 * recordings double-quoted (memory keys written by `storeAs` plain), no line folding, a blank
 * line between `config` and `trail`. The same trail always gives the same bytes.
 *
 * @param trail the trail (validated first)
 * @returns the YAML text, ending in a newline
 * @throws {TypeError} when the trail does not fit the schema
 * @example
 * ```ts
 * const y = stringifyTrail({ config: {}, trail: [{ step: "Go", recording: [{ kind: "tap", selector: { id: "go" } }] }] });
 * if (!y.includes('id: "go"')) throw new Error();
 * ```
 */
export function stringifyTrail(trail: Trail): string {
  const checked = Trail.safeParse(trail);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new TypeError(`Invalid trail at ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  const t = checked.data;
  const web = t.config.platform === "web";
  const config = orderKeys(t.config, CONFIG_ORDER);
  if (t.config.memory) {
    const mem: Record<string, string | null> = {};
    for (const k of Object.keys(t.config.memory).sort()) mem[k] = t.config.memory[k]!;
    config.memory = mem;
  }
  const steps = t.trail.map((s) => {
    const out: Record<string, unknown> = { step: s.step };
    if (s.selectorMode !== undefined) out.selectorMode = s.selectorMode;
    if (s.recordable !== undefined) out.recordable = s.recordable;
    if (s.recording !== undefined) out.recording = s.recording.map((a) => actionToYaml(a, web));
    return out;
  });
  const configYaml = renderSection({ config }, false);
  const trailYaml = renderSection({ trail: steps }, true);
  return `${configYaml}\n${trailYaml}`;
}

function renderSection(obj: Record<string, unknown>, quoteRecordings: boolean): string {
  const doc = new YAML.Document(obj);
  YAML.visit(doc, {
    Seq(_key, node, path) {
      const parent = path[path.length - 1];
      if (isPair(parent) && isScalar(parent.key) && parent.key.value === "xy") node.flow = true;
    },
    Scalar(key, node, path) {
      if (!quoteRecordings || key !== "value" || typeof node.value !== "string") return;
      if (!path.some((p) => isPair(p) && isScalar(p.key) && p.key.value === "recording")) return;
      const parent = path[path.length - 1];
      if (isPair(parent) && isScalar(parent.key) && parent.key.value === "storeAs") return;
      node.type = Scalar.QUOTE_DOUBLE;
    },
  });
  return doc.toString({ lineWidth: 0, indentSeq: true });
}

function actionToYaml(a: TrailAction, web: boolean): Record<string, unknown> {
  const name = (web ? WEB_SPELLING[a.kind] : undefined) ?? a.kind;
  const fields = ACTION_FIELD_ORDER.filter((f) => a[f] !== undefined);
  if (fields.length === 0) return { [name]: {} };
  if (fields.length === 1 && fields[0] === "selector") {
    const keys = Object.keys(a.selector!);
    if (SCALAR_SELECTOR_KINDS.has(a.kind) && keys.length === 1 && keys[0] === "text") {
      return { [name]: a.selector!.text }; // the compact form: `tap: "Next"`
    }
    return { [name]: selectorToYaml(a.selector!) };
  }
  const only = fields.length === 1 ? fields[0] : undefined;
  if (only && SCALAR_FIELD[a.kind] === only && typeof a[only] === "string") {
    return { [name]: a[only] };
  }
  const body: Record<string, unknown> = {};
  for (const f of fields) {
    const v = a[f];
    if (f === "selector") body[f] = selectorToYaml(v as Selector);
    else if (f === "selectors") body[f] = (v as Selector[]).map(selectorToYaml);
    else body[f] = v;
  }
  return { [name]: body };
}

function selectorToYaml(s: Selector): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of SELECTOR_KEYS) {
    const v = s[k];
    if (v === undefined) continue;
    if (k === "childOf") out[k] = selectorToYaml(v as Selector);
    else if (k === "viewport") out[k] = { width: s.viewport!.width, height: s.viewport!.height };
    else if (k === "xy") out[k] = [...(v as [number, number])];
    else out[k] = v;
  }
  return out;
}

function orderKeys<T extends object>(obj: T, order: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const o = obj as Record<string, unknown>;
  for (const k of order) if (o[k] !== undefined) out[k] = o[k];
  return out;
}

/**
 * Reads and parses a trail file.
 *
 * @param path the YAML file
 * @returns the trail
 * @throws {SyntaxError} on malformed YAML or a schema error, naming the file
 */
export async function readTrailFile(path: string): Promise<Trail> {
  return parseTrail(await Deno.readTextFile(path), path);
}

/**
 * Writes a trail file with {@linkcode stringifyTrail}.
 *
 * @param path the YAML file
 * @param trail the trail
 */
export async function writeTrailFile(path: string, trail: Trail): Promise<void> {
  await Deno.writeTextFile(path, stringifyTrail(trail));
}

/**
 * The row anchors of a selector: when its `childOf` holds only `text` (and maybe a further such
 * `childOf`), the texts innermost first. `{ text: Add, childOf: { text: Cactus } }` is the
 * "Add" in the nearest ancestor showing "Cactus" that holds one "Add"; a second anchor names the
 * nearest ancestor (or the row itself) showing it that holds one row text. Undefined when
 * `childOf` is absent or names a durable ancestor (id, test id, label).
 *
 * @param sel a selector
 * @returns the anchor texts, innermost first, or undefined
 * @example
 * ```ts
 * const a = textAnchors({ text: "View", childOf: { text: "Cable", childOf: { text: "Office" } } });
 * if (a?.join("|") !== "Cable|Office") throw new Error();
 * ```
 */
export function textAnchors(sel: Selector): string[] | undefined {
  const out: string[] = [];
  for (let p = sel.childOf; p !== undefined; p = p.childOf) {
    const keys = Object.keys(p).filter((k) => k !== "childOf");
    if (keys.length !== 1 || keys[0] !== "text" || !p.text) return undefined;
    out.push(p.text);
  }
  return out.length > 0 ? out : undefined;
}
