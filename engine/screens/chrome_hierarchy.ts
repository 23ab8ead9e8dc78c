/**
 * Cairn's Chrome hierarchy (`schema_version: "cairn.chrome/v1"`): the CDP accessibility tree
 * (`Accessibility.getFullAXTree`) joined by `backendDOMNodeId` with the DOM attributes Cairn
 * selects on and the layout boxes of `DOMSnapshot.captureSnapshot`, plus the page's url,
 * viewport, device pixel ratio and scroll. Shadow DOM is pierced; iframes are out of scope.
 *
 * `joinChromeHierarchy` (`engine/screens/chrome_join.ts`) builds it from the raw CDP results (pure, no
 * I/O: the capture is in `drivers/chrome/hierarchy.ts`); `parseChromeHierarchy` turns it into a
 * {@linkcode Screen}.
 *
 * Shape, one flat pre-order node list (`nodes[0]` is the root web area):
 * ```json
 * { "schema_version": "cairn.chrome/v1", "url": "http://…", "title": "…",
 *   "viewport": { "width": 1280, "height": 720 }, "devicePixelRatio": 1,
 *   "scroll": { "x": 0, "y": 0 },
 *   "nodes": [ { "role": "RootWebArea", "name": "…", "children": [1, 4] },
 *              { "role": "button", "name": "Save", "states": ["focusable"], "tag": "button",
 *                "dom": { "id": "save", "data-testid": "save-btn" }, "cssPath": "#save",
 *                "bounds": [8, 100, 80, 30], "clickable": true } ] }
 * ```
 * `bounds` are `[x, y, w, h]` in CSS pixels of the document (the parser subtracts `scroll` to get
 * viewport coordinates).
 *
 * @module
 */
import { z } from "zod";
import { parseJsonAt } from "./_parse_util.ts";
import { type Bounds, makeNode, type Screen, type UiNode, type UiNodeInit } from "./ui_node.ts";

/** The schema version of the joined JSON. */
export const CHROME_SCHEMA_VERSION = "cairn.chrome/v1";

/** DOM attributes kept on a node (authored selectors and what a test reads). */
export const CHROME_DOM_ATTRIBUTES = [
  "id",
  "data-testid",
  "data-test-id",
  "data-test",
  "data-qa",
  "data-cy",
  "name",
  "placeholder",
  "type",
  "aria-label",
  "href",
  "class",
  "role",
  "title",
  "alt",
  "for",
  "autocomplete",
  "data-sensitive",
] as const; // never `value`: an input's value attribute may hold a password (the AX value is masked)

/** Test-id attributes, most specific first. */
export const TEST_ID_ATTRIBUTES = [
  "data-testid",
  "data-test-id",
  "data-test",
  "data-qa",
  "data-cy",
] as const;

/** One node of the joined hierarchy. */
export const ChromeNode = z.object({
  /** ARIA role as Chrome computes it (`button`, `link`, `StaticText`, `RootWebArea`, …). */
  role: z.string(),
  name: z.string().optional(),
  value: z.string().optional(),
  description: z.string().optional(),
  /**
   * The text of a generic element carrying an id or test id whose only DOM child is a text
   * node (the text node is folded into it: `<span data-testid="cart-count">3</span>`).
   */
  text: z.string().optional(),
  /** True AX states: focused, focusable, disabled, checked, mixed, unchecked, selected, expanded, collapsed, pressed, required, readonly, editable, modal, multiline. */
  states: z.array(z.string()).optional(),
  /** Heading level. */
  level: z.number().optional(),
  backendNodeId: z.number().optional(),
  /** Lower-case tag of the DOM element, `#text` for text nodes. */
  tag: z.string().optional(),
  /** The DOM attributes of {@linkcode CHROME_DOM_ATTRIBUTES} present on the element. */
  dom: z.record(z.string(), z.string()).optional(),
  cssPath: z.string().optional(),
  /** `[x, y, w, h]`, CSS pixels, document coordinates. */
  bounds: z.tuple([z.number(), z.number(), z.number(), z.number()]).optional(),
  clickable: z.boolean().optional(),
  scrollable: z.boolean().optional(),
  /** Indices of the children in `nodes` (each greater than this node's index). */
  children: z.array(z.number().int()).optional(),
});
export type ChromeNode = z.infer<typeof ChromeNode>;

