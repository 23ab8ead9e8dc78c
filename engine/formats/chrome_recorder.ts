/**
 * Chrome DevTools Recorder user flows (`{ title, steps }`, old and new exports), also a bare
 * single step and DevTools' own map of flows by test name, mapped into session events.
 *
 * A flow records what a person did, with no screens and no results: each step becomes an
 * `ActionPerformed` (source `human`) whose `toolName` is the step type and whose `toolParams`
 * keep the step's other raw fields (offsets, button, frame, target, …); the selectors go to
 * `target.selectors`; asserted navigations become `NavigationOccurred`.
 *
 * @module
 */
import { z } from "zod";
import type { ActionKind, EventData, NewEvent } from "../../events/mod.ts";
import { zodToFormatError } from "../input/mod.ts";
import { Coordinate } from "./screen_point.ts";

/** A selector: one string, or a chain of strings (each piercing a shadow root or frame). */
const Selector = z.union([z.string(), z.array(z.string()).min(1)]);
const Selectors = z.array(Selector).min(1);
const AssertedEvent = z.object({
  type: z.string(),
  url: z.string().optional(),
  title: z.string().optional(),
}).loose();

const STEP_TYPES = [
  "setViewport",
  "navigate",
  "click",
  "doubleClick",
  "hover",
  "change",
  "keyDown",
  "keyUp",
  "scroll",
  "waitForElement",
  "waitForExpression",
  "emulateNetworkConditions",
  "close",
  "customStep",
] as const;

/** One step, checked for the fields its type needs. */
export const RecorderStep = z.object({
  type: z.enum(STEP_TYPES),
  selectors: Selectors.optional(),
  assertedEvents: z.array(AssertedEvent).optional(),
  target: z.string().optional(),
  frame: z.array(z.number().int()).optional(),
  url: z.string().optional(),
  value: z.string().optional(),
  key: z.string().optional(),
  // positive, as a capture's viewport and devicePixelRatio: the session's viewport comes from here
  width: z.number().positive().optional(),
  height: z.number().positive().optional(),
  deviceScaleFactor: z.number().positive().optional(),
  // a click's offsets in its element and a scroll's position: points, bounded as every point
  offsetX: Coordinate.optional(),
  offsetY: Coordinate.optional(),
  x: Coordinate.optional(),
  y: Coordinate.optional(),
  // a waitForElement's expectations (puppeteer's WaitForElementStep)
  visible: z.boolean().optional(),
  count: z.number().int().nonnegative().optional(),
  operator: z.enum([">=", "==", "<="]).optional(),
  properties: z.record(z.string(), z.unknown()).optional(),
  attributes: z.record(z.string(), z.string()).optional(),
}).loose().superRefine((s, ctx) => {
  const need = (field: keyof typeof s, ok: boolean) => {
    if (!ok) ctx.addIssue({ code: "custom", path: [field], message: `${s.type} needs ${field}` });
  };
  switch (s.type) {
    case "navigate":
      need("url", typeof s.url === "string");
      break;
    case "click":
    case "doubleClick":
    case "hover":
    case "waitForElement":
      need("selectors", s.selectors !== undefined);
      break;
    case "change":
      need("selectors", s.selectors !== undefined);
      need("value", typeof s.value === "string");
      break;
    case "keyDown":
    case "keyUp":
      need("key", typeof s.key === "string");
      break;
    case "setViewport":
      need("width", typeof s.width === "number");
      need("height", typeof s.height === "number");
      break;
    default:
      break;
  }
});
export type RecorderStep = z.infer<typeof RecorderStep>;

/** A user flow. */
export const UserFlow = z.object({
  title: z.string().optional(),
  timeout: z.number().optional(),
  selectorAttribute: z.string().optional(),
  steps: z.array(RecorderStep),
}).loose();
export type UserFlow = z.infer<typeof UserFlow>;

