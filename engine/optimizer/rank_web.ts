/**
 * The web side of ranking: the page itself as a target, rows anchored by their text, roles with
 * their names, and editable text demoted (what a field shows is what the user typed).
 *
 * @module
 */
import type { ScreenTable } from "../screens/mod.ts";
import type { Selector } from "../trail/mod.ts";
import type { UiNode } from "../screens/mod.ts";
import type { Candidate } from "./draft.ts";
import { generatedIdReason } from "./generated.ts";
import {
  dynamicPattern,
  elementText,
  findAnchors,
  matchWeb,
  norm,
  withAnchors,
} from "./anchors.ts";
import {
  EDITABLE_TEXT_PENALTY,
  TEXT_PATTERN_PENALTY,
  WEB_ARIA_LABEL_SCORE,
  WEB_CSS_PATH_SCORE,
  WEB_ID_SCORE,
  WEB_ROLE_NAME_SCORE,
  WEB_TEST_ID_SCORE,
  WEB_TEXT_SCORE,
  WEB_XY_SCORE,
  WITH_INDEX_PENALTY,
  WITH_PARENT_PENALTY,
} from "./scores.ts";
import { editableContent, isEditable, type RankOptions } from "./rank.ts";

/** Roles of containers: their text is what they hold, not what they are. */
export const CONTAINER_ROLES =
  /^(generic|group|region|section|article|main|complementary|navigation|form|dialog|list|log|feed|tabpanel|document|application|textbox)$/i;

/** Roles of the page itself (Chrome's root, the document): no lookup finds them by role. */
export const PAGE_ROLES: ReadonlySet<string> = new Set(["RootWebArea", "WebArea", "document"]);

/**
 * v2, web: an action on the page itself (a click on its background, the hit test's root). A
 * role + name of the root (`RootWebArea "Shop"`) names no element the player can look up, so
 * the page is `cssPath: body`, as the Chrome Recorder writes a click on the body, with the point
 * (the player clicks the page there, refusing it when a control is there now). The body is one
 * per page: exact, so strict mode takes it too.
 */
export function pageCandidates(n: UiNode, options: RankOptions): Candidate[] {
  const out: Candidate[] = [
    {
      selector: { cssPath: "body" },
      score: WEB_CSS_PATH_SCORE,
      family: "cssPath",
      matches: 1,
      exact: true,
    },
  ];
  if (options.point) {
    const sel: Selector = { xy: [Math.round(options.point.x), Math.round(options.point.y)] };
    if (options.size) sel.viewport = { width: options.size.width, height: options.size.height };
    out.push({ selector: sel, score: WEB_XY_SCORE, family: "xy", matches: 1 });
  }
  const role = n.role ?? n.className;
  if (n.name && role) {
    out.push({
      selector: { role, name: n.name },
      score: WEB_ROLE_NAME_SCORE,
      family: "roleName",
      matches: -1,
      rejected: `the page itself (${role}): no lookup finds it by role`,
    });
  }
  return out;
}

