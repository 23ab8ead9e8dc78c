/**
 * Refinement of a step's selectors from the hierarchies of every run ("Refine using data
 * from BOTH runs"): the candidates are the optimizer's own ranked selectors for the captured
 * node (or an ancestor with the same box: the agent may have pointed at the text inside a
 * labelled element); a candidate survives when it resolves uniquely on every run's screen to a
 * node whose identity agrees with the captured one and which is enabled when the captured one
 * was. Properties that changed between runs (a regenerated id, a shuffled CSS path) no longer
 * resolve there, so they drop out; the most durable survivors are kept, best first.
 *
 * Candidates are ranked at the heuristics level of the trail being validated, by the optimizer's
 * own functions: a v1 trail's as v1 ranked them, a v2 trail's with v2's web changes (a pattern
 * for a name holding a count or price, row anchors `childOf: { text }` for a control repeated in
 * rows with positional candidates rejected, a label over a glyph, the step's mode shaping the
 * order) — and checked against every run as the playback cascade looks them up at that level.
 * When the captured node is one of several identical controls (role, name and size agree) a
 * position among them is never kept, on the web or on Android (the identity check cannot tell
 * the rows apart; an Android control is kept scoped by a labelled ancestor, as the optimizer's
 * Android ranking scopes it, or the step stays unrefined), and when
 * its test id or id changed between runs it is ranked again without them, so the optimizer
 * anchors it to its row.
 *
 * @module
 */
import { matchWeb } from "../optimizer/mod.ts";
import { chooseSelector } from "../optimizer/mod.ts";
import { matchSelector } from "../optimizer/mod.ts";
import { CONTROL_KINDS, rankSelectors, shapeForMode } from "../optimizer/mod.ts";
import { ScreenTable } from "../screens/mod.ts";
import type { Selector, SelectorMode } from "../trail/mod.ts";
import type { Screen, UiNode } from "../screens/mod.ts";
import { identicalTwins, identityDiff, sameBounds, singledOutAt } from "./compare.ts";

/**
 * How many refined selectors a step keeps (the first, then fallbacks). A strict step keeps one:
 * strict replays only the primary selector (fails rather than heals), so a fallback would never
 * be tried, and it is the one exact property the optimizer's strict mode accepts.
 */
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
  /**
   * The heuristics level of the trail (`heuristicsLevel(config.heuristics)`, default 1): from
   * 2, candidates are ranked, shaped and matched as heuristics v2 does.
   */
  level?: number;
  /**
   * The step's selector mode (default adaptive): shapes v2's web ranking (strict: ids first).
   * Strict keeps one selector, and only one strict mode accepts (a unique id, test id or label;
   * at v2 on the web also a unique role + name): never text, a position or coordinates.
   */
  mode?: SelectorMode;
}

/** Heuristics v2 on the web: ranking, row anchors and `textRegex` as the v2 cascade reads them. */
function v2Web(options: RefineOptions): boolean {
  return options.platform === "web" && (options.level ?? 1) >= 2;
}

/**
 * The nodes a selector picks on a run's screen: as the optimizer matched it at the trail's level
 * (v2 on the web: a `textRegex` against an element's whole text, as the cascade reads it).
 */
