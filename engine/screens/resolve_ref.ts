/**
 * Resolving refs (`k42`) back to nodes and coordinates, and the ref-based actions:
 * tap, type, assert visible, scroll in a direction. Resolution reads the same walk as the
 * renderer (`snapshotTree`), so a ref shown is a ref that resolves. Refs are scoped to the
 * screen that showed them: a recording stores the resolved node and point, never the ref.
 *
 * @module
 */
import { isTextField } from "./refs.ts";
import { type SnapshotEntry, snapshotTree } from "./snapshot_tree.ts";
import type { Bounds, Point, Screen, UiNode } from "./ui_node.ts";

/** A ref resolved on one screen. */
export interface ResolvedRef {
  ref: string;
  node: UiNode;
  /** Centre of the node's on-screen part (its full centre when wholly off screen). */
  point: Point;
  /** Off the screen or hidden (then not actionable). */
  offscreen: boolean;
  hidden: boolean;
}

export { isTextField };

/** The syntax of a ref: a letter, one to three digits, an optional collision suffix. */
export const REF_PATTERN: RegExp = /^[a-z][0-9]{1,3}[a-z]*$/;

/**
 * Resolves a ref shown by `renderSnapshot` on the same screen.
 *
 * @param screen the screen the snapshot was rendered from
 * @param ref the ref, e.g. `k42` or `k42b` (a leading `@` or `ref=` is accepted)
 * @returns the node, the point to act at and whether it is on screen
 * @throws {SyntaxError} when `ref` is not of the ref form
 * @throws {RangeError} when no node on this screen has the ref
 * @example
 * ```ts
 * import { makeNode } from "./ui_node.ts";
 * import { snapshotTree } from "./snapshot_tree.ts";
 * const screen = { platform: "android" as const, format: "uiautomator2" as const, width: 100, height: 100,
 *   root: makeNode({ className: "android.widget.Button", text: "OK", bounds: { x: 0, y: 0, w: 40, h: 20 } }) };
 * const ref = snapshotTree(screen).entries[0]!.ref;
 * if (resolveRef(screen, ref).point.x !== 20) throw new Error();
 * ```
 */
export function resolveRef(screen: Screen, ref: string): ResolvedRef {
  const entry = findEntry(screen, ref);
  return {
    ref: entry.ref,
    node: entry.node,
    point: visibleCenter(entry.node.bounds, screen),
    offscreen: entry.offscreen,
    hidden: entry.hidden,
  };
}

function findEntry(screen: Screen, raw: string): SnapshotEntry {
  const ref = raw.trim().replace(/^(@|ref=)/, "");
  if (!REF_PATTERN.test(ref)) {
    throw new SyntaxError(
      `Invalid ref ${JSON.stringify(raw)}: expected a letter and 1-3 digits (k42, k42b)`,
    );
  }
  const entry = snapshotTree(screen).byRef.get(ref);
  if (!entry) {
    throw new RangeError(
      `Cannot resolve ref ${ref}: no element on this screen has it (refs are scoped to the snapshot that showed them)`,
    );
  }
  return entry;
}

function visibleCenter(b: Bounds, screen: Screen): Point {
  const x1 = Math.max(b.x, 0), y1 = Math.max(b.y, 0);
  const x2 = Math.min(b.x + b.w, screen.width), y2 = Math.min(b.y + b.h, screen.height);
  if (x2 <= x1 || y2 <= y1) return { x: Math.round(b.x + b.w / 2), y: Math.round(b.y + b.h / 2) };
  return { x: Math.round((x1 + x2) / 2), y: Math.round((y1 + y2) / 2) };
}

/** A scroll or swipe direction. */
export type RefDirection = "up" | "down" | "left" | "right";

/** An action on a ref (`tap ref=…`, `type ref=… text=…`, `assert ref=… visible`, `scroll ref=… direction=…`). */
export type RefAction =
  | { kind: "tap"; ref: string }
  | { kind: "type"; ref: string; text: string }
  | { kind: "assertVisible"; ref: string }
  | { kind: "scroll"; ref: string; direction: RefDirection };

/** A ref action resolved to a node and coordinates: what a driver executes and a recording stores. */
export type ResolvedRefAction =
  | { kind: "tap"; ref: string; node: UiNode; point: Point }
  | { kind: "type"; ref: string; node: UiNode; point: Point; text: string }
  | { kind: "assertVisible"; ref: string; node: UiNode; point: Point; visible: boolean }
  | { kind: "scroll"; ref: string; node: UiNode; point: Point; direction: RefDirection };

function findEditable(root: UiNode): UiNode | undefined {
  if (isTextField(root)) return root;
  const found: UiNode[] = [];
  const stack = [...root.children];
  while (stack.length > 0 && found.length < 2) {
    const n = stack.pop()!;
    if (isTextField(n)) found.push(n);
    else stack.push(...n.children);
  }
  return found.length === 1 ? found[0] : undefined;
}

/**
 * Resolves a ref-based action to a node and coordinates.
 *
 * - `tap`: the centre of the node's on-screen part.
 * - `type`: the node, or its one editable descendant (a text field inside a labelled row).
 * - `assertVisible`: never throws for an off-screen node; `visible` says the outcome.
 * - `scroll`: the nearest scrollable entry at or above the ref (else the whole screen).
 *
 * @param screen the screen the snapshot was rendered from
 * @param action the action naming a ref
 * @returns the resolved action
 * @throws {SyntaxError} for a malformed ref
 * @throws {RangeError} for an unknown ref, or a tap or type on a node that is off screen or
 *   hidden, or a type on a node that is not editable
 */
export function resolveRefAction(screen: Screen, action: RefAction): ResolvedRefAction {
  const entry = findEntry(screen, action.ref);
  const ref = entry.ref;
  const node = entry.node;
  const point = visibleCenter(node.bounds, screen);
  switch (action.kind) {
    case "assertVisible":
      return { kind: "assertVisible", ref, node, point, visible: !entry.offscreen };
    case "tap":
      requireOnScreen(entry, "tap");
      return { kind: "tap", ref, node, point };
    case "type": {
      requireOnScreen(entry, "type into");
      const target = findEditable(node);
      if (!target) {
        throw new RangeError(
          `Cannot type into ${ref}: it is a ${node.className}, not a text field, and holds no single text field`,
        );
      }
      return {
        kind: "type",
        ref,
        node: target,
        point: visibleCenter(target.bounds, screen),
        text: action.text,
      };
    }
    case "scroll": {
      let e: SnapshotEntry | undefined = entry;
      while (e && !e.node.scrollable) e = e.parent;
      const container = e?.node;
      const target = container ?? screen.root;
      const bounds = container ? target.bounds : { x: 0, y: 0, w: screen.width, h: screen.height };
      return {
        kind: "scroll",
        ref,
        node: target,
        point: visibleCenter(bounds, screen),
        direction: action.direction,
      };
    }
    default: {
      const never: never = action;
      throw new TypeError(`Unknown ref action ${JSON.stringify(never)}`);
    }
  }
}

function requireOnScreen(entry: SnapshotEntry, verb: string): void {
  if (entry.hidden) throw new RangeError(`Cannot ${verb} ${entry.ref}: the element is hidden`);
  if (entry.offscreen) {
    throw new RangeError(
      `Cannot ${verb} ${entry.ref}: the element is off screen (scroll to it first)`,
    );
  }
}