/** The joined hierarchy of one page. */
export const ChromeHierarchy = z.object({
  schema_version: z.literal(CHROME_SCHEMA_VERSION),
  url: z.string(),
  title: z.string().optional(),
  viewport: z.object({ width: z.number().positive(), height: z.number().positive() }),
  devicePixelRatio: z.number().positive(),
  scroll: z.object({ x: z.number(), y: z.number() }),
  nodes: z.array(ChromeNode).min(1),
});
export type ChromeHierarchy = z.infer<typeof ChromeHierarchy>;

/** Roles a user acts on (clickable even without a DOM click listener). */
const INTERACTIVE_ROLES = new Set([
  "button",
  "link",
  "checkbox",
  "radio",
  "switch",
  "textbox",
  "searchbox",
  "combobox",
  "listbox",
  "option",
  "menuitem",
  "menuitemcheckbox",
  "menuitemradio",
  "tab",
  "slider",
  "spinbutton",
  "treeitem",
  "ComboBoxSelect",
  "ComboBoxMenuButton",
]);

/**
 * Parses a Cairn Chrome hierarchy (JSON text or parsed value) into a screen in viewport CSS
 * pixels: className is the ARIA role, `resourceId` the DOM id, `testId` the first
 * `data-testid`-family attribute, `contentDescription` the aria-label, `hint` the
 * placeholder; `attrs` carries `tag`, `cssPath`, `class`, `type`, `href`, `name`.
 *
 * @param input the JSON text, or the parsed object
 * @returns the screen
 * @throws {SyntaxError} on malformed JSON (line and column) or a shape error (the field path)
 * @example
 * ```ts
 * const s = parseChromeHierarchy({ schema_version: "cairn.chrome/v1", url: "http://x/", viewport: { width: 800, height: 600 }, devicePixelRatio: 1, scroll: { x: 0, y: 100 }, nodes: [{ role: "RootWebArea", children: [1] }, { role: "button", name: "Go", bounds: [10, 150, 50, 20] }] });
 * if (s.root.children[0]?.bounds.y !== 50) throw new Error();
 * ```
 */
export function parseChromeHierarchy(input: string | unknown): Screen {
  const data = typeof input === "string" ? parseJsonAt(input, "Chrome hierarchy") : input;
  const parsed = ChromeHierarchy.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SyntaxError(
      `Invalid Chrome hierarchy at ${issue.path.join(".") || "(root)"}: ${issue.message}`,
    );
  }
  return chromeHierarchyToScreen(parsed.data);
}

/**
 * Turns an already typed Chrome hierarchy (from `captureChromeHierarchy`, or validated by
 * {@linkcode ChromeHierarchy}) into a screen, without validating it again.
 *
 * @param h the hierarchy
 * @returns the screen
 * @throws {SyntaxError} when a node's children are not later, parentless nodes
 */
export function chromeHierarchyToScreen(h: ChromeHierarchy): Screen {
  const { x: sx, y: sy } = h.scroll;
  const count = h.nodes.length;
  const built: UiNode[] = new Array(count);
  const hasParent = new Uint8Array(count);
  // Children have larger indices than their parent: build from the end.
  for (let i = count - 1; i >= 0; i--) {
    const c = h.nodes[i]!;
    const children: UiNode[] = [];
    for (const k of c.children ?? []) {
      if (!(k > i && k < count) || hasParent[k]) {
        throw new SyntaxError(
          `Invalid Chrome hierarchy at nodes.${i}.children: ${k} is not a later node without a parent`,
        );
      }
      hasParent[k] = 1;
      children.push(built[k]!);
    }
    built[i] = chromeToUiNode(c, children, sx, sy);
  }
  const root = built[0]!;
  root.bounds = { x: 0, y: 0, w: h.viewport.width, h: h.viewport.height };
  root.visible = true;
  const screen: Screen = {
    platform: "web",
    format: "chrome",
    root,
    width: h.viewport.width,
    height: h.viewport.height,
  };
  screen.url = h.url;
  return screen;
}

