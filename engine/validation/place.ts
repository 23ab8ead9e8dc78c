/**
 * Placing a failing action's element on the replay's own screen ("Refine using data from
 * BOTH runs", for a step whose selectors found nothing): the element the capture acted on is
 * looked for on the replay screen by its fingerprint — its role and accessible name (its text
 * when that is an identity and not the value read), its aria-label, the texts around it (the
 * row or form it sits in), its other attributes (placeholder, input type, link target), and,
 * among identical ones the rest cannot tell apart, its place among them when the screen has
 * as many of them in the same order. A disabled element never stands in for an enabled one, and
 * when two elements fit equally well nothing is placed (never a guess).
 *
 * The placed element's new selectors are the optimizer's own ranked candidates for it on the
 * replay screen ({@linkcode rankSelectors}), each checked to pick exactly that element there and
 * not another one on the captured screen; those that pick the captured element on the captured
 * screen as well (they held in both runs) come first.
 *
 * @module
 */
import { chooseSelector } from "../optimizer/mod.ts";
import { CONTROL_KINDS, isEditable, rankSelectors, shapeForMode } from "../optimizer/mod.ts";
import { elementText, matchWeb, norm } from "../optimizer/mod.ts";
import { matchSelector } from "../optimizer/mod.ts";
import { ScreenTable } from "../screens/mod.ts";
import type { Selector } from "../trail/mod.ts";
import type { Screen, UiNode } from "../screens/mod.ts";
import { identityDiff } from "./compare.ts";
import {
  describeSelector,
  MAX_REFINED_SELECTORS,
  type RefineOptions,
  withoutProperties,
} from "./refine.ts";

/** Where the captured element is on a replay screen, or why it cannot be said. */
export type Location =
  | { ok: true; index: number; how: string }
  | { ok: false; reason: string };

/** A placement: the element's new selectors on the replay screen, or why there are none. */
export type Placement =
  | { ok: true; index: number; selectors: Selector[]; evidence: string[] }
  | { ok: false; reason: string };

/** Ancestors looked through for the texts around an element. */
const CONTEXT_LEVELS = 6;
/** Texts kept of an element's surroundings. */
const CONTEXT_TEXTS = 30;
/** A text longer than this is content, not a label of the surroundings. */
const CONTEXT_TEXT_MAX = 80;

const VALUE_KINDS = new Set(["readText", "assertText"]);
/** Selector keys naming an attribute a build or a load may regenerate, not what is shown. */
const BY_ATTRIBUTE = /"(?:id|testId|resourceId|cssPath|className|classIndex)"/;

function tableOf(screen: Screen, cache: WeakMap<Screen, ScreenTable> | undefined): ScreenTable {
  let t = cache?.get(screen);
  if (!t) {
    t = ScreenTable.from(screen);
    cache?.set(screen, t);
  }
  return t;
}

function kindOf(n: UiNode): string {
  return n.role ?? n.className;
}

/**
 * The texts around node `i`: those of the nearest ancestor (up to {@linkcode CONTEXT_LEVELS}
 * up) that shows any text outside the node itself — the row, the form, the card it sits in.
 */
export function contextTexts(table: ScreenTable, i: number): Set<string> {
  const out = new Set<string>();
  const own = new Set(
    [table.node(i).name, table.node(i).text, elementText(table, i)].filter((t) => t).map((t) =>
      norm(t!)
    ),
  );
  const mine = [i, table.subtreeEnd(i)] as const;
  let level = 0;
  for (const a of table.ancestors(i)) {
    if (++level > CONTEXT_LEVELS) break;
    const end = table.subtreeEnd(a);
    for (let j = a + 1; j < end && out.size < CONTEXT_TEXTS; j++) {
      if (j >= mine[0] && j < mine[1]) continue;
      const n = table.node(j);
      const t = n.text ?? (n.children.length === 0 ? n.name : undefined);
      if (!t) continue;
      const s = norm(t);
      if (s && s.length <= CONTEXT_TEXT_MAX && !own.has(s)) out.add(s);
    }
    if (out.size > 0) break;
  }
  return out;
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let both = 0;
  for (const x of a) if (b.has(x)) both++;
  return both / (a.size + b.size - both);
}

/** Attributes other than the identity that agree (placeholder, input type, link, ids). */
function attributeAgreement(a: UiNode, b: UiNode, valueText: boolean): number {
  let n = 0;
  const same = (x: string | undefined, y: string | undefined) =>
    x !== undefined && x !== "" && x === y;
  if (same(a.hint, b.hint)) n++;
  if (same(a.attrs?.type, b.attrs?.type)) n++;
  if (same(a.attrs?.href, b.attrs?.href)) n++;
  if (same(a.testId, b.testId)) n++;
  if (same(a.resourceId, b.resourceId)) n++;
  // a value asserted or read is not its identity, but the same value is a hint
  if (valueText && same(a.text, b.text)) n++;
  return n;
}

