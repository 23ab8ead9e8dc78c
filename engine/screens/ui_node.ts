/**
 * The one normalized UI node of every platform (docs/architecture.md "Node model and refs").
 *
 * Parsers of UiAutomator2 / `uiautomator dump` XML, Appium XCUITest XML, Maestro hierarchy JSON
 * and Cairn's joined Chrome hierarchy all produce this shape; every other module reads only it.
 *
 * Coordinates are in the screen's own pixel space: device pixels on Android and iOS, CSS
 * pixels relative to the viewport on the web.
 *
 * @module
 */
import { z } from "zod";

/** A rectangle: left, top, width and height. */
export const Bounds = z.object({
  x: z.number(),
  y: z.number(),
  w: z.number(),
  h: z.number(),
});
export type Bounds = z.infer<typeof Bounds>;

/** A point on a screen. */
export const Point = z.object({ x: z.number(), y: z.number() });
export type Point = z.infer<typeof Point>;

/** The platforms Cairn captures and replays. */
export const Platform = z.enum(["web", "android", "ios"]);
export type Platform = z.infer<typeof Platform>;

/** Raw hierarchy formats Cairn parses. */
export const HierarchyFormat = z.enum([
  "uiautomator2", // Appium UiAutomator2 page source: tags are class names
  "uiautomator-dump", // `adb shell uiautomator dump`: `<node>` tags
  "xcuitest", // Appium XCUITest page source
  "maestro", // Maestro hierarchy JSON
  "chrome", // Cairn's joined CDP hierarchy (see engine/screens/chrome_hierarchy.ts)
  "axtree_v1", // recording_v1 AX snapshot (node list with children ids)
  "trailblaze", // Trailblaze waypoint capture (`*.example.json` with a `viewHierarchy`)
]);
export type HierarchyFormat = z.infer<typeof HierarchyFormat>;

/** One node. Flags are always present; absent strings are omitted, never empty. */
export interface UiNode {
  /** Native class name (`android.widget.Button`, `XCUIElementTypeButton`) or, on the web, the ARIA role. */
  className: string;
  /** Displayed text (Android `text`, iOS `value`/`label` of static text, web visible text). */
  text?: string;
  /** Android resource-id, DOM id, iOS accessibility identifier (`name`). */
  resourceId?: string;
  /** Test id (`data-testid` family on the web; bare Compose testTag / RN testID on Android). */
  testId?: string;
  /** Android content-desc, iOS accessibility label, web aria-label. */
  contentDescription?: string;
  /** ARIA role (web) or a role derived from the class (mobile). */
  role?: string;
  /** Accessible name. */
  name?: string;
  /** Hint or placeholder. */
  hint?: string;
  /** Current value (inputs, sliders). */
  value?: string;
  bounds: Bounds;
  clickable: boolean;
  enabled: boolean;
  focused: boolean;
  checked: boolean;
  checkable: boolean;
  selected: boolean;
  scrollable: boolean;
  password: boolean;
  visible: boolean;
  /** Other raw attributes worth keeping (package, tag, css path, class list, input type, href). */
  attrs?: Record<string, string>;
  children: UiNode[];
}

/** A parsed screen: the root node plus what is known of the display. */
export interface Screen {
  platform: Platform;
  format: HierarchyFormat;
  root: UiNode;
  /** Screen or viewport size in the same pixel space as the bounds. */
  width: number;
  height: number;
  url?: string;
}

/** Fields of a node a caller may set; flags default to false, except enabled and visible (true). */
export type UiNodeInit = Partial<Omit<UiNode, "className" | "bounds" | "children">> & {
  className: string;
  bounds?: Bounds;
  children?: UiNode[];
};

/**
 * Builds a node with every flag set, dropping empty strings.
 *
 * @param init the fields known of the node
 * @returns a complete node
 * @example
 * ```ts
 * const n = makeNode({ className: "android.widget.Button", text: "OK" });
 * if (n.enabled !== true || n.clickable !== false) throw new Error();
 * ```
 */
export function makeNode(init: UiNodeInit): UiNode {
  const node: UiNode = {
    className: init.className,
    bounds: init.bounds ?? { x: 0, y: 0, w: 0, h: 0 },
    clickable: init.clickable ?? false,
    enabled: init.enabled ?? true,
    focused: init.focused ?? false,
    checked: init.checked ?? false,
    checkable: init.checkable ?? false,
    selected: init.selected ?? false,
    scrollable: init.scrollable ?? false,
    password: init.password ?? false,
    visible: init.visible ?? true,
    children: init.children ?? [],
  };
  for (const key of STRING_FIELDS) {
    const v = init[key];
    if (typeof v === "string" && v !== "") node[key] = v;
  }
  if (init.attrs && Object.keys(init.attrs).length > 0) node.attrs = init.attrs;
  return node;
}

/** The flags of a node, each always present, in the order a node holds them. */
export const FLAG_FIELDS = [
  "clickable",
  "enabled",
  "focused",
  "checked",
  "checkable",
  "selected",
  "scrollable",
  "password",
  "visible",
] as const;
export type FlagField = typeof FLAG_FIELDS[number];

/** The optional string fields of a node, in a fixed order (used by hashing and selectors). */
export const STRING_FIELDS = [
  "text",
  "resourceId",
  "testId",
  "contentDescription",
  "role",
  "name",
  "hint",
  "value",
] as const;
export type StringField = typeof STRING_FIELDS[number];

/**
 * Walks a tree depth-first in document order (pre-order).
 *
 * @param root the tree
 * @returns an iterator of `[node, depth, parent]`
 */
export function* walk(
  root: UiNode,
): Generator<[node: UiNode, depth: number, parent: UiNode | undefined]> {
  const stack: [UiNode, number, UiNode | undefined][] = [[root, 0, undefined]];
  while (stack.length > 0) {
    const [node, depth, parent] = stack.pop()!;
    yield [node, depth, parent];
    for (let i = node.children.length - 1; i >= 0; i--) {
      stack.push([node.children[i]!, depth + 1, node]);
    }
  }
}

/** The center of a node's bounds, rounded to whole pixels. */
export function center(bounds: Bounds): Point {
  return { x: Math.round(bounds.x + bounds.w / 2), y: Math.round(bounds.y + bounds.h / 2) };
}
