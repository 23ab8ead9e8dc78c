/**
 * Which Android node an action acted on, under heuristics v2 (the resolve pass calls it after
 * v1's hit test and climb): a tap whose climb found no clickable ancestor stops at an accessible
 * one (focusable with a label or an id of its own: a React Native touchable), and a tap goes to
 * the clickable node drawn on top at the point when that is not the node v1 found or one it lies
 * in (a button drawn over a list, `drawing-order`; a later sibling over a list); typing goes to the
 * editable field under the point, not a floating label over it; a scroll or swipe acts on the
 * scrollable container under the point, or on the screen when there is none.
 *
 * @module
 */
import type { ScreenTable } from "../screens/mod.ts";
import type { TrailActionKind } from "../trail/mod.ts";
import type { Bounds, Point, UiNode } from "../screens/mod.ts";
import { generatedIdReason } from "./generated.ts";
import { isEditable } from "./selectors.ts";

const TAP_KINDS = new Set<TrailActionKind>(["tap", "doubleTap", "longPress", "check"]);
const SCROLL_KINDS = new Set<TrailActionKind>(["scroll", "swipe"]);
const MAX_CLIMB = 3; // as the resolve pass's climb: further up is a container, not the control

/** What {@linkcode androidTarget} decided. */
export interface AndroidTarget {
  /** The node acted on; undefined for a swipe of the whole screen. */
  node: number | undefined;
  /** Why it differs from the node given, for `--explain`. */
  note?: string;
}

/**
 * The node an Android action acted on, from the node v1's hit test and climb chose.
 *
 * @param table the screen captured before the action
 * @param hit the node v1 chose (the hit, or the clickable ancestor a tap climbed to)
 * @param point the point acted on
 * @param kind the action's kind
 * @returns the node (and a note when it changed)
 * @example
 * ```ts
 * import { ScreenTable } from "../screens/screen_table.ts";
 * import { makeNode } from "../screens/ui_node.ts";
 * const edit = makeNode({ className: "android.widget.EditText", bounds: { x: 0, y: 0, w: 100, h: 40 } });
 * const label = makeNode({ className: "android.view.View", text: "Email", bounds: { x: 0, y: 0, w: 50, h: 20 } });
 * const t = ScreenTable.from(makeNode({ className: "hierarchy", bounds: { x: 0, y: 0, w: 100, h: 40 }, children: [edit, label] }));
 * if (androidTarget(t, t.indexOf(label), { x: 10, y: 10 }, "inputText").node !== t.indexOf(edit)) throw new Error();
 * ```
 */
export function androidTarget(
  table: ScreenTable,
  hit: number,
  point: Point,
  kind: TrailActionKind,
): AndroidTarget {
  if (TAP_KINDS.has(kind)) return drawnOnTop(table, accessibleAncestor(table, hit), point);
  if (kind === "inputText") return editableField(table, hit, point);
  if (SCROLL_KINDS.has(kind)) return scrollContainer(table, hit, point);
  return { node: hit };
}

/**
 * A node as a note names it: its class and its label (description, else text, else id).
 *
 * @param n the node
 * @returns `Class "label"`
 */
export function describe(n: UiNode): string {
  const label = n.contentDescription ?? n.text ?? n.resourceId;
  return `${n.className}${label !== undefined ? ` ${JSON.stringify(label)}` : ""}`;
}

/** Has the node a label or an authored id of its own (what TalkBack or Appium names it by)? */
function hasIdentity(n: UiNode, table: ScreenTable): boolean {
  if (n.contentDescription) return true;
  const id = n.testId ?? n.resourceId;
  return id !== undefined && generatedIdReason(id, { level: 2, screen: table }) === undefined;
}

/**
 * A tap on a node with no clickable ancestor near it (v1 kept the hit): the nearest ancestor
 * that is focusable and named (React Native marks its touchables `focusable` and `accessible`,
 * not always `clickable`), so the tap is named by the control (`loginBtn`), not its label.
 */
function accessibleAncestor(table: ScreenTable, hit: number): AndroidTarget {
  if (table.node(hit).clickable) return { node: hit };
  for (const i of [hit, ...table.ancestors(hit).slice(0, MAX_CLIMB)]) {
    const n = table.node(i);
    if (n.clickable || n.scrollable) return { node: hit }; // a list is no control: stop below
    if (n.attrs?.focusable === "true" && hasIdentity(n, table)) {
      return i === hit ? { node: hit } : {
        node: i,
        note: `tap target: the accessible ancestor ${describe(n)} (focusable, named)`,
      };
    }
  }
  return { node: hit };
}

