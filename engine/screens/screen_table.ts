/**
 * A screen flattened once into the struct-of-arrays table of `wasm/layout.ts`, with the
 * engine-facing queries of the hot path: point → node, ref hashes, selector uniqueness,
 * subtree ranges. Queries run in the WASM module, or in the plain-TS reference on request
 * (and when the module has not been built); both give the same answers.
 *
 * Nodes are numbered in document order (pre-order, as {@linkcode walk} visits them), so the
 * subtree of node i is the index range `[i, subtreeEnd(i))`.
 *
 * @module
 */
import { isTextField } from "./refs.ts";
import type { Point, Screen, UiNode } from "./ui_node.ts";
import {
  COL_AREA,
  COL_CLASS,
  COL_CONTENT_DESCRIPTION,
  COL_CX,
  COL_CY,
  COL_DEPTH,
  COL_END,
  COL_FLAGS,
  COL_HINT,
  COL_NAME,
  COL_PAINT,
  COL_PARENT,
  COL_RESOURCE_ID,
  COL_ROLE,
  COL_TEST_ID,
  COL_TEXT,
  COL_X1,
  COL_X2,
  COL_Y1,
  COL_Y2,
  F_CHECKABLE,
  F_CHECKED,
  F_CLICKABLE,
  F_ENABLED,
  F_FOCUSED,
  F_INTERACTIVE,
  F_PASSWORD,
  F_SCROLLABLE,
  F_SELECTED,
  F_TEXT_FIELD,
  F_VISIBLE,
  P_CLAUSE_COUNT,
  P_CLAUSES,
  P_FLAGS_MASK,
  P_FLAGS_VALUE,
  P_FROM,
  P_TO,
  PREDICATE_INTS,
} from "../../wasm/mod.ts";
import type { HotPath } from "../../wasm/mod.ts";
import { type FlatTable, TableWriter } from "../../wasm/mod.ts";
import { reference } from "../../wasm/mod.ts";
import { wasmAvailable, wasmHotPath } from "../../wasm/mod.ts";

/** Which implementation answers: the WASM module, the TS reference, or WASM when built. */
export type TableEngine = "wasm" | "reference" | "auto";

/** Options of {@linkcode ScreenTable.from}. */
export interface ScreenTableOptions {
  /** Default "auto": WASM when `wasm/build/cairn.wasm` exists, else the reference. */
  engine?: TableEngine;
}

/** Options of {@linkcode flattenTree}. */
export interface FlattenOptions {
  /**
   * The tree is an iOS tree that names no element types (Maestro, Trailblaze: every node is
   * `XCUIElementTypeOther`, none clickable): its interactive nodes (`F_INTERACTIVE`) are the
   * nodes with a label or an id of their own that are leaves or hold a labelled node. Default
   * false: interactive means clickable.
   */
  typeless?: boolean;
}

/** The string properties a predicate may compare, each to one exact value. */
export const PREDICATE_STRINGS = {
  className: COL_CLASS,
  text: COL_TEXT,
  resourceId: COL_RESOURCE_ID,
  testId: COL_TEST_ID,
  contentDescription: COL_CONTENT_DESCRIPTION,
  role: COL_ROLE,
  name: COL_NAME,
  hint: COL_HINT,
} as const;

const STRING_ENTRIES = Object.entries(PREDICATE_STRINGS) as [
  keyof typeof PREDICATE_STRINGS,
  number,
][];

/** The flags a predicate may require, with their bit in the table. */
export const PREDICATE_FLAGS = {
  clickable: F_CLICKABLE,
  enabled: F_ENABLED,
  focused: F_FOCUSED,
  checked: F_CHECKED,
  checkable: F_CHECKABLE,
  selected: F_SELECTED,
  scrollable: F_SCROLLABLE,
  password: F_PASSWORD,
  visible: F_VISIBLE,
  interactive: F_INTERACTIVE,
} as const;

