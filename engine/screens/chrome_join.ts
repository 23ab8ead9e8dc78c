/**
 * The join behind Cairn's Chrome hierarchy (`engine/screens/chrome_hierarchy.ts`): CDP
 * `Accessibility.getFullAXTree` nodes joined by `backendDOMNodeId` with the attributes, CSS path,
 * layout box, clickability and scrollability of their DOM node from `DOMSnapshot.captureSnapshot`.
 * Pure: the CDP calls are in `drivers/chrome/hierarchy.ts`.
 *
 * @module
 */
import {
  CHROME_DOM_ATTRIBUTES,
  CHROME_SCHEMA_VERSION,
  type ChromeHierarchy,
  type ChromeNode,
  TEST_ID_ATTRIBUTES,
} from "./chrome_hierarchy.ts";
import { CssPathBuilder, type FlatDom } from "./css_path.ts";

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
  /** 1 for a rendered element (with a layout box) carrying an `id` or a test id: kept even when the AX tree prunes it. */
  holder: Uint8Array;
  /** `backendNodeId` of each DOM node. */
  backend: number[];
  /** Number of DOM children of each node. */
  childCount: Int32Array;
}

/** How far up the DOM a kept node looks for pruned holder elements before its AX parent's. */
const MAX_HOLDER_GAP = 16;

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
  const testIds = new Set<string>(TEST_ID_ATTRIBUTES);
  const named = new Uint8Array(n);
  const childCount = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const p = parentIndex[i]!;
    if (p >= 0) childCount[p]!++;
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
        else if (testIds.has(name!) && (s[a[k + 1]!] ?? "") !== "") named[i] = 1;
      }
      if (id !== "") named[i] = 1;
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
  const holder = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (named[i] === 1 && layoutOf[i]! >= 0) holder[i] = 1;
  }
  const wanted = new Set<string>(CHROME_DOM_ATTRIBUTES);
  const attrs = (i: number): Record<string, string> => {
    const out: Record<string, string> = {};
    const a = attributes[i] ?? [];
    for (let k = 0; k + 1 < a.length; k += 2) {
      const name = s[a[k]!] ?? "";
      const value = s[a[k + 1]!] ?? "";
      // `data-sensitive` counts by its presence: keep it with an empty value
      if (wanted.has(name) && (value !== "" || name === "data-sensitive")) out[name] = value;
    }
    return out;
  };
  return {
    flat,
    byBackend,
    attrs,
    layoutOf,
    clickable,
    scrolls,
    nodeType,
    backend,
    holder,
    childCount,
  };
}