/**
 * Finds the captured element on a replay screen by its fingerprint.
 *
 * @param captured the captured screen and the node acted on
 * @param replay the replay's screen
 * @param options platform and the action kind (for a read or assertion the text is a value)
 * @returns the replay node's index in its table, or why it cannot be placed
 * @example
 * ```ts
 * import { makeNode } from "../screens/ui_node.ts";
 * const screen = (testId?: string) => ({
 *   platform: "web" as const, format: "chrome" as const, width: 400, height: 400,
 *   root: makeNode({ className: "RootWebArea", bounds: { x: 0, y: 0, w: 400, h: 400 }, children: [
 *     makeNode({ className: "button", role: "button", name: "Save", ...(testId ? { testId } : {}), bounds: { x: 0, y: 10, w: 60, h: 20 } }),
 *   ] }),
 * });
 * const cap = screen("save");
 * const at = locateElement({ screen: cap, node: cap.root.children[0]! }, screen(), { platform: "web", kind: "tap" });
 * if (!at.ok || at.index !== 1) throw new Error();
 * ```
 */
export function locateElement(
  captured: { screen: Screen; node: UiNode },
  replay: Screen,
  options: RefineOptions,
): Location {
  const cap = tableOf(captured.screen, options.tables);
  const rep = tableOf(replay, options.tables);
  const ci = cap.indexOf(captured.node);
  if (ci < 0) return { ok: false, reason: "the captured node is not on the captured screen" };
  const node = captured.node;
  const valueText = VALUE_KINDS.has(options.kind);
  const kind = kindOf(node);
  // The identity compare.ts checks, but the size (a layout change is not another element) and,
  // for a field, its text (the value typed there, not what it is).
  const field = isEditable(node);
  const alike = (n: UiNode) =>
    identityDiff(node, n, { valueText }).filter((d) =>
      !d.startsWith("size ") && !(field && d.startsWith("text "))
    ).length === 0;
  const enabled: number[] = [];
  const disabled: number[] = [];
  for (let j = 0; j < rep.size; j++) {
    const n = rep.node(j);
    if (kindOf(n) !== kind || !n.visible || !alike(n)) continue;
    (node.enabled && !n.enabled ? disabled : enabled).push(j);
  }
  const label = `${kind}${node.name && !valueText ? ` ${JSON.stringify(node.name)}` : ""}`;
  if (enabled.length === 0) {
    return {
      ok: false,
      reason: disabled.length > 0
        ? `the only ${label} on the replay's screen is disabled`
        : `no ${label} on the replay's screen`,
    };
  }
  if (enabled.length === 1) {
    return { ok: true, index: enabled[0]!, how: `the only ${label} on the replay's screen` };
  }
  // Several alike: the texts around them, then their other attributes, tell them apart.
  const around = contextTexts(cap, ci);
  const scored = enabled.map((j) => ({
    j,
    context: jaccard(around, contextTexts(rep, j)),
    attrs: attributeAgreement(node, rep.node(j), valueText),
  })).sort((a, b) => b.context - a.context || b.attrs - a.attrs);
  const [best, second] = [scored[0]!, scored[1]!];
  if (best.context > second.context) {
    const shared = [...around].filter((t) => contextTexts(rep, best.j).has(t)).slice(0, 3);
    return {
      ok: true,
      index: best.j,
      how: `the ${label} beside ${shared.map((t) => JSON.stringify(t)).join(", ")}` +
        ` (${enabled.length} on the replay's screen)`,
    };
  }
  if (best.attrs > second.attrs) {
    return {
      ok: true,
      index: best.j,
      how: `the ${label} whose other attributes agree (${enabled.length} on the replay's screen)`,
    };
  }
  // Identical in every way looked at: their place among them, when the screen has as many as
  // the capture had, in the same order.
  const capAlike: number[] = [];
  for (let j = 0; j < cap.size; j++) {
    const n = cap.node(j);
    if (kindOf(n) === kind && n.visible && (!node.enabled || n.enabled) && alike(n)) {
      capAlike.push(j);
    }
  }
  const tied = scored.filter((s) => s.context === best.context && s.attrs === best.attrs);
  const ordinal = capAlike.indexOf(ci);
  if (capAlike.length === enabled.length && tied.length === enabled.length && ordinal >= 0) {
    return {
      ok: true,
      index: enabled[ordinal]!,
      how: `the ${
        ordinal + 1
      }. of ${enabled.length} identical ${label} elements, as in the capture`,
    };
  }
  return {
    ok: false,
    reason: `${tied.length} ${label} elements on the replay's screen fit equally well ` +
      "(name, surroundings and attributes agree): none is picked",
  };
}

/** The nodes a selector picks, as the cascade looks it up at the level (see refine.ts). */
function picks(table: ScreenTable, sel: Selector, v2web: boolean): number[] {
  const m = v2web && sel.textRegex !== undefined && sel.childOf === undefined
    ? matchWeb(table, sel)
    : matchSelector(table, sel, 2);
  return m.count === 1 ? m.indices.slice(0, 1) : m.count > 1 ? [-1, -1] : [];
}