/** One flow of a file, named for its source (the map key of DevTools' snapshot file). */
export interface NamedFlow {
  /** The map key, or undefined for a file that is one flow. */
  key?: string;
  flow: UserFlow;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * Whether a parsed JSON value looks like a Recorder file: a flow (`steps`), a single step
 * (`type` among the Recorder's step types), or a map of flows by name (DevTools' test
 * snapshots): an object with a flow among its values. A map with one bad flow (a string, a
 * flow without steps) is still a map, so that parsing names that flow rather than detection
 * calling the file an unknown format.
 *
 * @param value parsed JSON
 * @returns true when it looks like one
 */
export function looksLikeChromeRecorder(value: unknown): boolean {
  if (!isObject(value)) return false;
  if (Array.isArray(value.steps)) return true;
  if (typeof value.type === "string" && !("data" in value)) {
    return (STEP_TYPES as readonly string[]).includes(value.type);
  }
  return Object.values(value).some((v) => isObject(v) && Array.isArray(v.steps));
}

/**
 * Validates a Recorder file whole and returns its flows.
 *
 * @param value parsed JSON: a flow, a single step, or a map of flows by name
 * @returns the flows in file order
 * @throws {FormatError} naming the field (`steps.3.selectors: …`, `"test name".steps.0.type: …`)
 */
export function parseChromeRecorder(value: unknown): NamedFlow[] {
  if (isObject(value) && !Array.isArray(value.steps) && typeof value.type === "string") {
    const step = RecorderStep.safeParse(value);
    if (!step.success) throw zodToFormatError(step.error);
    return [{ flow: { steps: [step.data] } }];
  }
  if (isObject(value) && !Array.isArray(value.steps)) {
    return Object.entries(value).map(([key, v]) => {
      const flow = UserFlow.safeParse(v);
      if (!flow.success) throw zodToFormatError(flow.error, JSON.stringify(key));
      return { key, flow: flow.data };
    });
  }
  const flow = UserFlow.safeParse(value);
  if (!flow.success) throw zodToFormatError(flow.error);
  return [{ flow: flow.data }];
}

const PREFIXES = ["aria", "xpath", "pierce", "text"] as const;

/**
 * Turns Recorder selectors into `target.selectors`: keys `aria`, `xpath`, `pierce`, `text`
 * (the prefix) or `css`, a repeated kind numbered `css.2`, `css.3`; a chain joined with
 * ` >>> ` (Puppeteer's shadow-piercing combinator).
 *
 * @param selectors the step's selectors
 * @returns the selector map, in the step's order
 * @example
 * ```ts
 * const m = recorderSelectors([["aria/Go"], ["#go"], ["host-el", "button"]]);
 * if (JSON.stringify(m) !== '{"aria":"Go","css":"#go","css.2":"host-el >>> button"}') throw new Error();
 * ```
 */
export function recorderSelectors(
  selectors: readonly (string | string[])[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const sel of selectors) {
    const chain = typeof sel === "string" ? [sel] : sel;
    const head = chain[0]!;
    const slash = head.indexOf("/");
    const prefix = PREFIXES.find((p) => slash === p.length && head.startsWith(p));
    const kind = prefix ?? "css";
    const parts = prefix ? [head.slice(slash + 1), ...chain.slice(1)] : chain;
    let key: string = kind;
    for (let n = 2; key in out; n++) key = `${kind}.${n}`;
    out[key] = parts.join(" >>> ");
  }
  return out;
}

/** What a Recorder `aria` selector (one hop, or a chain) names, read by {@linkcode readAriaChain}. */
export interface AriaChain {
  /** The accessible name of the element named last in the chain. */
  name: string;
  /** Its role, when the hop gave one. */
  role?: string;
  /** The roles of the hops after it that give only a role: the acted-on element lies inside. */
  inside: string[];
}

const ARIA_HOP = /^(.*?)(?:\[role="([\w-]+)"\])?$/;

/**
 * Reads a Recorder `aria` selector as {@linkcode recorderSelectors} stores it: one hop
 * (`Submit[role="button"]`) or a chain, its first hop without the prefix and each later one with
 * it (`Hello World >>> aria/[role="generic"]`). Each later hop looks inside the element the hop
 * before it found, so the last hop with a name names an element and role-only hops after it
 * name a descendant of it (the Recorder clicked inside the named, interactive element).
 *
 * @param value the stored `aria` selector
 * @returns the named element (and the roles of the hops inside it), or undefined when no hop
 *   has a name or a later hop is not an `aria/` selector
 * @example
 * ```ts
 * const a = readAriaChain('Hello World >>> aria/[role="generic"]');
 * if (a?.name !== "Hello World" || a.role !== undefined || a.inside[0] !== "generic") throw new Error();
 * ```
 */
export function readAriaChain(value: string): AriaChain | undefined {
  const parts = value.split(" >>> ");
  const hops: { name: string; role?: string }[] = [];
  for (const [i, part] of parts.entries()) {
    if (i > 0 && !part.startsWith("aria/")) return undefined;
    const m = ARIA_HOP.exec(i > 0 ? part.slice("aria/".length) : part)!;
    hops.push({ name: m[1]!, ...(m[2] !== undefined ? { role: m[2] } : {}) });
  }
  const last = hops.findLastIndex((h) => h.name !== "");
  if (last < 0) return undefined;
  const { name, role } = hops[last]!;
  return {
    name,
    ...(role !== undefined ? { role } : {}),
    inside: hops.slice(last + 1).flatMap((h) => h.role !== undefined ? [h.role] : []),
  };
}

const KINDS: Record<typeof STEP_TYPES[number], ActionKind | undefined> = {
  setViewport: "wait",
  navigate: "navigate",
  click: "tap",
  doubleClick: "tap",
  hover: "assertVisible",
  change: "inputText",
  keyDown: "keyPress",
  keyUp: undefined, // ends the keyPress its keyDown began
  scroll: "scroll",
  waitForElement: "assertVisible",
  waitForExpression: "wait",
  emulateNetworkConditions: "wait",
  close: "wait",
  customStep: "wait",
};

/** The element properties whose expected value is the text the player reads of it. */
export const TEXT_PROPERTIES: ReadonlySet<string> = new Set(["textContent", "innerText", "value"]);

/**
 * What a `waitForElement` step checks, as the player and the trail express it: the element's
 * text (a `properties` entry among {@linkcode TEXT_PROPERTIES} with a string value), its absence
 * (`visible: false`), a count of elements (`count`, `operator`), and what neither can check (any
 * other property, `attributes`), named.
 *
 * @param step the step
 * @returns the checks
 * @example
 * ```ts
 * const c = waitForElementChecks({ type: "waitForElement", properties: { textContent: "Total: 3" }, count: 2, operator: "==" });
 * if (c.text !== "Total: 3" || c.visible !== true || c.count !== 2 || c.operator !== "==" || c.unchecked.length) throw new Error();
 * ```
 */
export function waitForElementChecks(step: RecorderStep): {
  text?: string;
  visible: boolean;
  count?: number;
  operator?: ">=" | "==" | "<=";
  unchecked: string[];
} {
  const unchecked: string[] = [];
  let text: string | undefined;
  for (const [k, v] of Object.entries(step.properties ?? {})) {
    if (TEXT_PROPERTIES.has(k) && typeof v === "string" && (text === undefined || text === v)) {
      text = v;
    } else unchecked.push(`properties.${k}`);
  }
  for (const k of Object.keys(step.attributes ?? {})) unchecked.push(`attributes.${k}`);
  // the default (at least one) is what a plain visibility check already asks
  const counted = step.count !== undefined &&
    !(step.count === 1 && (step.operator ?? ">=") === ">=");
  return {
    ...(text !== undefined ? { text } : {}),
    visible: step.visible !== false,
    ...(counted ? { count: step.count!, operator: step.operator ?? ">=" } : {}),
    unchecked,
  };
}

/** The modifier keys a Recorder flow holds down around another key (a chord). */
const MODIFIER_KEYS: ReadonlySet<string> = new Set(["Shift", "Control", "Alt", "Meta"]);

/**
 * The key presses of a flow's `keyDown`/`keyUp` steps: each `keyDown` of a key that is not a
 * modifier is one press, written with the modifiers held down at that moment as a chord
 * (`Shift+Tab`, modifiers first in the order pressed, as Playwright's `press` takes it). A
 * modifier pressed and released with no other key in between adds nothing.
 *
 * @param steps the flow's steps
 * @returns the key of each press, by the index of its `keyDown` step (other steps: absent)
 * @example
 * ```ts
 * const keys = recorderKeyPresses([
 *   { type: "keyDown", key: "Shift" }, { type: "keyDown", key: "Tab" },
 *   { type: "keyUp", key: "Tab" }, { type: "keyUp", key: "Shift" },
 * ]);
 * if (keys.get(1) !== "Shift+Tab" || keys.size !== 1) throw new Error();
 * ```
 */
export function recorderKeyPresses(
  steps: readonly Pick<RecorderStep, "type" | "key">[],
): Map<number, string> {
  const held: string[] = [];
  const out = new Map<number, string>();
  for (const [i, step] of steps.entries()) {
    const key = step.key;
    if (key === undefined || (step.type !== "keyDown" && step.type !== "keyUp")) continue;
    if (MODIFIER_KEYS.has(key)) {
      const at = held.indexOf(key);
      if (step.type === "keyDown" && at < 0) held.push(key);
      if (step.type === "keyUp" && at >= 0) held.splice(at, 1);
    } else if (step.type === "keyDown") out.set(i, [...held, key].join("+"));
  }
  return out;
}

/** Fields that have their own place in the event; the rest of a step goes to `toolParams`. */
const MAPPED = new Set(["type", "selectors", "assertedEvents", "url", "value", "key"]);

/** Options of {@linkcode flowToEvents}. */
export interface FlowToEventsOptions {
  sessionId: string;
  file?: string;
  /** The map key of the flow in its file. */
  key?: string;
}

/**
 * Maps one flow into the events of a session: `SessionStarted` (title as the prompt, the
 * first navigate's URL, the viewport of a `setViewport` that comes before the first
 * `navigate`), one `ActionPerformed` per step (a `keyUp` adds nothing: the `keyDown` is the
 * key press, with the modifiers held as a chord, `Shift+Tab`, and a modifier's own `keyDown`
 * adds nothing: see {@linkcode recorderKeyPresses}; a step with selectors carries the flow's
 * `selectorAttribute` in `toolParams`; steps no action kind expresses — a later `setViewport`, `waitForExpression`,
 * `emulateNetworkConditions`, `close`, `customStep` — are `wait` actions carrying the raw
 * step), `NavigationOccurred` per asserted navigation, and `SessionEnded` (completed).
 *
 * @param flow a validated flow
 * @param options the new session's id, the file and the flow's key
 * @returns the events (no blobs: a flow has no screens)
 */
export function flowToEvents(flow: UserFlow, options: FlowToEventsOptions): NewEvent[] {
  const firstNav = flow.steps.findIndex((s) => s.type === "navigate");
  const vpIndex = flow.steps.findIndex((s) => s.type === "setViewport");
  const initialViewport = vpIndex >= 0 && (firstNav < 0 || vpIndex < firstNav)
    ? flow.steps[vpIndex]
    : undefined;
  const title = flow.title ?? options.key;
  const url = firstNav >= 0 ? flow.steps[firstNav]!.url : undefined;
  const started: EventData<"SessionStarted"> = {
    sessionId: options.sessionId,
    mode: "human",
    platform: "web",
    ...(title !== undefined ? { prompt: title } : {}),
    ...(url !== undefined ? { url } : {}),
    ...(initialViewport
      ? {
        viewport: { width: initialViewport.width!, height: initialViewport.height! },
        devicePixelRatio: initialViewport.deviceScaleFactor ?? 1,
      }
      : {}),
    source: {
      format: "chrome-recorder",
      ...(options.file ? { file: options.file } : {}),
      ...(options.key ? { id: options.key } : {}),
    },
  };
  const events: NewEvent[] = [{ type: "SessionStarted", data: started }];
  const keys = recorderKeyPresses(flow.steps);
  let n = 0;
  for (const [i, step] of flow.steps.entries()) {
    const kind = KINDS[step.type];
    // a modifier's keyDown is part of the chord its key press names, or nothing
    const chordPart = step.type === "keyDown" && !keys.has(i);
    if (kind !== undefined && step !== initialViewport && !chordPart) {
      const params: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(step)) if (!MAPPED.has(k)) params[k] = v;
      // the flow's own test attribute, which its selectors use (`[data-qa='x']`)
      if (flow.selectorAttribute && step.selectors) {
        params.selectorAttribute = flow.selectorAttribute;
      }
      const data: EventData<"ActionPerformed"> = {
        actionId: `a${++n}`,
        kind,
        toolName: step.type,
        ...(Object.keys(params).length > 0 ? { toolParams: params } : {}),
        ...(step.selectors ? { target: { selectors: recorderSelectors(step.selectors) } } : {}),
        source: "human",
      };
      if (step.url !== undefined && kind === "navigate") data.url = step.url;
      else if (step.url !== undefined) params.url = step.url;
      if (step.value !== undefined) {
        if (kind === "inputText") data.text = step.value;
        else data.value = step.value;
      }
      if (step.key !== undefined) data.key = keys.get(i) ?? step.key;
      if (step.type === "waitForElement") {
        // its expectations: the text an element must show, or that it must be gone
        const checks = waitForElementChecks(step);
        // a session has no absence check: a wait carrying the raw step, never its opposite
        if (!checks.visible) data.kind = "wait";
        else if (checks.text !== undefined) {
          data.kind = "assertText";
          data.expected = checks.text;
        }
      }
      if (Object.keys(params).length > 0) data.toolParams = params;
      events.push({ type: "ActionPerformed", data });
    }
    for (const e of step.assertedEvents ?? []) {
      if (e.type !== "navigation" || !e.url) continue;
      events.push({ type: "NavigationOccurred", data: { url: e.url, reason: "navigate" } });
    }
  }
  events.push({ type: "SessionEnded", data: { reason: "completed" } });
  return events;
}
