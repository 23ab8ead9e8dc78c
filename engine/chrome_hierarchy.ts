/**
 * Cairn's Chrome hierarchy (`schema_version: "cairn.chrome/v1"`): the CDP accessibility tree
 * (`Accessibility.getFullAXTree`) joined by `backendDOMNodeId` with the DOM attributes Cairn
 * selects on and the layout boxes of `DOMSnapshot.captureSnapshot`, plus the page's url,
 * viewport, device pixel ratio and scroll. Shadow DOM is pierced; iframes are out of scope.
 *
 * `joinChromeHierarchy` builds it from the raw CDP results (pure, no I/O: the capture is in
 * `drivers/chrome/hierarchy.ts`); `parseChromeHierarchy` turns it into a {@linkcode Screen}.
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
import { CssPathBuilder, type FlatDom } from "./css_path.ts";
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

/** The part of a CDP `Accessibility.AXValue` Cairn reads. */
export interface AXValueLike {
  type?: string;
  value?: unknown;
}

/** The part of a CDP `Accessibility.AXNode` Cairn reads. */
export interface AXNodeLike {
  nodeId: string;
  ignored: boolean;
  role?: AXValueLike;
  name?: AXValueLike;
  description?: AXValueLike;
  value?: AXValueLike;
  properties?: { name: string; value: AXValueLike }[];
  parentId?: string;
  childIds?: string[];
  backendDOMNodeId?: number;
}

/** The part of a CDP `DOMSnapshot.captureSnapshot` result Cairn reads. */
export interface DomSnapshotLike {
  strings: string[];
  documents: {
    nodes: {
      parentIndex?: number[];
      nodeType?: number[];
      nodeName?: number[];
      backendNodeId?: number[];
      attributes?: number[][];
      shadowRootType?: { index: number[]; value: number[] };
      isClickable?: { index: number[] };
      inputValue?: { index: number[]; value: number[] };
    };
    layout: {
      nodeIndex: number[];
      bounds: number[][];
      /** Per layout node, string indices of the requested computed styles (`overflow-x`, `overflow-y`). */
      styles?: number[][];
    };
  }[];
}

/** The raw CDP results a Chrome hierarchy is joined from. */
export interface ChromeCdpResults {
  axNodes: readonly AXNodeLike[];
  snapshot: DomSnapshotLike;
}

/** Page facts captured beside the trees. */
export interface ChromePageInfo {
  url: string;
  title?: string;
  viewport: { width: number; height: number };
  devicePixelRatio: number;
  scroll: { x: number; y: number };
}

/** AX roles never kept (their text is on the parent). */
const DROPPED_ROLES = new Set(["InlineTextBox", "ListMarker"]);

const BOOLEAN_STATES = new Set([
  "focused",
  "focusable",
  "disabled",
  "selected",
  "required",
  "readonly",
  "modal",
  "multiline",
]);

function axString(v: AXValueLike | undefined): string | undefined {
  const x = v?.value;
  if (x === undefined || x === null || x === "") return undefined;
  return typeof x === "string" ? x : String(x);
}

function axStates(ax: AXNodeLike): { states: string[]; level?: number } {
  const states: string[] = [];
  let level: number | undefined;
  for (const p of ax.properties ?? []) {
    const v = p.value?.value;
    if (BOOLEAN_STATES.has(p.name)) {
      if (v === true || v === "true") states.push(p.name);
    } else if (p.name === "checked" || p.name === "pressed") {
      if (v === "true" || v === true) states.push(p.name);
      else if (v === "mixed") states.push("mixed");
      else states.push(p.name === "checked" ? "unchecked" : "unpressed");
    } else if (p.name === "expanded") {
      states.push(v === true || v === "true" ? "expanded" : "collapsed");
    } else if (p.name === "editable" && typeof v === "string" && v !== "") {
      states.push("editable");
    } else if (p.name === "level" && typeof v === "number") level = v;
  }
  return level === undefined ? { states } : { states, level };
}

/** Flat view of the main document of a DOM snapshot. */
interface DomIndex {
  flat: FlatDom;
  byBackend: Map<number, number>;
  attrs: (i: number) => Record<string, string>;
  layoutOf: Int32Array;
  clickable: Uint8Array;
  /** 1 for a scroll container (`overflow: auto|scroll|overlay`) whose content overflows it. */
  scrolls: Uint8Array;
  nodeType: number[];
}

const SCROLLING_OVERFLOW = new Set(["auto", "scroll", "overlay"]);

/**
 * Finds scroll containers without DOM rects: an element whose computed overflow lets it scroll
 * and whose content (any layout box whose nearest scroll container it is) spills out of its box.
 */
