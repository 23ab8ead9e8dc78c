/**
 * The pure half of a blaze tool call: what a ref or a point resolves to on the screen captured
 * before the action, and the action kind and fields a call records. Shared by every platform.
 *
 * @module
 */
import { z } from "zod";
import type { EventData } from "../../events/mod.ts";
import { resolveRef, snapshotTree } from "../../engine/screens/mod.ts";
import { center, type Point, type Screen, type UiNode, walk } from "../../engine/screens/mod.ts";
import type { ToolName } from "./params.ts";
import { REDACTED } from "../../engine/playback/mod.ts";
import { SecretScrubber } from "../../drivers/mod.ts";

type ActionKind = EventData<"ActionPerformed">["kind"];
type Performed = Omit<EventData<"ActionPerformed">, "actionId" | "source" | "kind">;

/** What a call's target resolved to: the node and point, or why it cannot be acted on. */
export interface ResolvedTarget {
  node?: UiNode;
  point?: Point;
  /** False when the ref's node is off screen or hidden. */
  onScreen: boolean;
  /** Why the call cannot act (a ref not on the screen, a point outside it). */
  problem?: string;
}

/**
 * Resolves a call's `ref` or `x`,`y` on the screen captured before the action.
 *
 * @param screen the screen (undefined for calls that need none)
 * @param tool the tool
 * @param p the parsed parameters
 * @returns the node, the point and whether it is on screen, or the problem
 */
export function resolveTarget(
  screen: Screen | undefined,
  tool: ToolName,
  p: Record<string, unknown>,
): ResolvedTarget {
  if (typeof p.ref === "string") {
    if (!screen) return { onScreen: false, problem: `Ref ${p.ref} needs a screen` };
    try {
      const r = resolveRef(screen, p.ref);
      const onScreen = !r.offscreen && !r.hidden;
      if (!onScreen && ACTS_ON_SCREEN.has(tool)) {
        return {
          node: r.node,
          point: r.point,
          onScreen,
          problem: `Ref ${p.ref} is ${r.hidden ? "hidden" : "off screen"}: scroll to it first`,
        };
      }
      return { node: r.node, point: r.point, onScreen };
    } catch (err) {
      if (err instanceof RangeError || err instanceof SyntaxError) {
        return {
          onScreen: false,
          problem: `Ref ${p.ref} is not on the current screen (take a new snapshot)`,
        };
      }
      throw err;
    }
  }
  if (typeof p.x === "number" && typeof p.y === "number") {
    const point = { x: p.x, y: p.y };
    if (screen && (p.x < 0 || p.y < 0 || p.x > screen.width || p.y > screen.height)) {
      return {
        point,
        onScreen: false,
        problem: `Point (${p.x}, ${p.y}) is outside the screen (${screen.width}×${screen.height})`,
      };
    }
    const node = screen ? hitTest(screen.root, point) : undefined;
    return { point, onScreen: true, ...(node ? { node } : {}) };
  }
  return { onScreen: true };
}

/**
 * The ref an element the agent was shown has now, when only its text changed: a ref hashes the
 * element's label, so a counter going from "3 items" to "4 items" gets a new ref. The element is
 * the same when the current screen has exactly one element of its class at its place (its centre
 * in the same 10 px cell) and the old ref names nothing there.
 *
 * @param shown the screen of the snapshot that showed the ref
 * @param current the screen now
 * @param ref the ref the agent gave
 * @returns the element's current ref, or undefined when it is not the same element for sure
 */
export function carriedRef(shown: Screen, current: Screen, ref: string): string | undefined {
  let old: UiNode;
  try {
    old = resolveRef(shown, ref).node;
  } catch {
    return undefined;
  }
  const place = (n: UiNode) => {
    const c = center(n.bounds);
    return `${n.className}|${Math.round(c.x / 10)}|${Math.round(c.y / 10)}`;
  };
  const want = place(old);
  const now = [...snapshotTree(current).byRef.values()];
  if (now.some((e) => e.ref === ref)) return undefined;
  const same = now.filter((e) => place(e.node) === want);
  return same.length === 1 ? same[0]!.ref : undefined;
}

/**
 * The action kind and recorded fields of a tool call.
 *
 * @param tool the tool (one that records an action)
 * @param p the parsed parameters
 * @returns the kind and the fields of `ActionPerformed`
 * @throws {TypeError} for a tool that records no action (`snapshot`, `step`, `end`)
 */
export function actionOf(
  tool: ToolName,
  p: Record<string, unknown>,
): { kind: ActionKind; performed: Performed } {
  let kind: ActionKind;
  let performed: Performed = {};
  switch (tool) {
    case "tap":
      kind = "tap";
      break;
    case "type":
      kind = "inputText";
      performed = { text: String(p.text) };
      break;
    case "press":
      kind = "keyPress";
      performed = { key: String(p.key) };
      break;
    case "scroll":
      kind = "scroll";
      performed = { direction: p.direction as "up" };
      break;
    case "navigate":
      kind = "navigate";
      performed = { url: String(p.url) };
      break;
    case "assert":
      kind = p.text !== undefined ? "assertText" : "assertVisible";
      performed = p.text !== undefined ? { expected: String(p.text) } : {};
      break;
    case "read":
      kind = "readText";
      performed = { storeAs: String(p.storeAs) };
      break;
    case "select":
      kind = "select";
      performed = { value: String(p.value) };
      break;
    case "check":
      kind = "check";
      performed = { checked: p.checked !== false };
      break;
    case "memory":
      kind = p.op === "set" ? "memorySet" : "memoryGet";
      performed = p.op === "set"
        ? { storeAs: String(p.name), value: String(p.value) }
        : { storeAs: String(p.name) };
      break;
    default:
      throw new TypeError(`Tool ${tool} records no action`);
  }
  return { kind, performed };
}