const FLAG_ENTRIES = Object.entries(PREDICATE_FLAGS) as [keyof typeof PREDICATE_FLAGS, number][];

/**
 * A conjunction of exact matches: every given string equals the node's (an undefined one is not
 * compared; "" matches nodes without the property), every given flag has the given value;
 * `descendantsOf` restricts the search to the strict descendants of a node.
 */
export type NodePredicate =
  & { [K in keyof typeof PREDICATE_STRINGS]?: string | undefined }
  & { flags?: { [K in keyof typeof PREDICATE_FLAGS]?: boolean }; descendantsOf?: number };

const LIMIT = 1 << 29; // coordinates are clamped to ±2^29, the range the WASM range test is exact in

function int(v: number): number {
  if (!Number.isFinite(v)) return 0;
  return Math.max(-LIMIT, Math.min(LIMIT, Math.round(v)));
}

function pointInt(v: number): number {
  if (!Number.isFinite(v)) return -LIMIT - 1;
  return Math.max(-LIMIT - 1, Math.min(LIMIT, Math.floor(v)));
}

function hasLabel(n: UiNode): boolean {
  return n.text !== undefined || n.contentDescription !== undefined ||
    n.resourceId !== undefined || n.testId !== undefined;
}

function flagsOf(n: UiNode): number {
  return (n.clickable ? F_CLICKABLE | F_INTERACTIVE : 0) | (n.enabled ? F_ENABLED : 0) |
    (n.focused ? F_FOCUSED : 0) | (n.checked ? F_CHECKED : 0) |
    (n.checkable ? F_CHECKABLE : 0) | (n.selected ? F_SELECTED : 0) |
    (n.scrollable ? F_SCROLLABLE : 0) | (n.password ? F_PASSWORD : 0) |
    (n.visible ? F_VISIBLE : 0) | (isTextField(n) ? F_TEXT_FIELD : 0);
}

/**
 * On an iOS tree without element types, marks interactive (`F_INTERACTIVE`) the nodes with a
 * label or an id of their own that are leaves (an accessibility element: iOS lists no children
 * of one) or hold a labelled node (a row whose title and count are listed inside it). A
 * labelled node over unlabelled children only — a scroll bar and its thumb — is none.
 */
function markTypeless(nodes: UiNode[], parents: number[], flags: Int32Array): void {
  const below = new Uint8Array(nodes.length); // 1: a labelled node lies below
  for (let i = nodes.length - 1; i >= 0; i--) {
    const n = nodes[i]!, labelled = hasLabel(n);
    if (labelled && (n.children.length === 0 || below[i] === 1)) flags[i]! |= F_INTERACTIVE;
    const p = parents[i]!;
    if (p >= 0 && (labelled || below[i] === 1)) below[p] = 1;
  }
}

/**
 * Whether a screen is an iOS tree that names no element types (see {@linkcode FlattenOptions}).
 *
 * @param screen the screen
 * @returns true for Maestro and Trailblaze iOS screens
 */
export function isTypelessIos(screen: Screen): boolean {
  return screen.platform === "ios" && screen.format !== "xcuitest";
}

/** Lists the nodes in document order with their parent index and depth. */
function order(root: UiNode): { nodes: UiNode[]; parents: number[]; depths: number[] } {
  const nodes: UiNode[] = [], parents: number[] = [], depths: number[] = [];
  const stack: [UiNode, number, number][] = [[root, -1, 0]];
  while (stack.length > 0) {
    const [node, parent, depth] = stack.pop()!;
    const i = nodes.length;
    nodes.push(node);
    parents.push(parent);
    depths.push(depth);
    for (let c = node.children.length - 1; c >= 0; c--) {
      stack.push([node.children[c]!, i, depth + 1]);
    }
  }
  return { nodes, parents, depths };
}

/** A node's drawing order among its siblings (Android `drawing-order`), -1 when unknown. */
function drawingOrder(node: UiNode): number {
  const v = node.attrs?.["drawing-order"];
  if (v === undefined) return -1;
  const d = Number(v);
  return Number.isInteger(d) && d >= 0 ? Math.min(d, 0x7fffffff) : -1;
}