function matchRun(
  table: ScreenTable,
  sel: Selector,
  v2web: boolean,
): { indices: number[]; count: number } {
  if (v2web && sel.textRegex !== undefined && sel.childOf === undefined) {
    return matchWeb(table, sel);
  }
  return matchSelector(table, sel, 2);
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
 * @param options platform, action kind, the trail's heuristics level and the step's mode
 * @returns the selectors (best first) with evidence, or why none holds in every run
 * @example
 * ```ts
 * import { makeNode } from "../screens/ui_node.ts";
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
  const v2web = v2Web(options);
  const level = options.level ?? 1;
  const tables = replays.map((s) => tableOf(s, options.tables));
  const strict = options.mode === "strict";
  const limit = strict ? 1 : MAX_REFINED_SELECTORS;
  const kept: Selector[] = [];
  const seen = new Set<string>();
  const evidence: string[] = [];
  let firstRejection: string | undefined;
  let positionalRejection: string | undefined;
  let strictRejection: string | undefined;
  // Identical controls (an "Add" in every row, an "Expand" on every notification): the identity
  // check cannot tell them apart, so a position among them would pass on whichever row a
  // reordered list shows there — on every platform. On Android the optimizer scopes such a
  // control by a labelled ancestor (`childOf: { contentDescription }` or an id), which is kept.
  const twins = identicalTwins(capTable, start, valueText);
  /** The node's properties that did not hold in a replay (a test id or id regenerated). */
  const changed = new Set<"testId" | "resourceId">();
  const tryCandidates = (table: ScreenTable, i: number) => {
    const node = capTable.node(i);
    // The optimizer's ranking at the trail's level (v1: as v1 ranked; v2: its changes too).
    const ranked = rankSelectors(table, i, {
      platform: options.platform,
      excludeText: valueText,
      level,
      control: CONTROL_KINDS.has(options.kind),
    });
    const candidates = v2web ? shapeForMode(ranked, options.mode ?? "adaptive") : ranked;
    for (const c of candidates) {
      if (kept.length >= limit) break;
      if (c.rejected || c.matches !== 1 || c.family === "xy") continue;
      if (strict && chooseSelector([c], "strict").error) {
        // Strict replays the one exact property the optimizer's strict mode takes, nothing else.
        strictRejection ??= `${describe(c.selector)}: not exact (strict mode takes a unique id, ` +
          "test id or label" + (v2web ? ", or role + name)" : ")");
        continue;
      }
      const sel = c.selector;
      if (sel.xy !== undefined) continue;
      // v1 kept no parent scope or index on the web (its cascade looked each property up on its
      // own); v2's row anchors and an index among identical rows are what its cascade replays.
      if (web && !v2web && (sel.childOf !== undefined || sel.index !== undefined)) continue;
      const key = JSON.stringify(sel);
      if (seen.has(key)) continue;
      seen.add(key);
      if (twins > 0 && positional(sel, v2web)) {
        positionalRejection ??= `${describe(sel)}: positional among ${twins + 1} identical ` +
          "elements (role, name and size agree), which a reordered list would swap";
        continue;
      }
      const problem = holdsInEveryRun(sel, node, tables, {
        valueText,
        capturedDisabled: !captured.node.enabled,
        v2web,
        singled: singledOutAt(capTable, i, valueText),
      });
      if (problem) {
        firstRejection ??= `${describe(sel)}: ${problem}`;
        if (i === start && sel.testId !== undefined && Object.keys(sel).length === 1) {
          changed.add("testId");
        }
        if (i === start && sel.id !== undefined && Object.keys(sel).length === 1) {
          changed.add("resourceId");
        }
        continue;
      }
      kept.push(sel);
      evidence.push(
        `${describe(sel)} resolves to the same element in all ${tables.length + 1} runs`,
      );
    }
  };
  for (const i of chain) tryCandidates(capTable, i);
  if (v2web && twins > 0 && changed.size > 0 && kept.length < limit) {
    // The capture's durable property changed between runs: ranked again without it, the
    // optimizer anchors the node to its row (`childOf: { text }`), as it does for a control
    // with nothing durable of its own.
    const without = withoutProperties(captured.screen, captured.node, changed);
    tryCandidates(ScreenTable.from(without), start);
  }
  if (kept.length === 0) {
    return {
      ok: false,
      reason: [firstRejection, positionalRejection, strictRejection].filter((r) => r).join("; ") ||
        "no durable property of the element is left once changed ones are dropped",
    };
  }
  return { ok: true, selectors: kept, evidence };
}

/**
 * A pick by position: an index or coordinates, and at v2 (which rejects them in favour of row
 * anchors) an `:nth-` CSS path; v1 kept its CSS paths, as v1 ranked them.
 */
function positional(sel: Selector, v2web: boolean): boolean {
  return sel.index !== undefined || sel.xy !== undefined ||
    (v2web && sel.cssPath !== undefined && /:nth-(?:of-type|child)\(/.test(sel.cssPath)) ||
    (sel.childOf !== undefined && positional(sel.childOf, v2web));
}

/**
 * The screen with `target`'s listed properties dropped (the rest of the tree shared).
 *
 * @param screen the screen
 * @param target a node of it
 * @param drop the properties to drop from that node
 * @returns a new screen of the same shape (node positions unchanged)
 */
export function withoutProperties(
  screen: Screen,
  target: UiNode,
  drop: ReadonlySet<"testId" | "resourceId">,
): Screen {
  const copy = (n: UiNode): UiNode => {
    const children = n.children.map(copy);
    const out: UiNode = { ...n, children };
    if (n === target) { for (const p of drop) delete out[p]; }
    return out;
  };
  return { ...screen, root: copy(screen.root) };
}

function holdsInEveryRun(
  sel: Selector,
  node: UiNode,
  tables: readonly ScreenTable[],
  how: {
    valueText: boolean;
    capturedDisabled: boolean;
    v2web: boolean;
    /** The captured node is the only one of its role, name and text in the capture. */
    singled?: boolean;
  },
): string | undefined {
  const { valueText, capturedDisabled } = how;
  for (const [k, t] of tables.entries()) {
    const m = matchRun(t, sel, how.v2web);
    if (m.count !== 1) return `matches ${Math.max(m.count, 0)} nodes in replay ${k + 1}`;
    const other = t.node(m.indices[0]!);
    let diff = identityDiff(node, other, { valueText });
    // a size change alone on an element singled out in both runs, or picked within its row by
    // the selector itself, is a restyle (compare.ts)
    if (
      diff.length === 1 && diff[0]!.startsWith("size ") &&
      ((how.singled && singledOutAt(t, m.indices[0]!, valueText)) ||
        sel.childOf?.text !== undefined)
    ) diff = [];
    if (diff.length > 0) return `picks a different element in replay ${k + 1} (${diff.join(", ")})`;
    if (!capturedDisabled && !other.enabled) return `picks a disabled element in replay ${k + 1}`;
  }
  return undefined;
}

/**
 * Drops the fallback selectors that did not hold in every run (a regenerated id, a point the
 * layout moved): each kept one resolves uniquely, on every replay screen, to an element whose
 * identity agrees with the captured one. The first selector is always kept: it is what replayed.
 * A strict step keeps only it (strict replays the primary only, so no fallback is proven).
 *
 * @param selectors the action's selectors, best first
 * @param captured the captured node (identity reference)
 * @param replays the replay screens of the action
 * @param options platform, action kind and the trail's heuristics level
 * @param capture the captured screen: says whether a dropped fallback held there (it changed
 *   between runs) or matched nothing in either run
 * @returns the kept selectors, the dropped ones and why each was dropped
 */
export function pruneSelectors(
  selectors: readonly Selector[],
  captured: UiNode,
  replays: readonly Screen[],
  options: RefineOptions,
  capture?: Screen,
): { kept: Selector[]; dropped: Selector[]; reasons: string[] } {
  const valueText = options.kind === "readText" || options.kind === "assertText";
  const tables = replays.map((s) => tableOf(s, options.tables));
  const kept: Selector[] = [];
  const dropped: Selector[] = [];
  const capTable = capture ? tableOf(capture, options.tables) : undefined;
  const at = capTable?.indexOf(captured) ?? -1;
  const how = {
    valueText,
    capturedDisabled: !captured.enabled,
    v2web: v2Web(options),
    singled: capTable !== undefined && at >= 0 && singledOutAt(capTable, at, valueText),
  };
  // Strict replays the primary only: a fallback is never tried, so it is never proven.
  const strict = options.mode === "strict";
  const reasons: string[] = [];
  for (const [i, sel] of selectors.entries()) {
    if (i === 0) {
      kept.push(sel);
      continue;
    }
    if (strict) {
      dropped.push(sel);
      reasons.push("strict replays the primary selector only");
      continue;
    }
    if (!holdsInEveryRun(sel, captured, tables, how)) {
      kept.push(sel);
      continue;
    }
    dropped.push(sel);
    const none = (t: ScreenTable) => matchRun(t, sel, how.v2web).count <= 0;
    if (capTable && none(capTable) && tables.every(none)) {
      reasons.push("matched nothing in either run");
    } else if (capTable && holdsInEveryRun(sel, captured, [capTable], how)) {
      reasons.push(
        `did not pick the element in the capture either: ${
          holdsInEveryRun(sel, captured, [capTable], how)!.replace(/ in replay 1/, "")
        }`,
      );
    } else reasons.push("changed between runs");
  }
  return { kept, dropped, reasons };
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