/**
 * Joins the CDP accessibility tree with the DOM snapshot into Cairn's Chrome hierarchy.
 *
 * Ignored AX nodes and inline text boxes are dropped and their children lifted, except that a
 * rendered element carrying an `id` or a test id (`data-testid` family) is always kept: an
 * ignored AX node of one becomes a `generic` node, and one the AX tree pruned altogether (a
 * `<span data-testid>`) is added as a `generic` node between its nearest kept AX ancestor and
 * the kept nodes inside it (from the DOM snapshot's parents, no extra CDP call); a `generic`
 * holder whose only DOM child is a text node takes that text as its `text`. Every kept
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
  /** DOM index of each kept node, -1 when it has none. */
  const outDom: number[] = [];
  /** Out index of each pruned holder element already added, by DOM index. */
  const synthetic = new Map<number, number>();
  const push = (node: ChromeNode, domIndex: number, parent: number): number => {
    const index = out.length;
    out.push(node);
    outDom.push(domIndex);
    if (parent >= 0) (out[parent]!.children ??= []).push(index);
    return index;
  };
  const stack: [AXNodeLike, number][] = [[root, -1]];
  while (stack.length > 0) {
    const [ax, axParent] = stack.pop()!;
    let parent = axParent;
    const role = axString(ax.role) ?? "none";
    const domIndex = domIndexOf(ax, dom);
    const isHolder = domIndex >= 0 && dom!.holder[domIndex] === 1;
    const keep = ax === root ||
      (!DROPPED_ROLES.has(role) &&
        (ax.ignored ? isHolder : !isUserAgentFiller(ax, role, dom)));
    let index = parent;
    if (keep) {
      if (dom && domIndex >= 0 && parent >= 0) {
        // Elements the AX tree pruned between this node and its parent (a <span data-testid>).
        for (const h of prunedHolders(dom, domIndex, outDom[parent]!)) {
          let at = synthetic.get(h);
          if (at === undefined) {
            at = push(convertDom({ role: "generic" }, h, dom, paths, layout), h, parent);
            synthetic.set(h, at);
          }
          parent = at;
        }
      }
      const node = convertAx(
        ax,
        ax.ignored && role === "none" ? "generic" : role,
        dom,
        paths,
        layout,
      );
      if (foldsInto(node, domIndex, out[parent], outDom[parent], dom)) {
        out[parent]!.text = node.name!;
        continue;
      }
      index = push(node, domIndex, parent);
      if (isPasswordField(node)) {
        // its mask (`StaticText "••••••••"`, one bullet a character) tells the password's
        // length: neither it nor the masked value is captured
        if (node.value !== undefined && node.value !== "") node.value = PASSWORD_MASK;
        continue;
      }
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

/**
 * What a password field with a value shows as its value: a fixed mask, whatever the password's
 * length (Chrome's masked value has one bullet a character).
 */
export const PASSWORD_MASK = "[redacted]";

/** A password input (`<input type=password>`). */
function isPasswordField(node: ChromeNode): boolean {
  return node.tag === "input" && node.dom?.type?.toLowerCase() === "password";
}

function domIndexOf(ax: AXNodeLike, dom: DomIndex | undefined): number {
  if (ax.backendDOMNodeId === undefined || !dom) return -1;
  return dom.byBackend.get(ax.backendDOMNodeId) ?? -1;
}

/**
 * The holder elements strictly between a DOM node and its AX parent's DOM node, outermost
 * first; none when the AX parent is not a near DOM ancestor (aria-owns, slots).
 */
function prunedHolders(dom: DomIndex, i: number, parentDom: number): number[] {
  if (parentDom < 0) return [];
  const found: number[] = [];
  let p = dom.flat.parent[i]!;
  for (let k = 0; k < MAX_HOLDER_GAP && p >= 0; k++) {
    if (p === parentDom) return found.reverse();
    if (dom.holder[p] === 1) found.push(p);
    p = dom.flat.parent[p]!;
  }
  return [];
}

/**
 * A text node that is the only DOM child of a generic holder element becomes that element's
 * `text`: the element carrying the id is what a hit test at the text returns.
 */
function foldsInto(
  node: ChromeNode,
  domIndex: number,
  parent: ChromeNode | undefined,
  parentDom: number | undefined,
  dom: DomIndex | undefined,
): boolean {
  if (node.role !== "StaticText" || node.name === undefined || !parent || !dom) return false;
  if (parent.role !== "generic" || parent.text !== undefined || parent.children) return false;
  if (parentDom === undefined || parentDom < 0 || dom.holder[parentDom] !== 1) return false;
  return domIndex >= 0 && dom.flat.parent[domIndex] === parentDom &&
    dom.childCount[parentDom] === 1;
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
  return convertDom(node, i, dom, paths, layout);
}

/** Adds the DOM facts of DOM node `i` (tag, attributes, path, clickability, box) to a node. */
function convertDom(
  node: ChromeNode,
  i: number,
  dom: DomIndex,
  paths: CssPathBuilder | undefined,
  layout: DomSnapshotLike["documents"][number]["layout"] | undefined,
): ChromeNode {
  if (node.backendNodeId === undefined) node.backendNodeId = dom.backend[i]!;
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