function scrollContainers(
  parent: Int32Array,
  layoutOf: Int32Array,
  layout: DomSnapshotLike["documents"][number]["layout"],
  strings: string[],
): Uint8Array {
  const n = parent.length;
  const scrolls = new Uint8Array(n);
  const styles = layout.styles;
  if (!styles) return scrolls;
  const container = new Uint8Array(n);
  layout.nodeIndex.forEach((d, k) => {
    const st = styles[k];
    if (!st) return;
    const x = strings[st[0]!] ?? "", y = strings[st[1]!] ?? "";
    if (SCROLLING_OVERFLOW.has(x) || SCROLLING_OVERFLOW.has(y)) container[d] = 1;
  });
  // nearest scroll-container ancestor of every node (parents precede children)
  const nearest = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    const p = parent[i]!;
    if (p >= 0) nearest[i] = container[p] === 1 ? p : nearest[p]!;
  }
  layout.nodeIndex.forEach((d, k) => {
    const c = nearest[d]!;
    if (c < 0 || scrolls[c] === 1) return;
    const cb = layout.bounds[layoutOf[c]!];
    const b = layout.bounds[k];
    if (!cb || !b) return;
    if (
      b[0]! < cb[0]! - 1 || b[1]! < cb[1]! - 1 || b[0]! + b[2]! > cb[0]! + cb[2]! + 1 ||
      b[1]! + b[3]! > cb[1]! + cb[3]! + 1
    ) scrolls[c] = 1;
  });
  return scrolls;
}

function indexDom(snap: DomSnapshotLike): DomIndex | undefined {
  const doc = snap.documents[0];
  if (!doc) return undefined;
  const s = snap.strings;
  const nodes = doc.nodes;
  const parentIndex = nodes.parentIndex ?? [];
  const n = parentIndex.length;
  const nodeType = nodes.nodeType ?? [];
  const flat: FlatDom = {
    parent: Int32Array.from(parentIndex),
    tag: new Array<string>(n),
    id: new Array<string>(n),
    className: new Array<string>(n),
    inShadow: new Uint8Array(n),
  };
  const byBackend = new Map<number, number>();
  const backend = nodes.backendNodeId ?? [];
  const names = nodes.nodeName ?? [];
  const attributes = nodes.attributes ?? [];
  for (let i = 0; i < n; i++) {
    byBackend.set(backend[i]!, i);
    const isElement = nodeType[i] === 1;
    flat.tag[i] = isElement ? (s[names[i]!] ?? "").toLowerCase() : "";
    let id = "";
    let cls = "";
    if (isElement) {
      const a = attributes[i] ?? [];
      for (let k = 0; k + 1 < a.length; k += 2) {
        const name = s[a[k]!];
        if (name === "id") id = s[a[k + 1]!] ?? "";
        else if (name === "class") cls = s[a[k + 1]!] ?? "";
      }
    }
    flat.id[i] = id;
    flat.className[i] = cls;
  }
  for (const i of nodes.shadowRootType?.index ?? []) flat.inShadow[i] = 1;
  const clickable = new Uint8Array(n);
  for (const i of nodes.isClickable?.index ?? []) clickable[i] = 1;
  const layoutOf = new Int32Array(n).fill(-1);
  doc.layout.nodeIndex.forEach((domIndex, k) => {
    if (layoutOf[domIndex] === -1) layoutOf[domIndex] = k;
  });
  const scrolls = scrollContainers(flat.parent, layoutOf, doc.layout, s);
  const wanted = new Set<string>(CHROME_DOM_ATTRIBUTES);
  const attrs = (i: number): Record<string, string> => {
    const out: Record<string, string> = {};
    const a = attributes[i] ?? [];
    for (let k = 0; k + 1 < a.length; k += 2) {
      const name = s[a[k]!] ?? "";
      const value = s[a[k + 1]!] ?? "";
      if (wanted.has(name) && value !== "") out[name] = value;
    }
    return out;
  };
  return { flat, byBackend, attrs, layoutOf, clickable, scrolls, nodeType };
}

/**
 * Joins the CDP accessibility tree with the DOM snapshot into Cairn's Chrome hierarchy.
 *
 * Ignored AX nodes and inline text boxes are dropped and their children lifted; every kept
 * node backed by a DOM node gets its tag, selected attributes, CSS path, layout box and
 * clickability (`DOMSnapshot` `isClickable`); an element is scrollable when its computed
 * overflow is `auto`/`scroll`/`overlay` and a layout box inside it spills out of its box (DOM
 * rects would say the same and double the snapshot's cost).
 *
 * @param raw the CDP results: `axNodes` of `Accessibility.getFullAXTree()` and `snapshot` of
 *   `DOMSnapshot.captureSnapshot({ computedStyles: ["overflow-x", "overflow-y"] })`
 * @param page url, viewport, device pixel ratio and scroll of the page
 * @returns the joined hierarchy
 * @throws {TypeError} when the AX tree is empty
 */