/**
 * Fills the paint ranks (`COL_PAINT`): a pre-order walk that visits siblings in drawing order,
 * so a node outranks its ancestors and everything drawn before it. Siblings that all carry a
 * drawing order are drawn by it (ties in document order); otherwise in document order.
 */
function paintRanks(n: number, end: Int32Array, orders: Int32Array, paint: Int32Array): void {
  const kids: number[] = [];
  for (let i = 0; i < n; i++) {
    kids.length = 0;
    let known = true, sorted = true;
    for (let c = i + 1; c < end[i]!; c = end[c]!) {
      if (orders[c]! < 0) known = false;
      else if (kids.length > 0 && orders[c]! < orders[kids[kids.length - 1]!]!) sorted = false;
      kids.push(c);
    }
    if (!known || sorted) {
      for (const c of kids) paint[c] = paint[i]! + (c - i); // document order: earlier subtrees first
      continue;
    }
    kids.sort((a, b) => orders[a]! - orders[b]! || a - b);
    let next = paint[i]! + 1;
    for (const c of kids) {
      paint[c] = next;
      next += end[c]! - c;
    }
  }
}

/**
 * Flattens a tree into a table (document order, strings interned per table).
 *
 * Bounds are rounded to whole pixels (x2 = round(x + w), never left of x1) and clamped to
 * ±2^29; the centre columns hold `Math.round(x + w / 2)` of the unrounded bounds, as refs use.
 * Paint ranks follow Android's `drawing-order` where siblings carry one (see `COL_PAINT`).
 *
 * @param root the root node
 * @param options what the tree's format leaves unsaid (an iOS tree without element types)
 * @returns the table and the nodes by index
 */
export function flattenTree(
  root: UiNode,
  options: FlattenOptions = {},
): { table: FlatTable; nodes: UiNode[] } {
  const typeless = options.typeless === true;
  const { nodes, parents, depths } = order(root);
  const n = nodes.length;
  const w = new TableWriter(n);
  const parent = w.column(COL_PARENT), depth = w.column(COL_DEPTH), end = w.column(COL_END);
  const x1 = w.column(COL_X1), y1 = w.column(COL_Y1), x2 = w.column(COL_X2);
  const y2 = w.column(COL_Y2), area = w.column(COL_AREA), flags = w.column(COL_FLAGS);
  const cx = w.column(COL_CX), cy = w.column(COL_CY);
  const cls = w.column(COL_CLASS), text = w.column(COL_TEXT), rid = w.column(COL_RESOURCE_ID);
  const tid = w.column(COL_TEST_ID), desc = w.column(COL_CONTENT_DESCRIPTION);
  const role = w.column(COL_ROLE), name = w.column(COL_NAME), hint = w.column(COL_HINT);
  const paint = w.column(COL_PAINT);
  let orders: Int32Array | undefined;
  for (let i = 0; i < n; i++) {
    const node = nodes[i]!, b = node.bounds;
    parent[i] = parents[i]!;
    depth[i] = depths[i]!;
    end[i] = i + 1;
    const left = int(b.x), top = int(b.y);
    const right = Math.max(left, int(b.x + b.w)), bottom = Math.max(top, int(b.y + b.h));
    x1[i] = left;
    y1[i] = top;
    x2[i] = right;
    y2[i] = bottom;
    area[i] = Math.min((right - left) * (bottom - top), 0x7fffffff);
    flags[i] = flagsOf(node);
    cx[i] = int(b.x + b.w / 2);
    cy[i] = int(b.y + b.h / 2);
    // Named loads, not node[key]: nodes of many shapes make keyed loads megamorphic and slow.
    cls[i] = w.intern(node.className);
    if (node.text !== undefined) text[i] = w.intern(node.text);
    if (node.resourceId !== undefined) rid[i] = w.intern(node.resourceId);
    if (node.testId !== undefined) tid[i] = w.intern(node.testId);
    if (node.contentDescription !== undefined) desc[i] = w.intern(node.contentDescription);
    if (node.role !== undefined) role[i] = w.intern(node.role);
    if (node.name !== undefined) name[i] = w.intern(node.name);
    if (node.hint !== undefined) hint[i] = w.intern(node.hint);
    paint[i] = i;
    if (node.attrs !== undefined) {
      const d = drawingOrder(node);
      if (d >= 0) (orders ??= new Int32Array(n).fill(-1))[i] = d;
    }
  }
  // A node's subtree ends where its last descendant's does: fold ends up in reverse order.
  for (let i = n - 1; i > 0; i--) {
    const p = parents[i]!;
    if (end[i]! > end[p]!) end[p] = end[i]!;
  }
  if (orders !== undefined) paintRanks(n, end, orders, paint);
  if (typeless) markTypeless(nodes, parents, flags);
  return { table: w.finish(), nodes };
}