/** A pick by position (index, coordinates, an `:nth-` CSS path). */
function positional(sel: Selector): boolean {
  return sel.index !== undefined || sel.xy !== undefined ||
    (sel.cssPath !== undefined && /:nth-(?:of-type|child)\(/.test(sel.cssPath)) ||
    (sel.childOf !== undefined && positional(sel.childOf));
}

/**
 * Places the captured element on a replay screen and ranks its new selectors there.
 *
 * @param captured the captured screen and the node acted on
 * @param replay the replay's screen (the one the failing action looked at)
 * @param options platform, action kind, heuristics level and the step's mode, as refinement
 * @returns the selectors (best first) with evidence, or why the element cannot be placed
 */
export function placeSelectors(
  captured: { screen: Screen; node: UiNode },
  replay: Screen,
  options: RefineOptions,
): Placement {
  const at = locateElement(captured, replay, options);
  if (!at.ok) return at;
  const cap = tableOf(captured.screen, options.tables);
  const rep = tableOf(replay, options.tables);
  const ci = cap.indexOf(captured.node);
  const web = options.platform === "web";
  const v2web = web && (options.level ?? 1) >= 2;
  const valueText = VALUE_KINDS.has(options.kind);
  const strict = options.mode === "strict";
  const limit = strict ? 1 : MAX_REFINED_SELECTORS;
  const both: Selector[] = [];
  const replayOnly: Selector[] = [];
  const seen = new Set<string>();
  const rejections: string[] = [];
  // The element itself, then up to three ancestors with its box (a label inside a button).
  const nodes = [at.index];
  for (const a of rep.ancestors(at.index)) {
    if (nodes.length > 3) break;
    const b = rep.node(a).bounds;
    const m = rep.node(at.index).bounds;
    if (b.x !== m.x || b.y !== m.y || b.w !== m.w || b.h !== m.h) break;
    nodes.push(a);
  }
  // The captured element and its same-box ancestors: what a selector may pick in the capture.
  const capSame = new Set([ci]);
  for (const a of cap.ancestors(ci)) {
    const b = cap.node(a).bounds;
    const m = captured.node.bounds;
    if (b.x !== m.x || b.y !== m.y || b.w !== m.w || b.h !== m.h) break;
    capSame.add(a);
  }
  for (const i of nodes) {
    // A test id or id the captured element did not have was regenerated (per load or build):
    // ranked without it, the optimizer names the element by what it shows, or anchors it to its
    // row (`childOf: { text }`) as it does a control with nothing durable of its own.
    const n = rep.node(i);
    const drop = new Set<"testId" | "resourceId">();
    if (n.testId !== undefined && n.testId !== captured.node.testId) drop.add("testId");
    if (n.resourceId !== undefined && n.resourceId !== captured.node.resourceId) {
      drop.add("resourceId");
    }
    const table = drop.size > 0 ? ScreenTable.from(withoutProperties(replay, n, drop)) : rep;
    const ranked = rankSelectors(table, i, {
      platform: options.platform,
      excludeText: valueText,
      level: options.level ?? 1,
      control: CONTROL_KINDS.has(options.kind),
    });
    const candidates = v2web ? shapeForMode(ranked, options.mode ?? "adaptive") : ranked;
    for (const c of candidates) {
      if (c.rejected || c.matches !== 1 || c.family === "xy") continue;
      const sel = c.selector;
      // never a position: a placed element is named by what it is, not where it happens to be
      if (positional(sel)) continue;
      if (web && !v2web && sel.childOf !== undefined) continue;
      if (strict && chooseSelector([c], "strict").error) continue;
      const key = JSON.stringify(sel);
      if (seen.has(key)) continue;
      seen.add(key);
      const here = picks(rep, sel, v2web);
      if (here.length !== 1 || here[0] !== i) {
        rejections.push(`${describeSelector(sel)}: does not pick it alone on the replay's screen`);
        continue;
      }
      const there = picks(cap, sel, v2web);
      if (there.length === 1 && !capSame.has(there[0]!)) {
        rejections.push(`${describeSelector(sel)}: picks another element in the capture`);
        continue;
      }
      if (there.length !== 1 && BY_ATTRIBUTE.test(JSON.stringify(Object.keys(sel)))) {
        // an id, test id or CSS path the captured element did not have: it changed between
        // runs (generated per load or per build), so it would not hold on the next one
        rejections.push(`${describeSelector(sel)}: not the captured element's (it changed)`);
        continue;
      }
      (there.length === 1 ? both : replayOnly).push(sel);
    }
  }
  const selectors = [...both, ...replayOnly].slice(0, limit);
  if (selectors.length === 0) {
    return {
      ok: false,
      reason: `found it (${at.how}) but no selector picks it alone` +
        (rejections.length ? `: ${rejections.slice(0, 2).join("; ")}` : "") +
        (strict ? " (strict takes a unique id, test id or label only)" : ""),
    };
  }
  const held = selectors.filter((s) => both.includes(s)).length;
  return {
    ok: true,
    index: at.index,
    selectors,
    evidence: [
      `placed by its fingerprint: ${at.how}`,
      `${selectors.map(describeSelector).join(", ")} pick${
        selectors.length === 1 ? "s" : ""
      } it alone there` +
      (held > 0
        ? ` (${held === selectors.length ? "each" : held} the captured element in the capture too)`
        : ""),
    ],
  };
}