/**
 * Android hands a touch to the topmost view that takes it: a clickable node drawn over the
 * deepest node at the point (a higher paint rank, `ScreenTable.hitTestTop`) gets the tap — a
 * floating button over a full-screen list, a field over its floating label. The node chosen so
 * far stays when it lies inside that clickable node (a control within it), when it is drawn over
 * it (a sheet's text over the clickable scrim beneath), or when the clickable node covers it
 * whole (a dialog's dismiss barrier, which dumps list after the dialog: a catch-all, not the
 * control the agent aimed at).
 */
function drawnOnTop(table: ScreenTable, chosen: AndroidTarget, point: Point): AndroidTarget {
  const d = chosen.node;
  const top = table.hitTestTop(point, { clickable: true });
  if (d === undefined || top < 0 || top === d) return chosen;
  if (d > top && d < table.subtreeEnd(top)) return chosen;
  const deepest = table.hitTest(point);
  if (deepest >= 0 && table.paintRank(deepest) > table.paintRank(top)) return chosen;
  if (covers(table.node(top).bounds, table.node(d).bounds)) return chosen;
  return {
    node: top,
    note: `tap target: the clickable ${describe(table.node(top))} drawn on top at the point, ` +
      `not the ${describe(table.node(d))} under it`,
  };
}

function covers(outer: Bounds, inner: Bounds): boolean {
  return outer.x <= inner.x && outer.y <= inner.y && outer.x + outer.w >= inner.x + inner.w &&
    outer.y + outer.h >= inner.y + inner.h;
}

function contains(n: UiNode, p: Point): boolean {
  const b = n.bounds;
  return p.x >= b.x && p.x < b.x + b.w && p.y >= b.y && p.y < b.y + b.h;
}

/**
 * Typing goes into a field: the editable node under the point (the deepest, then the smallest),
 * else the one editable field inside the hit (a text-input layout hit on its padding); else the
 * hit.
 */
function editableField(table: ScreenTable, hit: number, point: Point): AndroidTarget {
  if (isEditable(table.node(hit))) return { node: hit };
  let best = -1;
  for (let i = 0; i < table.size; i++) {
    const n = table.node(i);
    if (!n.visible || !isEditable(n) || !contains(n, point)) continue;
    if (
      best < 0 || table.depth(i) > table.depth(best) ||
      (table.depth(i) === table.depth(best) &&
        n.bounds.w * n.bounds.h < table.node(best).bounds.w * table.node(best).bounds.h)
    ) best = i;
  }
  if (best < 0) {
    const fields: number[] = [];
    for (let i = hit + 1; i < table.subtreeEnd(hit) && fields.length < 2; i++) {
      if (isEditable(table.node(i))) fields.push(i);
    }
    if (fields.length === 1) best = fields[0]!;
  }
  if (best < 0) return { node: hit };
  return {
    node: best,
    note: `input target: the editable ${describe(table.node(best))}, not the ${
      describe(table.node(hit))
    } over it`,
  };
}

/** Classes that scroll even when a dump says `scrollable="false"` (a list at rest, Gmail's). */
const SCROLLING_CLASS = /(RecyclerView|ListView|GridView|ScrollView|ViewPager)$/;

function scrolls(n: UiNode): boolean {
  return n.scrollable || SCROLLING_CLASS.test(n.className);
}

/**
 * A scroll or swipe acts on the scrollable container under the point (the hit or its nearest
 * scrolling ancestor, else the deepest scrolling node containing the point): a row that scrolls
 * away is no anchor. With none, it is a swipe of the screen (no selector).
 */
function scrollContainer(table: ScreenTable, hit: number, point: Point): AndroidTarget {
  let found = [hit, ...table.ancestors(hit)].find((i) => scrolls(table.node(i)));
  if (found === undefined) {
    for (let i = 0; i < table.size; i++) {
      const n = table.node(i);
      if (!scrolls(n) || !n.visible || !contains(n, point)) continue;
      if (found === undefined || table.depth(i) > table.depth(found)) found = i;
    }
  }
  if (found === undefined) {
    return { node: undefined, note: "no scrollable container under the point: a screen swipe" };
  }
  return found === hit ? { node: hit } : {
    node: found,
    note: `scroll target: the scrollable container ${describe(table.node(found))}`,
  };
}
