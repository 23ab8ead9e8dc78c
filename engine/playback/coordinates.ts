/**
 * The coordinate fallback of the cascade (003 R10, R11): scale a recorded point to the
 * replay viewport, warn when viewports differ by more than 20 %, and check that what lies
 * under the point is the kind of element that was recorded before acting on it.
 *
 * @module
 */
import { type Point, type Screen, type UiNode, walk } from "../ui_node.ts";
import type { Target } from "./actions.ts";

/** A viewport: CSS size and device pixel ratio. */
export interface ViewportInfo {
  width: number;
  height: number;
  devicePixelRatio?: number;
}

/** Viewports differing by more than this fraction (either side) get a warning (003 R11). */
export const VIEWPORT_MISMATCH_RATIO = 0.2;

/**
 * Scales a recorded point to the replay viewport: device pixels are first divided by the
 * recording's pixel ratio (to CSS pixels), then each axis is scaled by replay / recorded size.
 *
 * @param point the recorded point
 * @param recorded the recording's viewport (CSS pixels) and pixel ratio
 * @param current the replay viewport
 * @param options `space: "device"` when the point is in device pixels
 * @returns the point in the replay viewport's CSS pixels, rounded
 * @example
 * ```ts
 * const p = scalePoint({ x: 400, y: 300 }, { width: 800, height: 600 }, { width: 400, height: 300 });
 * if (p.x !== 200 || p.y !== 150) throw new Error();
 * ```
 */
export function scalePoint(
  point: Point,
  recorded: ViewportInfo | undefined,
  current: ViewportInfo,
  options: { space?: "css" | "device" } = {},
): Point {
  const dpr = options.space === "device" ? (recorded?.devicePixelRatio ?? 1) : 1;
  const sx = recorded ? current.width / recorded.width : 1;
  const sy = recorded ? current.height / recorded.height : 1;
  return { x: Math.round((point.x / dpr) * sx), y: Math.round((point.y / dpr) * sy) };
}

/**
 * The viewport mismatch warning of 003 R11, or undefined when both sides are within 20 %.
 *
 * @param recorded the recording's viewport
 * @param current the replay viewport
 * @returns `viewport_mismatch: Recording was 1920x1080, current is 1366x768. …` or undefined
 */
export function viewportWarning(
  recorded: ViewportInfo | undefined,
  current: ViewportInfo,
): string | undefined {
  if (!recorded) return undefined;
  const dw = Math.abs(current.width - recorded.width) / recorded.width;
  const dh = Math.abs(current.height - recorded.height) / recorded.height;
  if (dw <= VIEWPORT_MISMATCH_RATIO && dh <= VIEWPORT_MISMATCH_RATIO) return undefined;
  return `viewport_mismatch: Recording was ${recorded.width}x${recorded.height}, current is ${current.width}x${current.height}. Coordinate fallback may be inaccurate.`;
}

/**
 * The deepest visible node whose bounds contain a point, with its ancestors (nearest first).
 *
 * @param screen the current screen
 * @param point a point in the screen's space
 * @returns the node and its ancestors, or undefined when nothing contains the point
 */
export function nodeAt(
  screen: Screen,
  point: Point,
): { node: UiNode; ancestors: UiNode[] } | undefined {
  let best: { node: UiNode; depth: number; path: UiNode[] } | undefined;
  const path: UiNode[] = [];
  for (const [node, depth] of walk(screen.root)) {
    path.length = depth;
    path.push(node);
    const b = node.bounds;
    if (!node.visible || b.w <= 0 || b.h <= 0) continue;
    if (point.x < b.x || point.y < b.y || point.x > b.x + b.w || point.y > b.y + b.h) continue;
    if (!best || depth >= best.depth) best = { node, depth, path: [...path] };
  }
  if (!best) return undefined;
  return { node: best.node, ancestors: best.path.slice(0, -1).reverse() };
}

const ANCESTORS_CHECKED = 3; // a label inside a button: the button is at most a few levels up

function norm(s: string | undefined): string {
  return (s ?? "").replace(/\s+/g, " ").trim().toLowerCase();
}

/**
 * Whether the element under a point is plausibly the recorded one — the guard of the weak
 * levels (CSS path, XPath, coordinates), which match by position, not identity:
 * - when the recording knows the role, the node at the point (or a near ancestor) must have it;
 *   without a role, it must at least be interactive;
 * - when the recording knows the accessible name (or text), a node with another name, or with
 *   none, is refused: position alone never overrules identity (a renamed or unnamed element
 *   fails rather than risk a wrong one).
 *
 * @param screen the current screen
 * @param point the center of the candidate element
 * @param target what the recording knows of the element
 * @returns `{ ok: true, node }` (the node taken for the recorded one) or `{ ok: false, reason }`
 */
export function checkPointTarget(
  screen: Screen,
  point: Point,
  target: Target,
): { ok: true; role?: string; node: UiNode } | { ok: false; reason: string } {
  const hit = nodeAt(screen, point);
  if (!hit) return { ok: false, reason: `no element at (${point.x}, ${point.y})` };
  const chain = [hit.node, ...hit.ancestors.slice(0, ANCESTORS_CHECKED)];
  const roleOf = (n: UiNode) => n.role ?? n.className;
  let node: UiNode | undefined;
  if (target.role) {
    node = chain.find((n) => roleOf(n) === target.role);
    if (!node) {
      return {
        ok: false,
        reason: `the element at (${point.x}, ${point.y}) is a ${
          roleOf(hit.node)
        }, the recording targeted a ${target.role}`,
      };
    }
  } else {
    node = chain.find((n) => n.clickable || n.checkable || n.hint !== undefined);
    if (!node) {
      return {
        ok: false,
        reason: `the element at (${point.x}, ${point.y}) (${roleOf(hit.node)}) is not interactive`,
      };
    }
  }
  const recorded = norm(target.name ?? target.ariaLabel ?? target.text);
  // a container without a name of its own (an Android tab, a link around a label) shows its
  // children's text; one that shows none at all is unnamed
  const shown = node.name || node.text || nodeText(node);
  const name = norm(shown);
  if (recorded && name !== recorded) {
    const found = name ? `"${shown}"` : "unnamed";
    return {
      ok: false,
      reason: `the element at (${point.x}, ${point.y}) is ${found}, the recording targeted "${
        target.name ?? target.ariaLabel ?? target.text
      }"`,
    };
  }
  return { ok: true, role: roleOf(node), node };
}

/**
 * The visible text of a node: its own text, else its descendants' texts joined by a space
 * (a button's label lives in its children), else its accessible name.
 *
 * @param node a node of a screen
 * @returns the text, `""` when the node shows none
 * @example
 * ```ts
 * import { makeNode } from "../ui_node.ts";
 * const label = makeNode({ className: "StaticText", text: "12.50" });
 * const button = makeNode({ className: "button", name: "Total", children: [label] });
 * if (nodeText(button) !== "12.50") throw new Error();
 * ```
 */
export function nodeText(node: UiNode): string {
  if (node.text) return node.text;
  const parts: string[] = [];
  const collect = (n: UiNode) => {
    for (const child of n.children) {
      if (!child.visible) continue;
      if (child.text) parts.push(child.text); // its own parts (inline text boxes) repeat it
      else collect(child);
    }
  };
  collect(node);
  const text = parts.join(" ").replace(/\s+/g, " ").trim();
  return text || (node.name ?? "");
}