/**
 * A flattened screen and its hot-path queries.
 *
 * @example
 * ```ts
 * import { makeNode } from "./ui_node.ts";
 * const ok = makeNode({ className: "Button", text: "OK", bounds: { x: 10, y: 10, w: 80, h: 40 } });
 * const root = makeNode({ className: "Frame", bounds: { x: 0, y: 0, w: 400, h: 800 }, children: [ok] });
 * const t = ScreenTable.from(root);
 * if (t.node(t.hitTest({ x: 20, y: 20 })) !== ok) throw new Error();
 * if (t.count({ text: "OK" }) !== 1) throw new Error();
 * ```
 */
export class ScreenTable {
  /** The flat table (layout.ts). */
  readonly table: FlatTable;
  /** Which implementation answers the queries. */
  readonly engine: HotPath;
  readonly #nodes: UiNode[];
  #index: Map<UiNode, number> | undefined;
  #hashes: Uint32Array | undefined;
  readonly #pred = new Int32Array(PREDICATE_INTS);

  private constructor(table: FlatTable, nodes: UiNode[], engine: HotPath) {
    this.table = table;
    this.#nodes = nodes;
    this.engine = engine;
  }

  /**
   * Flattens a screen (or a bare tree) once. A Maestro or Trailblaze iOS screen marks its
   * labelled leaves and labelled nodes holding labelled ones interactive ({@linkcode isTypelessIos}); a bare tree marks its clickable nodes.
   *
   * @param screen the screen or its root node
   * @param options which engine answers
   * @returns the table
   * @throws {Error} when engine "wasm" is asked for and the module has not been built
   */
  static from(screen: Screen | UiNode, options: ScreenTableOptions = {}): ScreenTable {
    const root = "root" in screen ? screen.root : screen;
    const typeless = "root" in screen && isTypelessIos(screen);
    const { table, nodes } = flattenTree(root, { typeless });
    const engine = options.engine ?? "auto";
    const hot = engine === "reference" || (engine === "auto" && !wasmAvailable())
      ? reference
      : wasmHotPath();
    return new ScreenTable(table, nodes, hot);
  }

  /** Number of nodes. */
  get size(): number {
    return this.table.n;
  }

  /**
   * The node at an index.
   *
   * @param i a node index
   * @returns the node
   * @throws {RangeError} when i is not a node index
   */
  node(i: number): UiNode {
    const n = Number.isInteger(i) ? this.#nodes[i] : undefined;
    if (n === undefined) throw new RangeError(`Cannot find node ${i}: the screen has ${this.size}`);
    return n;
  }

  /**
   * The index of a node of this screen.
   *
   * @param node a node of the flattened tree
   * @returns its index, or -1 when it is not in this screen
   */
  indexOf(node: UiNode): number {
    this.#index ??= new Map(this.#nodes.map((n, i) => [n, i]));
    return this.#index.get(node) ?? -1;
  }