/**
 * The `<select>` an option node belongs to and the option's text, when the node is an option of
 * a closed select (Chrome's tree: `combobox` > `MenuListPopup` > `option`): a tap on it is a
 * select, as a person picks from the list. Undefined for any other node (a listbox's own
 * options are tapped as they are).
 *
 * @param root the screen's root
 * @param node the node a tap targets
 * @returns the select node and the option's text, or undefined
 */
export function optionOfSelect(
  root: UiNode,
  node: UiNode,
): { select: UiNode; value: string } | undefined {
  if ((node.role ?? node.className) !== "option") return undefined;
  const up = ancestorsOf(root, node).reverse(); // nearest first
  const popup = up.findIndex((n) => (n.role ?? n.className) === "MenuListPopup");
  const select = popup >= 0 ? up[popup + 1] : undefined;
  if (!select || (select.role ?? select.className) !== "combobox") return undefined;
  const value = node.name ?? node.text ?? textOf(node);
  return value ? { select, value } : undefined;
}

/** Tools that act at the node's point, so the node must be on screen. */
const ACTS_ON_SCREEN = new Set<ToolName>(["tap", "type", "select", "check"]);

/** The deepest visible node whose bounds contain the point (ties: the later in document order). */
export function hitTest(root: UiNode, p: Point): UiNode | undefined {
  let best: UiNode | undefined;
  let bestDepth = -1;
  for (const [node, depth] of walk(root)) {
    const b = node.bounds;
    if (!node.visible || b.w <= 0 || b.h <= 0) continue;
    if (p.x < b.x || p.y < b.y || p.x > b.x + b.w || p.y > b.y + b.h) continue;
    if (depth >= bestDepth) {
      best = node;
      bestDepth = depth;
    }
  }
  return best;
}

/** What the recording keeps of the node a call targets: role, name (never the ref). */
export function targetOf(node: UiNode): z.infer<typeof TargetShape> {
  const role = node.role ?? node.className;
  const name = node.name ?? node.text ?? node.contentDescription;
  const ax = node.attrs?.axNodeId ?? node.attrs?.backendNodeId;
  return { role, ...(name ? { name } : {}), ...(ax ? { axNodeId: ax } : {}) };
}

const TargetShape = z.object({
  role: z.string(),
  name: z.string().optional(),
  axNodeId: z.string().optional(),
});

/** What reading an element gives: an input's value, else its own or its descendants' text, else its name. */
export function textOf(node: UiNode): string {
  if (node.value !== undefined) return node.value;
  if (node.text !== undefined) return node.text;
  const parts: string[] = [];
  for (const [n] of walk(node)) if (n !== node && n.text !== undefined) parts.push(n.text);
  const inner = parts.join(" ").replace(/\s+/g, " ").trim();
  return inner || node.name || node.contentDescription || "";
}

/** A node as the tool output names it: role and name. */
export function describeNode(node: UiNode): string {
  const name = node.name ?? node.text ?? node.contentDescription;
  return `${node.role ?? node.className}${name ? ` ${JSON.stringify(name)}` : ""}`;
}

export { REDACTED };

/**
 * Whether a field's value must never be stored: the rule of the human recorder's page script
 * (`drivers/chrome/_recorder_script.ts`, which runs inside the page and so cannot import it),
 * on a `UiNode`: a password field, a node in a `data-sensitive` subtree, or an `autocomplete`
 * of `current-password`, `new-password` or `cc-*`.
 *
 * @param node the field
 * @param ancestors its ancestors, root first (for `data-sensitive` on a wrapper)
 * @returns true when the value is a secret
 */
export function isSensitiveNode(node: UiNode, ancestors: readonly UiNode[] = []): boolean {
  if (node.password) return true;
  if ([node, ...ancestors].some((n) => n.attrs?.["data-sensitive"] !== undefined)) return true;
  const ac = (node.attrs?.autocomplete ?? "").toLowerCase();
  return ac.startsWith("cc-") || ac.includes("current-password") || ac.includes("new-password");
}

/**
 * The ancestors of a node on a screen, root first.
 *
 * @param root the screen's root
 * @param target the node
 * @returns its ancestors (empty when it is the root or not in the tree)
 */
export function ancestorsOf(root: UiNode, target: UiNode): UiNode[] {
  const path: UiNode[] = [];
  const visit = (n: UiNode): boolean => {
    if (n === target) return true;
    path.push(n);
    for (const c of n.children) if (visit(c)) return true;
    path.pop();
    return false;
  };
  return visit(root) ? path : [];
}

/**
 * A copy of a JSON value with each secret taken out of its strings where it can appear (see
 * {@linkcode SecretScrubber.text}): a string equal to one, a url parameter value, a whole token
 * of a secret long enough to be told from ordinary words.
 *
 * @param value the value (tool parameters, an event's data)
 * @param secrets the values to hide
 * @returns the scrubbed copy
 */
export function scrubSecrets<T>(value: T, secrets: Iterable<string>): T {
  const scrubber = new SecretScrubber();
  for (const s of secrets) scrubber.add(s);
  return scrubber.value(value);
}
