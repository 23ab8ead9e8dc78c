/**
 * Which iOS node an action acted on, under heuristics v2 (the resolve pass calls it after v1's
 * hit test and climb): a tap, or typing, goes to the interactive node drawn on top at the point
 * (`ScreenTable.hitTestTop` with `interactive`), not a deeper, empty layer of an earlier sibling
 * drawn beneath it — a web view's full-size layers under Safari's address bar, an alert's
 * layers under its button. iOS draws siblings in document order (a later one on top).
 *
 * Interactive (`F_INTERACTIVE`): on XCUITest page source the element types a person taps or
 * types into (`IOS_INTERACTIVE_TYPES` of engine/screens/parse_ios.ts, the nodes it marks clickable:
 * Button, Link, Cell, Switch, Toggle, TextField, SecureTextField, SearchField, TextView, Slider,
 * Stepper, SegmentedControl, Key, Tab, MenuItem, PickerWheel, CheckBox, RadioButton,
 * PageIndicator — not Image, StaticText or Other, a label is no control); on Maestro and
 * Trailblaze iOS trees, which name no element type and no clickable, the nodes with a label or
 * an id of their own that are leaves (accessibility elements) or hold a labelled node (a row
 * with its title inside) — not a labelled node over unlabelled children only (a scroll bar and
 * its thumb).
 *
 * v1's choice stays when it is something a person sees or touches inside that node (a nested
 * control, a label), when such a thing is drawn over it, or when the interactive node covers it
 * whole and does not hold it (a dismiss region); an unlabelled container draws nothing, so an
 * empty layer listed later (a table's frame under the navigation bar) or a row's own
 * background gives way to the control.
 *
 * @module
 */
import type { ScreenTable } from "../screens/mod.ts";
import type { TrailActionKind } from "../trail/mod.ts";
import type { Bounds, Point } from "../screens/mod.ts";
import { type AndroidTarget, describe } from "./android_target.ts";

const TAP_KINDS = new Set<TrailActionKind>(["tap", "doubleTap", "longPress", "check"]);

/** What {@linkcode iosTarget} decided: the node acted on, and a note when it changed. */
export type IosTarget = AndroidTarget;

/**
 * The node an iOS action acted on, from the node v1's hit test and climb chose.
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
 * const layer = makeNode({ className: "XCUIElementTypeOther", bounds: { x: 0, y: 0, w: 100, h: 100 } });
 * const web = makeNode({ className: "XCUIElementTypeWebView", bounds: { x: 0, y: 0, w: 100, h: 100 },
 *   children: [makeNode({ className: "XCUIElementTypeOther", bounds: { x: 0, y: 0, w: 100, h: 100 }, children: [layer] })] });
 * const field = makeNode({ className: "XCUIElementTypeTextField", clickable: true, contentDescription: "Address",
 *   bounds: { x: 10, y: 80, w: 80, h: 20 } });
 * const t = ScreenTable.from(makeNode({ className: "XCUIElementTypeWindow", bounds: { x: 0, y: 0, w: 100, h: 100 }, children: [web, field] }));
 * const hit = t.hitTest({ x: 50, y: 90 });
 * if (t.node(hit) !== layer) throw new Error(); // deepest
 * if (iosTarget(t, hit, { x: 50, y: 90 }, "tap").node !== t.indexOf(field)) throw new Error();
 * ```
 */
export function iosTarget(
  table: ScreenTable,
  hit: number,
  point: Point,
  kind: TrailActionKind,
): IosTarget {
  const what = TAP_KINDS.has(kind) ? "tap" : kind === "inputText" ? "input" : undefined;
  if (what === undefined) return { node: hit };
  const top = table.hitTestTop(point, { interactive: true });
  if (top < 0 || top === hit) return { node: hit };
  if (hit > top && hit < table.subtreeEnd(top)) {
    if (shows(table, hit)) return { node: hit }; // a control or a label within it
  } else {
    const deepest = table.hitTest(point);
    if (
      deepest >= 0 && table.paintRank(deepest) > table.paintRank(top) && shows(table, deepest)
    ) return { node: hit }; // drawn over it
    if (covers(table.node(top).bounds, table.node(hit).bounds)) return { node: hit };
  }
  return {
    node: top,
    note: `${what} target: the interactive ${describe(table.node(top))} drawn on top at the ` +
      `point, not the ${describe(table.node(hit))} under it`,
  };
}

/**
 * Whether a node is something a person sees or touches: one with a label, or an interactive
 * one. An unlabelled `Other` is an accessibility container, listed in accessibility order, not
 * drawing order (Contacts lists its table, whose frame runs under the navigation bar, after the
 * bar), or a row's background: it draws nothing that takes the touch from the control.
 */
function shows(table: ScreenTable, i: number): boolean {
  const n = table.node(i);
  if (n.text !== undefined || n.contentDescription !== undefined) return true;
  return table.hasFlags(i, { interactive: true });
}

function covers(outer: Bounds, inner: Bounds): boolean {
  return outer.x <= inner.x && outer.y <= inner.y && outer.x + outer.w >= inner.x + inner.w &&
    outer.y + outer.h >= inner.y + inner.h;
}