  /**
   * The deepest, then smallest-area, visible node containing a point (x1 ≤ x < x2,
   * y1 ≤ y < y2; fractional points are floored); ties go to the first in document order.
   *
   * @param point the point
   * @returns the node index, or -1 when no visible node contains the point
   */
  hitTest(point: Point): number {
    return this.engine.hitTest(this.table, pointInt(point.x), pointInt(point.y));
  }

  /**
   * The visible node drawn on top at a point (the highest paint rank: a descendant over its
   * ancestors, a sibling drawn later — Android `drawing-order`, else document order — over the
   * earlier one's subtree), among the nodes that have every flag asked for: `{ clickable: true }`
   * finds the control a tap at the point goes to, not a deeper node of a list drawn beneath it;
   * `{ interactive: true }` the same on iOS trees that name no element types (`F_INTERACTIVE`).
   *
   * @param point the point (fractional points are floored, as for {@linkcode hitTest})
   * @param require flags the node must have (none: any visible node)
   * @returns the node index, or -1 when no such node contains the point
   * @example
   * ```ts
   * import { makeNode } from "./ui_node.ts";
   * const list = makeNode({ className: "List", bounds: { x: 0, y: 0, w: 100, h: 100 },
   *   children: [makeNode({ className: "Row", bounds: { x: 0, y: 80, w: 100, h: 20 } })] });
   * const fab = makeNode({ className: "Button", clickable: true, bounds: { x: 60, y: 80, w: 40, h: 20 } });
   * const t = ScreenTable.from(makeNode({ className: "Frame", bounds: { x: 0, y: 0, w: 100, h: 100 }, children: [list, fab] }));
   * if (t.node(t.hitTest({ x: 70, y: 90 })).className !== "Row") throw new Error(); // deepest
   * if (t.node(t.hitTestTop({ x: 70, y: 90 }, { clickable: true })) !== fab) throw new Error();
   * ```
   */
  hitTestTop(
    point: Point,
    require: { [K in keyof typeof PREDICATE_FLAGS]?: true } = {},
  ): number {
    let mask = 0;
    for (const [key, bit] of FLAG_ENTRIES) if (require[key] === true) mask |= bit;
    return this.engine.hitTestTop(this.table, pointInt(point.x), pointInt(point.y), mask);
  }

  /**
   * A node's paint rank: a node drawn over another that it overlaps has the higher rank.
   *
   * @param i a node index
   * @returns its rank (0 for the root; ranks are distinct)
   * @throws {RangeError} when i is not a node index
   */
  paintRank(i: number): number {
    this.node(i);
    return this.table.column(COL_PAINT)[i]!;
  }

  /**
   * Whether a node has every flag asked for, as the table holds them (`interactive` included).
   *
   * @param i a node index
   * @param require the flags
   * @returns true when each is set
   * @throws {RangeError} when i is not a node index
   */
  hasFlags(i: number, require: { [K in keyof typeof PREDICATE_FLAGS]?: true }): boolean {
    this.node(i);
    let mask = 0;
    for (const [key, bit] of FLAG_ENTRIES) if (require[key] === true) mask |= bit;
    return (this.table.column(COL_FLAGS)[i]! & mask) === mask;
  }

  /**
   * {@linkcode hitTest} of many points in one call.
   *
   * @param points the points
   * @returns one node index (or -1) per point
   */
  hitTestBatch(points: readonly Point[]): Int32Array {
    const xy = new Int32Array(points.length * 2);
    points.forEach((p, k) => {
      xy[2 * k] = pointInt(p.x);
      xy[2 * k + 1] = pointInt(p.y);
    });
    const out = new Int32Array(points.length);
    this.engine.hitTestBatch(this.table, xy, out);
    return out;
  }