export const WITH_ANCHOR_PENALTY = WITH_PARENT_PENALTY; // scoped to the row that shows a text
export const SECOND_ANCHOR_PENALTY = 0.2;
/** v3: a control's role alone within its row: after its row-scoped labels and texts. */
export const ROW_ROLE_SCORE = WEB_CSS_PATH_SCORE - 0.5;
/** The roles the web player finds by role alone within a row (see the cascade's ROW_ROLES). */
export const ROW_ROLES: ReadonlySet<string> = new Set([
  "checkbox",
  "radio",
  "combobox",
  "button",
  "link",
]);
export const DYNAMIC_PENALTY = 3; // a number in a name: kept only when nothing else is left
export const INTERACTIVE_HOPS = 3; // the player's coordinate check looks this far up (coordinates.ts)
/** A CSS path or selector that picks by position among siblings. */
export const POSITIONAL_CSS = /:nth-(?:of-type|child)\(/;

export function positional(c: Candidate): boolean {
  const s = c.selector;
  return s.index !== undefined || s.xy !== undefined ||
    (s.cssPath !== undefined && POSITIONAL_CSS.test(s.cssPath));
}

/** The copy a candidate matches by (aria-label, name, text), when it is one. */
export function copyOf(sel: Selector): string | undefined {
  if (sel.childOf !== undefined || sel.index !== undefined) return undefined;
  return sel.ariaLabel ?? sel.contentDescription ?? sel.name ?? sel.text;
}

/**
 * v3: whether the NL step names `copy` as it is, as a whole (`18:05` in "Pick the 18:05 show
 * for 2", not in "Pick the 18:055 show"): whitespace collapsed, case ignored, and no letter or
 * digit right before or after it.
 */
export function namedInStep(copy: string, stepText: string | undefined): boolean {
  if (stepText === undefined) return false;
  const fold = (t: string) => norm(t).toLowerCase();
  const c = fold(copy);
  const s = fold(stepText);
  if (c === "") return false;
  for (let at = s.indexOf(c); at >= 0; at = s.indexOf(c, at + 1)) {
    const before = s.slice(0, at);
    const after = s.slice(at + c.length);
    if (!/[\p{L}\p{N}]$/u.test(before) && !/^[\p{L}\p{N}]/u.test(after)) return true;
  }
  return false;
}

/**
 * Heuristics v2 on the web: candidates the player can replay as they were meant.
 *
 * - A name, label or text holding a number (`Checkout (2 items) $37.50`) becomes a pattern of
 *   the element's text; the exact copy is rejected while anything else works.
 * - A control or value without a unique durable property is anchored to its row by the text
 *   the row shows (`childOf: { text: Cactus }`), and positional candidates (an index, an
 *   `:nth-` CSS path, coordinates) are then rejected: a reordered list would move them.
 * - Coordinates on a point the player would refuse (no interactive element there) are rejected.
 * - Glyph text (`+`) is rejected while an aria-label or role + name names the control.
 */
export function refineWeb(
  table: ScreenTable,
  node: number,
  out: Candidate[],
  options: RankOptions,
  labelText: string | undefined,
): void {
  const n = table.node(node);
  const value = options.excludeText === true;
  const editable = isEditable(n) || editableContent(n);
  const ok = (c: Candidate) => !c.rejected && c.matches === 1;
  // Copy with numbers: a pattern of the whole text the element shows.
  const dynamic = new Map<Candidate, string>();
  for (const c of out) {
    const copy = copyOf(c.selector);
    const p = copy === undefined ? undefined : dynamicPattern(copy);
    // v3: the step names this copy as it is ("Pick the 18:05 show"): the choice, not data
    if (p !== undefined && options.level! >= 3 && namedInStep(copy!, options.stepText)) continue;
    if (p !== undefined && !c.rejected) dynamic.set(c, p);
  }
  const shown = value || editable ? undefined : elementText(table, node) || undefined;
  const pattern = shown === undefined ? undefined : dynamicPattern(shown);
  if (pattern !== undefined) {
    const m = matchWeb(table, { textRegex: pattern });
    const mine = m.count === 1 && m.indices[0] === node;
    out.push({
      selector: { textRegex: pattern },
      score: WEB_TEXT_SCORE + TEXT_PATTERN_PENALTY,
      family: "textPattern",
      matches: m.count,
      ...(mine ? {} : { rejected: `matches ${m.count} nodes` }),
    });
  }
  // Row anchors, when nothing durable picks the node alone.
  const durable = out.some((c) =>
    ok(c) && !positional(c) && !dynamic.has(c) && c.family !== "xy" && c.family !== "cssPath"
  );
  // v3: the row anchor is a fallback beside a durable property too (a chain's scoped text)
  if (!durable || (options.level ?? 1) >= 3) {
    const bases: { sel: Selector; family: string; score: number }[] = [];
    if (n.testId && !generatedIdReason(n.testId)) {
      bases.push({ sel: { testId: n.testId }, family: "testId", score: WEB_TEST_ID_SCORE });
    }
    if (n.contentDescription && !dynamicPattern(n.contentDescription)) {
      bases.push({
        sel: { ariaLabel: n.contentDescription },
        family: "contentDescription",
        score: WEB_ARIA_LABEL_SCORE,
      });
    }
    if (n.resourceId && !generatedIdReason(n.resourceId)) {
      bases.push({ sel: { id: n.resourceId }, family: "id", score: WEB_ID_SCORE });
    }
    const v3 = (options.level ?? 1) >= 3;
    const own = value || editable ? undefined : n.text ?? labelText;
    if (own && !dynamicPattern(own) && /[\p{L}\p{N}]/u.test(own)) {
      bases.push({ sel: { text: norm(own) }, family: "text", score: WEB_TEXT_SCORE });
    }
    const read = value ? dynamicPattern(n.text ?? elementText(table, node), true) : pattern;
    if (read !== undefined) {
      bases.push({
        sel: { textRegex: read },
        family: "textPattern",
        score: WEB_TEXT_SCORE + TEXT_PATTERN_PENALTY,
      });
    }
    const exclude = [n.text, n.name, labelText, shown].filter((t): t is string => !!t);
    // Beside a durable property (v3), only a text the row scopes is a fallback: an id within
    // its row fails when the id does, a text unique alone needs no row, and a role + name
    // within a row anchor is no lookup the web player makes.
    const copyOnly = (b: { family: string }) => b.family === "text" || b.family === "textPattern";
    const ambiguous = (b: { sel: Selector }) => matchWeb(table, b.sel).count !== 1;
    let anchoredKinds = 0;
    // v3: a value's shape unique on the page (the one price shown) is a fallback of its own
    const shape = bases.find((b) => b.family === "textPattern");
    if (v3 && durable && value && shape && !ambiguous(shape)) {
      const m = matchWeb(table, shape.sel);
      if (m.indices[0] === node) {
        out.push({
          selector: shape.sel,
          score: shape.score,
          family: "textPattern",
          matches: 1,
          valueShape: true,
        });
      }
    }
    for (const b of durable ? bases.filter((b) => copyOnly(b) && ambiguous(b)) : bases) {
      const found = findAnchors(table, node, b.sel, exclude);
      if (!found) continue;
      const { anchors, index } = found;
      const selector = withAnchors(b.sel, anchors);
      if (index !== undefined) selector.index = index;
      const penalty = WITH_ANCHOR_PENALTY + SECOND_ANCHOR_PENALTY * (anchors.length - 1) +
        (index === undefined ? 0 : WITH_INDEX_PENALTY);
      const anchored: Candidate = {
        selector,
        score: b.score + penalty,
        family: b.family,
        matches: 1,
        ...(value && b.sel.textRegex !== undefined ? { valueShape: true } : {}),
      };
      const rows = anchors.map((t) => JSON.stringify(t)).join(" / ");
      for (const c of out) {
        if (durable || c.rejected || !positional(c)) continue;
        c.rejected = index === undefined
          ? `positional: the row showing ${rows} picks it (a reordered list would move it)`
          : `positional among every row: counted among the rows showing ${rows} instead`;
      }
      out.push(anchored);
      // v2 takes the first; v3 a second kind too, a fallback within the same row
      if (!v3 || ++anchoredKinds >= 2) break;
    }
    // v3: the control's role alone within its row (the row's one checkbox, select or button):
    // it holds when copy renames the control and no test id is left
    const role = n.role ?? "";
    if (v3 && !durable && !value && ROW_ROLES.has(role)) {
      const found = findAnchors(table, node, { role }, exclude);
      if (found && found.index === undefined) {
        out.push({
          selector: withAnchors({ role }, found.anchors),
          score: ROW_ROLE_SCORE + SECOND_ANCHOR_PENALTY * (found.anchors.length - 1),
          family: "roleName",
          matches: 1,
        });
      }
    }
  }
  // Copy with numbers loses to anything else that works.
  const other = out.some((c) => ok(c) && !dynamic.has(c) && c.family !== "xy");
  for (const [c, p] of dynamic) {
    if (other) c.rejected = `dynamic: holds a number that changes (pattern ${JSON.stringify(p)})`;
    else c.score += DYNAMIC_PENALTY;
  }
  // A glyph ("+", "×") is no name while a label or role + name is one.
  const named = out.some((c) =>
    ok(c) && (c.family === "contentDescription" || c.family === "roleName")
  );
  for (const c of out) {
    const t = c.selector.text;
    if (!c.rejected && named && t !== undefined && !/[\p{L}\p{N}]/u.test(t)) {
      c.rejected = "a glyph, not a name: the label names the control";
    }
  }
  // A container's text is its content, which changes (a scroll container's "inner", an
  // editor's "hi"): its aria-label is its name, and flexible mode must not prefer the content.
  const label = out.find((c) =>
    ok(c) && c.family === "contentDescription" && c.selector.childOf === undefined &&
    c.selector.index === undefined
  );
  if (label && (editable || n.scrollable || CONTAINER_ROLES.test(n.role ?? n.className))) {
    const name = norm(label.selector.ariaLabel ?? "");
    for (const c of out) {
      const s = c.selector;
      if (c.rejected || (s.text === undefined && s.textRegex === undefined)) continue;
      if (s.text !== undefined && norm(s.text) === name) continue;
      c.rejected = `content of a ${n.role ?? n.className}, not its name: the aria-label ${
        JSON.stringify(label.selector.ariaLabel)
      } names it`;
    }
  }
  // Coordinates the player would refuse.
  const xy = out.find((c) => c.family === "xy" && !c.rejected);
  if (xy && options.point && !interactiveAt(table, options.point)) {
    xy.rejected = "coordinates on a non-interactive element: the player refuses them";
  }
}

/** Does the player's coordinate check find an interactive element at the point? */
export function interactiveAt(table: ScreenTable, point: { x: number; y: number }): boolean {
  const hit = table.hitTest(point);
  if (hit < 0) return false;
  const chain = [hit, ...table.ancestors(hit).slice(0, INTERACTIVE_HOPS)];
  return chain.some((i) => {
    const x = table.node(i);
    return x.clickable || x.checkable || x.hint !== undefined;
  });
}

/**
 * An editable field's text (placeholder or value) as a selector: rejected when any other
 * candidate besides xy works, else kept but ranked after every other selector.
 */
export function demoteEditableText(out: Candidate[]): void {
  const usesText = (c: Candidate) =>
    c.selector.text !== undefined || c.selector.textRegex !== undefined;
  const other = out.some((c) => !c.rejected && !usesText(c) && c.selector.xy === undefined);
  for (const c of out) {
    if (!usesText(c) || c.rejected) continue;
    if (other) c.rejected = "editable field: its text is a placeholder or the value typed";
    else c.score += EDITABLE_TEXT_PENALTY;
  }
}
