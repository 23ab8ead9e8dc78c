/**
 * A Maestro flow as a playback plan. `tapOn` → click, `inputText` → type (into the focused
 * field), `assertVisible` → assert_visible, `assertNotVisible` → assert_not_visible,
 * `longPressOn` → long_press, `swipe: { direction }` → swipe, `waitForAnimationToEnd` → wait
 * (for the screen to settle), `pressKey` → key_press, `back` → key_press Back,
 * `scroll` → scroll down. A selector is a text (a bare string or `text:`) or an `id`, with
 * `index` and `childOf` (an `id` parent scopes the lookups; a text-only parent is a row anchor, as
 * a trail's text-only `childOf`); Maestro matches both as regular expressions over the whole value, so a text with
 * regex syntax becomes a regex text level and an id with regex syntax cannot be looked up (the
 * command is kept under its own name). Every other command (`launchApp`, `runFlow`, a `swipe`
 * between points, `eraseText`, …) is kept under its own name and reported skipped
 * (`unsupported_action_type`), as a Chrome Recorder step Cairn does not play. `optional: true`
 * is not carried: a miss fails the action. The plan's platform is `ios` when the flow's tags
 * say `ios`, else `android`.
 *
 * @module
 */
import type { MaestroCommand, MaestroFlow } from "../formats/mod.ts";
import type { PlaybackAction, PlaybackPlan, Target } from "./actions.ts";

/** Characters that make a Maestro text or id a regular expression rather than a literal. */
const REGEX_SYNTAX = /[.*+?^$()[\]{}|\\]/;

/**
 * A Maestro selector (a bare text, or `{ text, id, index, childOf }`) as a target, or undefined.
 * A `childOf` is kept, never dropped: one naming an `id` scopes the lookups under that element
 * (as Maestro does); one naming only a literal `text` (maybe with its own such `childOf`) is a
 * row anchor, as a trail's text-only `childOf` (`within.texts`); any other (a regex, an index,
 * text and id together) cannot be scoped, so the command is kept under its own name.
 */
function targetOf(args: unknown): Target | undefined {
  const sel = typeof args === "string" ? { text: args } : args;
  if (!sel || typeof sel !== "object" || Array.isArray(sel)) return undefined;
  const { text, id, index, childOf } = sel as Record<string, unknown>;
  const t: Target = {};
  if (typeof text === "string" && text !== "") {
    if (REGEX_SYNTAX.test(text)) t.textRegex = text;
    else t.text = text;
  }
  if (typeof id === "string" && id !== "") {
    if (REGEX_SYNTAX.test(id.replaceAll("\\.", ""))) return undefined;
    t.id = id.replaceAll("\\.", ".");
  }
  if (typeof index === "number" && Number.isInteger(index) && index >= 0) t.index = index;
  if (!t.text && !t.textRegex && !t.id) return undefined;
  if (childOf !== undefined) {
    const within = withinOf(childOf);
    if (!within) return undefined;
    t.within = within;
  }
  return t;
}

/** A Maestro `childOf` as the ancestor a target lies in, or undefined when it cannot be one. */
function withinOf(childOf: unknown): Target["within"] | undefined {
  const parent = targetOf(childOf);
  if (!parent || parent.index !== undefined || parent.textRegex) return undefined;
  if (parent.id !== undefined) {
    return parent.text === undefined && parent.within === undefined ? { id: parent.id } : undefined;
  }
  if (parent.text === undefined) return undefined;
  if (parent.within === undefined) return { texts: [parent.text] };
  const outer = parent.within.texts;
  return outer ? { texts: [parent.text, ...outer] } : undefined;
}

/** The playback type of each Maestro command that acts on (or checks) one element. */
const MAESTRO_ELEMENT_TYPES: Record<string, string> = {
  tapOn: "click",
  assertVisible: "assert_visible",
  assertNotVisible: "assert_not_visible",
  longPressOn: "long_press",
};

function convert(c: MaestroCommand, label: string): PlaybackAction {
  const base = { label: `${label} (line ${c.line})` };
  const kept: PlaybackAction = { type: c.name, ...base };
  switch (c.name) {
    case "tapOn":
    case "assertVisible":
    case "assertNotVisible":
    case "longPressOn": {
      const target = targetOf(c.args);
      if (!target) return kept;
      return { type: MAESTRO_ELEMENT_TYPES[c.name]!, target, ...base };
    }
    case "swipe": {
      // the direction form only (`swipe: { direction: UP }`); start/end points are kept
      const d = typeof c.args === "object" && c.args !== null
        ? (c.args as { direction?: unknown }).direction
        : undefined;
      const direction = typeof d === "string" ? d.toLowerCase() : "";
      if (!["up", "down", "left", "right"].includes(direction)) return kept;
      return {
        type: "swipe",
        direction: direction as NonNullable<PlaybackAction["direction"]>,
        ...base,
      };
    }
    case "waitForAnimationToEnd":
      return { type: "wait", ...base };
    case "inputText": {
      const text = typeof c.args === "object" && c.args !== null
        ? (c.args as { text?: unknown }).text
        : c.args;
      if (typeof text !== "string" && typeof text !== "number") return kept;
      return { type: "type", text: String(text), ...base };
    }
    case "pressKey":
      return typeof c.args === "string" ? { type: "key_press", key: c.args, ...base } : kept;
    case "back":
      return { type: "key_press", key: "Back", ...base };
    case "scroll":
      return { type: "scroll", direction: "down", ...base };
    default:
      return kept;
  }
}

/**
 * Converts a Maestro flow into a plan.
 *
 * @param flow a flow (`parseMaestroFlow` of `engine/formats/maestro_flow.ts`)
 * @param options the file it came from
 * @returns the plan: one action per command
 * @example
 * ```ts
 * const plan = maestroToPlan({ appId: "com.example", tags: [], commands: [
 *   { name: "launchApp", args: undefined, line: 3 },
 *   { name: "tapOn", args: "Email", line: 4 },
 * ] });
 * if (plan.actions[0]!.type !== "launchApp" || plan.actions[1]!.target!.text !== "Email") throw new Error();
 * ```
 */
export function maestroToPlan(flow: MaestroFlow, options: { file?: string } = {}): PlaybackPlan {
  const label = flow.name ?? flow.appId;
  return {
    source: { kind: "flow", ...(options.file ? { file: options.file } : {}) },
    platform: flow.tags.includes("ios") ? "ios" : "android",
    actions: flow.commands.map((c) => convert(c, label)),
  };
}