  /**
   * The ref hash of every node: FNV-1a 32-bit over the UTF-8 bytes of
   * `className \0 label \0 round10(cx),round10(cy)` (label: text, else content description,
   * else name), as `engine/screens/refs.ts` computes one node's.
   *
   * @returns one unsigned hash per node (computed once, then cached)
   */
  refHashes(): Uint32Array {
    if (this.#hashes === undefined) {
      this.#hashes = new Uint32Array(this.size);
      this.engine.refHashes(this.table, this.#hashes);
    }
    return this.#hashes;
  }

  /**
   * How many nodes match a predicate (1 means the predicate is unique on the screen).
   *
   * @param predicate exact property values, flags and an optional ancestor
   * @returns the number of matching nodes
   */
  count(predicate: NodePredicate): number {
    return this.engine.countMatches(this.table, this.#encode(predicate));
  }

  /**
   * {@linkcode count} of many predicates in one call.
   *
   * @param predicates the predicates
   * @returns one count per predicate
   */
  countBatch(predicates: readonly NodePredicate[]): Int32Array {
    const preds = new Int32Array(predicates.length * PREDICATE_INTS);
    predicates.forEach((p, j) =>
      this.#encode(p, preds.subarray(j * PREDICATE_INTS, (j + 1) * PREDICATE_INTS))
    );
    const out = new Int32Array(predicates.length);
    this.engine.countBatch(this.table, preds, out);
    return out;
  }

  /**
   * The first matches of a predicate, in document order.
   *
   * @param predicate exact property values, flags and an optional ancestor
   * @param k at most this many indices
   * @returns the indices and the total number of matches
   */
  matches(predicate: NodePredicate, k: number): { indices: number[]; count: number } {
    const out = new Int32Array(Math.max(0, Math.min(k, this.size)));
    const count = this.engine.firstMatches(this.table, this.#encode(predicate), out);
    return { indices: Array.from(out.subarray(0, Math.min(count, out.length))), count };
  }

  /**
   * The exclusive end of a node's subtree: its descendants are `i + 1 … end - 1`.
   *
   * @param i a node index
   * @returns the end index
   * @throws {RangeError} when i is not a node index
   */
  subtreeEnd(i: number): number {
    this.node(i);
    const end = this.engine.subtreeEnd(this.table, i);
    return end;
  }

  /**
   * The ancestors of a node, parent first.
   *
   * @param i a node index
   * @returns their indices (empty for the root)
   */
  ancestors(i: number): number[] {
    this.node(i);
    const out = new Int32Array(this.size);
    return Array.from(out.subarray(0, this.engine.ancestors(this.table, i, out)));
  }

  /**
   * The parent of a node.
   *
   * @param i a node index
   * @returns its index, or -1 for the root
   */
  parent(i: number): number {
    this.node(i);
    return this.table.column(COL_PARENT)[i]!;
  }

  /**
   * The depth of a node (the root is 0).
   *
   * @param i a node index
   * @returns its depth
   */
  depth(i: number): number {
    this.node(i);
    return this.table.column(COL_DEPTH)[i]!;
  }

  #encode(p: NodePredicate, out: Int32Array = this.#pred): Int32Array {
    out.fill(0);
    let clauses = 0;
    for (const [key, column] of STRING_ENTRIES) {
      const v = p[key];
      if (v === undefined) continue;
      out[P_CLAUSES + 2 * clauses] = column;
      out[P_CLAUSES + 2 * clauses + 1] = this.table.stringId(v);
      clauses++;
    }
    out[P_CLAUSE_COUNT] = clauses;
    const flags = p.flags;
    if (flags !== undefined) {
      let mask = 0, value = 0;
      for (const [key, bit] of FLAG_ENTRIES) {
        const v = flags[key];
        if (v === undefined) continue;
        mask |= bit;
        if (v) value |= bit;
      }
      out[P_FLAGS_MASK] = mask;
      out[P_FLAGS_VALUE] = value;
    }
    if (p.descendantsOf === undefined) {
      out[P_TO] = this.size;
    } else {
      out[P_FROM] = p.descendantsOf + 1;
      out[P_TO] = this.subtreeEnd(p.descendantsOf);
    }
    return out;
  }
}