function unionBounds(children: UiNode[]): Bounds | undefined {
  let x1 = Infinity, y1 = Infinity, x2 = -Infinity, y2 = -Infinity;
  for (const c of children) {
    if (!c.visible || c.bounds.w <= 0 || c.bounds.h <= 0) continue;
    x1 = Math.min(x1, c.bounds.x);
    y1 = Math.min(y1, c.bounds.y);
    x2 = Math.max(x2, c.bounds.x + c.bounds.w);
    y2 = Math.max(y2, c.bounds.y + c.bounds.h);
  }
  return x1 === Infinity ? undefined : { x: x1, y: y1, w: x2 - x1, h: y2 - y1 };
}

function chromeToUiNode(c: ChromeNode, children: UiNode[], sx: number, sy: number): UiNode {
  const states = new Set(c.states ?? []);
  const dom = c.dom ?? {};
  let bounds: Bounds | undefined = c.bounds
    ? { x: c.bounds[0] - sx, y: c.bounds[1] - sy, w: c.bounds[2], h: c.bounds[3] }
    : undefined;
  let visible = bounds !== undefined && bounds.w > 0 && bounds.h > 0;
  if (!visible) {
    const u = unionBounds(children);
    if (u) {
      bounds = u;
      visible = true;
    }
  }
  const attrs: Record<string, string> = {};
  if (c.tag) attrs.tag = c.tag;
  if (c.cssPath) attrs.cssPath = c.cssPath;
  for (
    const k of [
      "class",
      "type",
      "href",
      "name",
      "title",
      "alt",
      "for",
      "role",
      "autocomplete",
      "data-sensitive",
    ] as const
  ) {
    const v = dom[k];
    if (v !== undefined) attrs[k] = v;
  }
  const testAttr = TEST_ID_ATTRIBUTES.find((a) => dom[a] !== undefined);
  if (testAttr) attrs.testIdAttribute = testAttr;
  if (c.description) attrs.description = c.description;
  if (c.level !== undefined) attrs.level = String(c.level);
  if (states.has("expanded")) attrs.expanded = "true";
  if (states.has("collapsed")) attrs.expanded = "false";
  if (states.has("mixed")) attrs.checked = "mixed";
  if (states.has("readonly")) attrs.readonly = "true";
  if (states.has("editable")) attrs.editable = "true"; // a text field or contenteditable content
  const init: UiNodeInit = {
    className: c.role,
    bounds: bounds ?? { x: 0, y: 0, w: 0, h: 0 },
    clickable: c.clickable === true || INTERACTIVE_ROLES.has(c.role),
    enabled: !states.has("disabled"),
    focused: states.has("focused"),
    checked: states.has("checked") || states.has("pressed"),
    checkable: states.has("checked") || states.has("unchecked") || states.has("mixed"),
    selected: states.has("selected"),
    scrollable: c.scrollable === true,
    password: dom.type === "password",
    visible,
    attrs,
    children,
  };
  if (c.role === "StaticText" && c.name) init.text = c.name;
  else if (c.text) init.text = c.text;
  if (dom.id) init.resourceId = dom.id;
  if (testAttr) init.testId = dom[testAttr]!;
  if (dom["aria-label"]) init.contentDescription = dom["aria-label"];
  init.role = c.role;
  if (c.name) init.name = c.name;
  if (dom.placeholder) init.hint = dom.placeholder;
  if (c.value !== undefined) init.value = c.value;
  return makeNode(init);
}