export function joinChromeHierarchy(raw: ChromeCdpResults, page: ChromePageInfo): ChromeHierarchy {
  const { axNodes, snapshot } = raw;
  const root = axNodes.find((n) => n.parentId === undefined) ?? axNodes[0];
  if (!root) throw new TypeError("Cannot join an empty accessibility tree");
  const byId = new Map<string, AXNodeLike>();
  for (const n of axNodes) byId.set(n.nodeId, n);
  const dom = indexDom(snapshot);
  const paths = dom ? new CssPathBuilder(dom.flat) : undefined;
  const layout = snapshot.documents[0]?.layout;
  const out: ChromeNode[] = [];
  const stack: [AXNodeLike, number][] = [[root, -1]];
  while (stack.length > 0) {
    const [ax, parent] = stack.pop()!;
    const role = axString(ax.role) ?? "none";
    const keep = ax === root ||
      (!ax.ignored && !DROPPED_ROLES.has(role) && !isUserAgentFiller(ax, role, dom));
    let index = parent;
    if (keep) {
      index = out.length;
      out.push(convertAx(ax, role, dom, paths, layout));
      if (parent >= 0) (out[parent]!.children ??= []).push(index);
    }
    const kids = ax.childIds ?? [];
    for (let i = kids.length - 1; i >= 0; i--) {
      const child = byId.get(kids[i]!);
      if (child) stack.push([child, index]);
    }
  }
  const result: ChromeHierarchy = {
    schema_version: CHROME_SCHEMA_VERSION,
    url: page.url,
    viewport: page.viewport,
    devicePixelRatio: page.devicePixelRatio,
    scroll: page.scroll,
    nodes: out,
  };
  if (page.title) result.title = page.title;
  return result;
}

/** A nameless generic node outside the snapshot's DOM (user-agent shadow: an input's editor). */
function isUserAgentFiller(ax: AXNodeLike, role: string, dom: DomIndex | undefined): boolean {
  if (role !== "generic" && role !== "none") return false;
  if (axString(ax.name) !== undefined) return false;
  return ax.backendDOMNodeId === undefined || dom?.byBackend.get(ax.backendDOMNodeId) === undefined;
}

function convertAx(
  ax: AXNodeLike,
  role: string,
  dom: DomIndex | undefined,
  paths: CssPathBuilder | undefined,
  layout: DomSnapshotLike["documents"][number]["layout"] | undefined,
): ChromeNode {
  const node: ChromeNode = { role };
  const name = axString(ax.name);
  if (name !== undefined) node.name = name;
  const value = axString(ax.value);
  if (value !== undefined) node.value = value;
  const description = axString(ax.description);
  if (description !== undefined) node.description = description;
  const { states, level } = axStates(ax);
  if (states.length > 0) node.states = states;
  if (level !== undefined) node.level = level;
  const backend = ax.backendDOMNodeId;
  if (backend === undefined || !dom) return node;
  node.backendNodeId = backend;
  const i = dom.byBackend.get(backend);
  if (i === undefined) return node;
  const type = dom.nodeType[i];
  if (type === 1) {
    node.tag = dom.flat.tag[i]!;
    const attrs = dom.attrs(i);
    if (Object.keys(attrs).length > 0) node.dom = attrs;
    const path = node.tag.startsWith("::") ? "" : paths!.path(i);
    if (path !== "") node.cssPath = path;
  } else if (type === 3) node.tag = "#text";
  if (dom.clickable[i] === 1) node.clickable = true;
  const k = dom.layoutOf[i]!;
  const box = k >= 0 ? layout?.bounds[k] : undefined;
  if (box && box.length >= 4) {
    node.bounds = [box[0]!, box[1]!, box[2]!, box[3]!];
    if (dom.scrolls[i] === 1 && node.tag !== "html" && node.tag !== "body") node.scrollable = true;
  }
  return node;
}

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
  for (const k of ["class", "type", "href", "name", "title", "alt", "for", "role"] as const) {
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
  if (dom.id) init.resourceId = dom.id;
  if (testAttr) init.testId = dom[testAttr]!;
  if (dom["aria-label"]) init.contentDescription = dom["aria-label"];
  init.role = c.role;
  if (c.name) init.name = c.name;
  if (dom.placeholder) init.hint = dom.placeholder;
  if (c.value !== undefined) init.value = c.value;
  return makeNode(init);
}
