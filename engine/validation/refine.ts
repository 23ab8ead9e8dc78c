/**
 * Refinement of a step's selectors from the hierarchies of every run (000 "Refine using data
 * from BOTH runs"): the candidates are the optimizer's own ranked selectors for the captured
 * node (or an ancestor with the same box: the agent may have pointed at the text inside a
 * labelled element); a candidate survives when it resolves uniquely on every run's screen to a
 * node whose identity agrees with the captured one and which is enabled when the captured one
 * was. Properties that changed between runs (a regenerated id, a shuffled CSS path) no longer
 * resolve there, so they drop out; the most durable survivors are kept, best first.
 *
 * @module
 */
import { matchSelector } from "../optimizer/selector_match.ts";
import { rankSelectors } from "../optimizer/selectors.ts";
import { ScreenTable } from "../screen_table.ts";
import type { Selector } from "../trail.ts";
import type { Screen, UiNode } from "../ui_node.ts";
import { identityDiff, sameBounds } from "./compare.ts";

/** How many refined selectors a step keeps (the first, then fallbacks). */
export const MAX_REFINED_SELECTORS = 3;
/** How many ancestors with the same box are tried after the node itself. */
const MAX_SAME_BOX_ANCESTORS = 3;

/** The outcome of a refinement: selectors that hold in every run, or why there are none. */
export type Refinement =
  | { ok: true; selectors: Selector[]; evidence: string[] }
  | { ok: false; reason: string };

/** Options of {@linkcode refineSelectors}. */
export interface RefineOptions {
  platform: "web" | "android" | "ios";
  /** Trail action kind: for readText/assertText the text is the value, not an identity. */
  kind: string;
  /** Screen tables by screen, shared across calls. */
  tables?: WeakMap<Screen, ScreenTable>;
}

function tableOf(screen: Screen, cache: WeakMap<Screen, ScreenTable> | undefined): ScreenTable {
  let t = cache?.get(screen);
  if (!t) {
    t = ScreenTable.from(screen);
    cache?.set(screen, t);
  }
  return t;
}

function describe(sel: Selector): string {
  return Object.entries(sel).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(" ");
}

/**
 * Picks selectors that resolve to the captured element on the capture screen and on every
 * replay screen.
 *
 * @param captured the capture's screen and the node acted on
 * @param replays the replay screens of the same action, oldest first
 * @param options platform and action kind
 * @returns the selectors (best first) with evidence, or why none holds in every run
 * @example
 * ```ts
 * import { makeNode } from "../ui_node.ts";
 * const screen = (id: string, y: number) => ({
 *   platform: "web" as const, format: "chrome" as const, width: 400, height: 400,
 *   root: makeNode({ className: "RootWebArea", bounds: { x: 0, y: 0, w: 400, h: 400 }, children: [
 *     makeNode({ className: "button", role: "button", name: "Save", resourceId: id, clickable: true, bounds: { x: 0, y, w: 60, h: 20 } }),
 *   ] }),
 * });
 * const cap = screen("b-qzkx", 10);
 * const r = refineSelectors({ screen: cap, node: cap.root.children[0]! }, [screen("b-mwpa", 70)], { platform: "web", kind: "tap" });
 * if (!r.ok || r.selectors[0]!.name !== "Save") throw new Error();
 * ```
 */
export function refineSelectors(
  captured: { screen: Screen; node: UiNode },
  replays: readonly Screen[],
  options: RefineOptions,
): Refinement {
  const capTable = tableOf(captured.screen, options.tables);
  const start = capTable.indexOf(captured.node);
  if (start < 0) return { ok: false, reason: "the captured node is not on the captured screen" };
  const chain = [start];
  for (const a of capTable.ancestors(start)) {
    if (chain.length > MAX_SAME_BOX_ANCESTORS) break;
    if (!sameBounds(capTable.node(a).bounds, captured.node.bounds)) break;
    chain.push(a);
  }
  const valueText = options.kind === "readText" || options.kind === "assertText";
  const web = options.platform === "web";
  const tables = replays.map((s) => tableOf(s, options.tables));
  const kept: Selector[] = [];
  const seen = new Set<string>();
  const evidence: string[] = [];
  let firstRejection: string | undefined;
  for (const i of chain) {
    const node = capTable.node(i);
    const candidates = rankSelectors(capTable, i, {
      platform: options.platform,
      excludeText: valueText,
    });
    for (const c of candidates) {
      if (kept.length >= MAX_REFINED_SELECTORS) break;
      if (c.rejected || c.matches !== 1 || c.family === "xy") continue;
      const sel = c.selector;
      if (sel.xy !== undefined) continue;
      // The web cascade looks each property up on its own: a parent scope or index is not used.
      if (web && (sel.childOf !== undefined || sel.index !== undefined)) continue;
      const key = JSON.stringify(sel);
      if (seen.has(key)) continue;
      seen.add(key);
      const problem = holdsInEveryRun(sel, node, tables, valueText, !captured.node.enabled);
      if (problem) {
        firstRejection ??= `${describe(sel)}: ${problem}`;
        continue;
      }
      kept.push(sel);
      evidence.push(
        `${describe(sel)} resolves to the same element in all ${tables.length + 1} runs`,
      );
    }
  }
  if (kept.length === 0) {
    return {
      ok: false,
      reason: firstRejection ??
        "no durable property of the element is left once changed ones are dropped",
    };
  }
  return { ok: true, selectors: kept, evidence };
}

function holdsInEveryRun(
  sel: Selector,
  node: UiNode,
  tables: readonly ScreenTable[],
  valueText: boolean,
  capturedDisabled: boolean,
): string | undefined {
  for (const [k, t] of tables.entries()) {
    const m = matchSelector(t, sel, 2);
    if (m.count !== 1) return `matches ${Math.max(m.count, 0)} nodes in replay ${k + 1}`;
    const other = t.node(m.indices[0]!);
    const diff = identityDiff(node, other, { valueText });
    if (diff.length > 0) return `picks a different element in replay ${k + 1} (${diff.join(", ")})`;
    if (!capturedDisabled && !other.enabled) return `picks a disabled element in replay ${k + 1}`;
  }
  return undefined;
}

/**
 * Drops the fallback selectors that did not hold in every run (a regenerated id, a point the
 * layout moved): each kept one resolves uniquely, on every replay screen, to an element whose
 * identity agrees with the captured one. The first selector is always kept: it is what replayed.
 *
 * @param selectors the action's selectors, best first
 * @param captured the captured node (identity reference)
 * @param replays the replay screens of the action
 * @param options platform and action kind
 * @returns the kept selectors and the dropped ones
 */
export function pruneSelectors(
  selectors: readonly Selector[],
  captured: UiNode,
  replays: readonly Screen[],
  options: RefineOptions,
): { kept: Selector[]; dropped: Selector[] } {
  const valueText = options.kind === "readText" || options.kind === "assertText";
  const tables = replays.map((s) => tableOf(s, options.tables));
  const kept: Selector[] = [];
  const dropped: Selector[] = [];
  for (const [i, sel] of selectors.entries()) {
    if (i === 0 || !holdsInEveryRun(sel, captured, tables, valueText, !captured.enabled)) {
      kept.push(sel);
    } else dropped.push(sel);
  }
  return { kept, dropped };
}

/**
 * A one-line description of a selector (`role="button" name="Save"`).
 *
 * @param sel the selector
 * @returns the text
 */
export function describeSelector(sel: Selector): string {
  return describe(sel);
}
