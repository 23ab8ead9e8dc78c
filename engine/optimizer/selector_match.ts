/**
 * Selectors against a flattened screen: how many nodes a trail selector matches and which one,
 * through the {@linkcode ScreenTable} hot path (exact property counts in WASM; `childOf` as a
 * subtree range; `index` as the n-th match in document order). A text-only `childOf` (row
 * anchors) is matched as the web cascade does (`anchors.ts`).
 *
 * @module
 */
import type { NodePredicate, ScreenTable } from "../screens/mod.ts";
import { type Selector, textAnchors } from "../trail/mod.ts";
import { isAndroidTable, matchAndroidAnchored, matchWeb } from "./anchors.ts";

/** Properties a selector shares with the table's predicate columns. */
function predicateOf(sel: Selector): NodePredicate | undefined {
  const p: { -readonly [K in keyof NodePredicate]: NodePredicate[K] } = {};
  if (sel.textRegex !== undefined || sel.cssPath !== undefined || sel.xy !== undefined) {
    return undefined;
  }
  if (sel.id !== undefined) p.resourceId = sel.id;
  if (sel.testId !== undefined) p.testId = sel.testId;
  const desc = sel.contentDescription ?? sel.ariaLabel;
  if (desc !== undefined) p.contentDescription = desc;
  if (sel.role !== undefined) p.role = sel.role;
  if (sel.name !== undefined) p.name = sel.name;
  if (sel.text !== undefined) p.text = sel.text;
  if (sel.className !== undefined) p.className = sel.className;
  return p;
}

/**
 * The nodes a selector matches, in document order (at most `limit`), and how many there are.
 *
 * @param table the screen
 * @param sel the selector
 * @param limit how many indices to return
 * @returns indices and total count
 */
export function matchSelector(
  table: ScreenTable,
  sel: Selector,
  limit = 2,
): { indices: number[]; count: number } {
  if (sel.xy !== undefined) {
    const i = table.hitTest({ x: sel.xy[0], y: sel.xy[1] });
    return i < 0 ? { indices: [], count: 0 } : { indices: [i], count: 1 };
  }
  const anchors = textAnchors(sel);
  if (anchors && isAndroidTable(table)) {
    // as the Android player's row-anchored lookup (`AndroidScreenLookup`)
    const { childOf: _c, index, ...base } = sel;
    const all = matchSelector(table, base, table.size).indices;
    const kept = matchAndroidAnchored(table, all, anchors);
    if (index === undefined) return { indices: kept.slice(0, limit), count: kept.length };
    const i = kept[index];
    return i === undefined ? { indices: [], count: 0 } : { indices: [i], count: 1 };
  }
  if (anchors) return matchWeb(table, sel, anchors);
  let scope: number | undefined;
  if (sel.childOf !== undefined) {
    const parent = matchSelector(table, sel.childOf, 2);
    if (parent.count !== 1) return { indices: [], count: parent.count === 0 ? 0 : -1 };
    scope = parent.indices[0]!;
  }
  const pred = predicateOf(sel);
  let base: { indices: number[]; count: number };
  const want = sel.index !== undefined ? sel.index + 1 : limit;
  if (pred) {
    if (scope !== undefined) pred.descendantsOf = scope;
    base = Object.keys(pred).length === 0
      ? { indices: [], count: 0 }
      : want <= 1 && sel.index === undefined
      ? { indices: [], count: table.count(pred) }
      : table.matches(pred, want);
  } else {
    base = slowMatches(table, sel, scope, want);
  }
  if (sel.index !== undefined) {
    const i = base.indices[sel.index];
    return i === undefined ? { indices: [], count: 0 } : { indices: [i], count: 1 };
  }
  return base;
}

/** Selectors with a regex or a CSS path: a TS loop over the nodes (rare, cold). */
function slowMatches(
  table: ScreenTable,
  sel: Selector,
  scope: number | undefined,
  want: number,
): { indices: number[]; count: number } {
  const from = scope === undefined ? 0 : scope + 1;
  const to = scope === undefined ? table.size : table.subtreeEnd(scope);
  const re = sel.textRegex !== undefined ? safeRegex(sel.textRegex) : undefined;
  const indices: number[] = [];
  let count = 0;
  for (let i = from; i < to; i++) {
    const n = table.node(i);
    if (sel.id !== undefined && n.resourceId !== sel.id) continue;
    if (sel.testId !== undefined && n.testId !== sel.testId) continue;
    const desc = sel.contentDescription ?? sel.ariaLabel;
    if (desc !== undefined && n.contentDescription !== desc) continue;
    if (sel.role !== undefined && n.role !== sel.role) continue;
    if (sel.name !== undefined && n.name !== sel.name) continue;
    if (sel.text !== undefined && n.text !== sel.text) continue;
    if (sel.className !== undefined && n.className !== sel.className) continue;
    if (sel.cssPath !== undefined && n.attrs?.cssPath !== sel.cssPath) continue;
    if (re && (n.text === undefined || !re.test(n.text))) continue;
    count++;
    if (indices.length < want) indices.push(i);
  }
  return { indices, count };
}

function safeRegex(src: string): RegExp | undefined {
  try {
    return new RegExp(`^(?:${src})$`);
  } catch {
    return undefined;
  }
}

/**
 * The one node a selector picks, or -1 when it matches none or several.
 *
 * @param table the screen
 * @param sel the selector
 * @returns the node index or -1
 */
export function resolveSelector(table: ScreenTable, sel: Selector): number {
  const m = matchSelector(table, sel, 2);
  return m.count === 1 ? (m.indices[0] ?? -1) : -1;
}

/**
 * How many nodes a selector matches (-1: its `childOf` is itself ambiguous).
 *
 * @param table the screen
 * @param sel the selector
 * @returns the count
 */
export function countSelector(table: ScreenTable, sel: Selector): number {
  return matchSelector(table, sel, 1).count;
}
