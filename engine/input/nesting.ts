/**
 * The nesting limit of what Cairn reads: JSON objects and arrays, XML elements and the node
 * trees parsed from them. Much of Cairn walks trees recursively (schemas, exports, snapshots,
 * the optimizer), so input nested far deeper than any real screen is refused where it is read,
 * with where it is, instead of exhausting the stack later.
 *
 * @module
 */
import type { UiNode } from "../screens/mod.ts";

/**
 * The deepest nesting read: 1,000 levels. Real data stays far below it: the deepest hierarchy of
 * the shared corpus is 24 XML elements (Android) and 31 JSON levels (a Trailblaze waypoint),
 * and Chromium's HTML parser stops nesting elements at 512.
 */
export const MAX_NESTING = 1000;

/** Path segments shown before an ellipsis in a message. */
const SHOWN_SEGMENTS = 5;

/**
 * Finds where a parsed JSON value nests deeper than {@linkcode MAX_NESTING} objects and arrays.
 *
 * @param value parsed JSON
 * @returns undefined when the value is within the limit, else the problem: the path of the first
 *   object or array below the limit, its first segments joined with dots and `…`, and the limit
 *   (`actions.0.toolParams.a.0…: nested deeper than 1000 levels`)
 * @example
 * ```ts
 * if (jsonNestingError({ a: [[1]] }) !== undefined) throw new Error();
 * let deep: unknown = [];
 * for (let i = 0; i < 2000; i++) deep = [deep];
 * if (jsonNestingError({ a: deep }) !== "a.0.0.0.0…: nested deeper than 1000 levels") throw new Error();
 * ```
 */
export function jsonNestingError(value: unknown): string | undefined {
  // iterative (an explicit stack of frames, depth first), so no input can overflow the call
  // stack: a frame is an object or array and the keys of it still to visit
  if (value === null || typeof value !== "object") return undefined;
  const frames: { keys: (string | number)[]; next: number; v: Record<string, unknown> }[] = [];
  const push = (v: object) =>
    frames.push({
      v: v as Record<string, unknown>,
      keys: Array.isArray(v) ? v.map((_, i) => i) : Object.keys(v),
      next: 0,
    });
  push(value);
  let deep = false;
  while (frames.length > 0) {
    const top = frames[frames.length - 1]!;
    if (top.next >= top.keys.length) {
      frames.pop();
      continue;
    }
    const child = top.v[top.keys[top.next++]!];
    if (child === null || typeof child !== "object") continue;
    if (frames.length >= MAX_NESTING) {
      deep = true;
      break;
    }
    push(child);
  }
  if (!deep) return undefined;
  const path = frames.map((f) => f.keys[f.next - 1]!);
  const more = path.length > SHOWN_SEGMENTS ? "…" : "";
  return `${
    path.slice(0, SHOWN_SEGMENTS).join(".")
  }${more}: nested deeper than ${MAX_NESTING} levels`;
}

/**
 * Whether a node tree is deeper than {@linkcode MAX_NESTING} levels (the root is level 1).
 *
 * @param root the tree
 * @returns true when some node is below the limit
 */
export function treeTooDeep(root: UiNode): boolean {
  const stack: [UiNode, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > MAX_NESTING) return true;
    for (const c of node.children) stack.push([c, depth + 1]);
  }
  return false;
}
