/**
 * The selectors pass: for every resolved node, candidates ranked by durability, each checked
 * for uniqueness against the whole screen, minimised (one property before two), with parent
 * context or an index added only when needed. Generated ids and class names are never chosen.
 *
 * Ranking: Android/iOS id > contentDescription > type + parent context > text >
 * class + index > xy; web (the cascade's order) testId > aria-label > role + name > id > text >
 * CSS path > xy. Lower scores are more durable.
 *
 * This module is the pass; the ranking lives beside it: the scores (`scores.ts`), a node's
 * candidates (`rank.ts`) with the web refinements (`rank_web.ts`), and a recorder's own
 * selectors read back (`rank_recorded.ts`).
 *
 * @module
 */
import type { ScreenTable } from "../screens/mod.ts";
import type { Selector, SelectorMode } from "../trail/mod.ts";
import type { Candidate, Draft, DraftAction, PassContext } from "./draft.ts";
import { matchSelector } from "./selector_match.ts";
import { isPageCssPath } from "../playback/mod.ts";
import { readAriaChain } from "../formats/mod.ts";
import { dynamicPattern, elementText, norm } from "./anchors.ts";
import {
  TEXT_PATTERN_PENALTY,
  TEXT_SCORE,
  WEB_ARIA_LABEL_SCORE,
  WEB_ID_SCORE,
  WEB_ROLE_NAME_SCORE,
  WEB_TEST_ID_SCORE,
  WEB_TEXT_SCORE,
} from "./scores.ts";
import { rankSelectors } from "./rank.ts";
import { PAGE_ROLES } from "./rank_web.ts";
import { rankRecordedSelectors, refineRecorded } from "./rank_recorded.ts";

export { dynamicDescriptionReason, isEditable, type RankOptions, rankSelectors } from "./rank.ts";
export { rankRecordedSelectors } from "./rank_recorded.ts";

/** Actions whose node's own text is the value read or asserted. */
const VALUE_KINDS = new Set(["readText", "assertText"]);
/** Actions on a control (v2, Android: an unlabelled one is named by a child's label). */
export const CONTROL_KINDS: ReadonlySet<string> = new Set([
  "tap",
  "doubleTap",
  "longPress",
  "check",
]);

/**
 * The selectors pass, one action at a time: ranks the candidates of a resolved action, right
 * after its node is resolved, while its screen is at hand (the pass needs nothing of the other
 * actions but the texts the capture typed, read here once).
 *
 * @param draft the draft (its model, level and mode)
 * @param ctx screen tables
 * @returns the pass for one action of a step (the step's text and selector mode)
 */
export function actionSelectors(
  draft: Draft,
  ctx: PassContext,
): (a: DraftAction, s: { text: string; selectorMode?: SelectorMode }) => DraftAction {
  const platform = draft.model.platform;
  const v2web = platform === "web" && draft.level >= 2;
  const typedValues = new Set<string>();
  for (const a of draft.model.actions) {
    const text = a.data.kind === "inputText" ? a.data.text : undefined;
    if (a.ok && text !== undefined && text.trim() !== "") typedValues.add(norm(text));
  }
  return (a: DraftAction, s: { text: string; selectorMode?: SelectorMode }): DraftAction => {
    const mode = s.selectorMode ?? draft.mode;
    const recorded = a.src.data.target?.selectors;
    if (
      a.node === undefined && (a.src.screen === undefined || a.recorderTarget) && recorded
    ) {
      const attribute = a.src.data.toolParams?.selectorAttribute;
      let candidates = rankRecordedSelectors(recorded, {
        level: draft.level,
        chrome: draft.model.sourceFormat === "chrome-recorder",
        ...(typeof attribute === "string" ? { testAttribute: attribute } : {}),
      });
      if (candidates.length === 0) return a;
      if (v2web) {
        candidates = shapeForMode(refineRecorded(candidates), mode, draft.level);
      }
      const notes = a.recorderTarget
        ? [...a.notes]
        : [...a.notes, "no screen captured: selectors from the recorder, unverified"];
      const start = candidates.find((c) => c.family === "text" && c.selector.textRegex);
      if (start && recorded.text !== undefined) {
        notes.push(
          `recorder text/${recorded.text}: the first words of the element's text (Chrome ` +
            `finds the element containing them), as ${JSON.stringify(start.selector.textRegex)}`,
        );
      }
      const chain = v2web && recorded.aria?.includes(" >>> ")
        ? readAriaChain(recorded.aria)
        : undefined;
      if (chain) {
        notes.push(
          `recorder chain aria/${recorded.aria}: the element named ${JSON.stringify(chain.name)}${
            chain.inside.length > 0
              ? ` (the ${chain.inside.join(" in a ")} acted on lies inside it)`
              : ""
          }`,
        );
      }
      return { ...a, candidates, notes };
    }
    if (a.kind === "keyPress" && draft.level >= 3) return focusTarget(a, draft, mode, ctx);
    if (a.node === undefined || a.src.screen === undefined) return a;
    const table = ctx.table(a.src.screen);
    if (!table) return a;
    const size = draft.model.sizes.get(a.src.screen);
    let candidates = rankSelectors(table, a.node, {
      platform,
      ...(a.point ? { point: a.point } : {}),
      ...(size ? { size } : {}),
      excludeText: VALUE_KINDS.has(a.kind),
      level: draft.level,
      control: CONTROL_KINDS.has(a.kind),
      ...(draft.level >= 3 && s.text ? { stepText: s.text } : {}),
    });
    if (!v2web) {
      // v3, Android: an assertion is also found by the text it asserts (the shape of it,
      // when its numbers are values), as Maestro's `assertVisible` finds it: a fallback
      // that holds when the id is renamed and the layout moves
      // (adaptive only, and only beside a more durable selector: a fallback, never the lead)
      if (
        platform === "android" && draft.level >= 3 && a.kind === "assertText" &&
        a.literal !== undefined && mode === "adaptive" &&
        candidates.some((c) =>
          !c.rejected && c.matches === 1 && c.selector.xy === undefined &&
          c.score < TEXT_SCORE
        )
      ) {
        const own = assertedText(table, a.node, a.literal, candidates);
        if (own) candidates = [...candidates, own];
      }
      return { ...a, candidates };
    }
    // v3: an assertion of a value this trail typed (a task's title as entered): its own text,
    // when it picks the element alone — the slots pass writes it as the typed slot
    if (draft.level >= 3 && a.kind === "assertText" && a.literal !== undefined) {
      const typed = typedText(table, a.node, a.literal, typedValues);
      if (typed) candidates = [...candidates, typed];
    }
    let notes = a.notes;
    if (draft.level >= 3 && PRESS_KINDS.has(a.kind) && a.src.data.source === "human") {
      const pressed = pressedInside(table, a.node, a.src.data.target?.selectors);
      if (pressed) {
        candidates = [pressed.candidate, ...candidates];
        notes = [...notes, pressed.note];
      }
    }
    candidates = shapeForMode(candidates, mode, draft.level);
    const out: DraftAction = { ...a, candidates, notes };
    // The text a visibility check saw (the target the agent named): kept, so the check
    // still says what it checked when its selector does not carry it.
    const name = a.src.data.target?.name;
    if (a.kind === "assertVisible" && a.literal === undefined && name !== undefined) {
      const shown = elementText(table, a.node);
      if (shown !== "" && shown === norm(name) && !dynamicPattern(shown, true)) {
        out.literal = shown;
        out.notes = [...a.notes, `asserted text ${JSON.stringify(shown)} (the target's name)`];
      }
    }
    return out;
  };
}

/** Presses whose element a person's recording names itself (v3: {@linkcode pressedInside}). */
const PRESS_KINDS: ReadonlySet<string> = new Set(["tap", "doubleTap", "longPress"]);
/** v3: the element pressed, when the screen holds only a node around it: before that node's. */
const PRESSED_INSIDE_SCORE = WEB_TEST_ID_SCORE - 0.5;

/**
 * v3, web, a person's recording: the element pressed, by the recorder's CSS path of it, when the
 * screen's accessibility tree leaves it out (an SVG shape, a plain `div` block) and the point
 * resolved to an element around it that names nothing of it: not the page (a click on the
 * background is played at its point), not a control (a click inside a button is the button's),
 * nothing named, labelled or showing text — a structural wrapper (`body > svg` around the path
 * clicked, a `section` around the card clicked), whose selectors would act on the wrapper's
 * middle. The wrapper's own selectors follow it.
 */
function pressedInside(
  table: ScreenTable,
  node: number,
  recorded: Readonly<Record<string, string>> | undefined,
): { candidate: Candidate; note: string } | undefined {
  const path = recorded?.cssPath;
  const tag = recorded?.tag;
  if (path === undefined || tag === undefined || isPageCssPath(path)) return undefined;
  const n = table.node(node);
  const own = n.attrs?.tag;
  if (own === undefined || own === tag || isPageCssPath(n.attrs?.cssPath)) return undefined;
  if (PAGE_ROLES.has(n.role ?? n.className) || n.clickable || n.checkable) return undefined;
  if (n.name || n.contentDescription || n.testId || n.text) {
    return undefined;
  }
  const cssPath = path.replace(/^html > (?=body\b)/, "");
  return {
    candidate: {
      selector: { cssPath },
      score: PRESSED_INSIDE_SCORE,
      family: "cssPath",
      matches: 1,
    },
    note: `the ${tag} pressed, by the recorder's path of it (${JSON.stringify(cssPath)}): the ` +
      `screen has only the ${own}${n.resourceId ? `#${n.resourceId}` : ""} around it, which ` +
      "names nothing of it",
  };
}

/**
 * v3, Android: the candidate of an assertion's expected text — its pattern when it holds numbers
 * (`You sent \$\d[\d.,]* to Alex`), else the text itself — when it picks exactly the asserted
 * element (or one inside it) and no candidate is that selector already. A lookup by what is
 * asserted finds the element whatever its id or position; a different text fails the lookup
 * (and so the assertion), never passes it.
 */
function assertedText(
  table: ScreenTable,
  node: number,
  literal: string,
  have: readonly Candidate[],
): Candidate | undefined {
  const text = norm(literal);
  if (text === "" || !/[\p{L}\p{N}]/u.test(text)) return undefined;
  const pattern = dynamicPattern(text, true);
  const selector: Selector = pattern !== undefined ? { textRegex: pattern } : { text };
  if (have.some((c) => JSON.stringify(c.selector) === JSON.stringify(selector))) return undefined;
  const m = matchSelector(table, selector, 2);
  const i = m.indices[0];
  if (m.count !== 1 || i === undefined || i < node || i >= table.subtreeEnd(node)) return undefined;
  return pattern !== undefined
    ? {
      selector,
      score: TEXT_SCORE + TEXT_PATTERN_PENALTY,
      family: "textPattern",
      matches: 1,
      valueShape: true,
      assertsOwnText: true,
    }
    : { selector, score: TEXT_SCORE, family: "text", matches: 1, assertsOwnText: true };
}

/**
 * v3, Android: an assertion's own-text fallback ({@linkcode assertedText}) is the recorded text;
 * once the expected text became a template (a slot's or memory value, an expression) it would
 * find the element only with the recorded values, so it leaves the chain. Runs after the slots,
 * generalize and expressions passes.
 *
 * @param draft the draft
 * @returns the draft with those fallbacks left out where the assertion is templated
 */
export function assertedTextPass(draft: Draft): Draft {
  return {
    ...draft,
    steps: draft.steps.map((s) => ({
      ...s,
      actions: s.actions.map((a): DraftAction => {
        if (a.kind !== "assertText" || !a.equals?.includes("{{") || !a.selectors) return a;
        const own = new Set(
          (a.candidates ?? []).filter((c) => c.assertsOwnText).map((c) =>
            JSON.stringify(c.selector)
          ),
        );
        if (own.size === 0) return a;
        const kept = a.selectors.filter((sel) => !own.has(JSON.stringify(sel)));
        if (kept.length === a.selectors.length) return a;
        const out: DraftAction = { ...a, notes: [...a.notes] };
        delete out.selectors;
        if (kept.length === 1) out.selector = kept[0]!;
        else out.selectors = kept;
        out.notes.push(
          `left out the assertion's own text: the expected text ${
            JSON.stringify(a.equals)
          } is a template`,
        );
        return out;
      }),
    })),
  };
}

/**
 * v3: the text candidate of an assertion whose expected value was typed earlier in the trail, when
 * a text lookup of it picks exactly the asserted element (or one inside it). Excluded by default
 * (a read's text is its value), it is the one selector of a typed title that holds across a
 * moved layout; the slots pass writes it with the typed slot's template.
 */
function typedText(
  table: ScreenTable,
  node: number,
  literal: string,
  typed: ReadonlySet<string>,
): Candidate | undefined {
  const text = norm(literal);
  if (text === "" || !typed.has(text)) return undefined;
  const m = matchSelector(table, { text }, 2);
  const i = m.indices[0];
  if (m.count !== 1 || i === undefined || i < node || i >= table.subtreeEnd(node)) return undefined;
  return { selector: { text }, score: WEB_TEXT_SCORE, family: "text", matches: 1 };
}

/**
 * v3: a key press goes to the element that had focus on the screen captured before it (the
 * deepest focused node that is not the page): its candidates, without coordinates (focusing by
 * a click could act). None focused: a page-level key, as recorded.
 */
function focusTarget(
  a: DraftAction,
  draft: Draft,
  mode: SelectorMode,
  ctx: PassContext,
): DraftAction {
  // a recorder's key on the body is a key of the page (resolve.ts says so in its notes)
  if (a.src.screen === undefined || isPageCssPath(a.src.data.target?.selectors?.cssPath)) return a;
  const table = ctx.table(a.src.screen);
  if (!table) return a;
  let focused = -1;
  for (let i = 0; i < table.size; i++) {
    const n = table.node(i);
    if (n.focused && !PAGE_ROLES.has(n.role ?? n.className)) focused = i;
  }
  if (focused < 0) return a;
  const platform = draft.model.platform;
  let candidates = rankSelectors(table, focused, { platform, level: draft.level })
    .filter((c) => c.selector.xy === undefined);
  if (platform === "web") candidates = shapeForMode(candidates, mode, draft.level);
  const n = table.node(focused);
  const what = `${n.role ?? n.className}${n.name ? ` ${JSON.stringify(n.name)}` : ""}`;
  return {
    ...a,
    node: focused,
    candidates,
    notes: [...a.notes, `pressed into the focused ${what}`],
  };
}

const WEB_FAMILY_SCORE: Record<string, number> = {
  testId: WEB_TEST_ID_SCORE,
  id: WEB_ID_SCORE,
  contentDescription: WEB_ARIA_LABEL_SCORE,
  roleName: WEB_ROLE_NAME_SCORE,
};
const STRICT_ORDER: Record<string, number> = {
  testId: WEB_TEST_ID_SCORE,
  id: WEB_TEST_ID_SCORE + 0.5,
  contentDescription: WEB_ARIA_LABEL_SCORE,
  roleName: WEB_ROLE_NAME_SCORE,
};

/**
 * Heuristics v2 on the web, by the step's mode: strict takes an authored test id or id before
 * an aria-label (copy), and a unique role + name (or a recorder's accessible name) when nothing
 * else is exact; flexible replays no coordinates, so they are rejected there. Validation's
 * refinement ranks a v2 trail's candidates through it too.
 *
 * @param candidates ranked candidates ({@linkcode rankSelectors} at level 2)
 * @param mode the step's selector mode
 * @returns the candidates reordered (copies), rejected ones last
 */
export function shapeForMode(
  candidates: Candidate[],
  mode: SelectorMode,
  level = 2,
): Candidate[] {
  const out = candidates.map((c) => ({ ...c }));
  for (const c of out) {
    if (mode === "flexible" && c.family === "xy" && !c.rejected) {
      c.rejected = "coordinates: flexible mode replays none";
    }
    if (mode !== "strict") continue;
    const s = c.selector;
    const plain = s.childOf === undefined && s.index === undefined;
    const order = STRICT_ORDER[c.family];
    // role + name, or a recorder's accessible name alone (`aria/Submit`)
    const roleName = c.family === "roleName" && s.name !== undefined &&
      Object.keys(s).every((k) => k === "role" || k === "name");
    // the page itself ({@linkcode pageCandidates}): its body, one per page
    const page = c.exact === true && s.cssPath === "body" && Object.keys(s).length === 1;
    // v3: an exact property within a parent an exact property names (parent context)
    const scoped = level >= 3 && order !== undefined && c.family !== "roleName" &&
      scopedExactSelector(s);
    c.exact = scoped || page || plain && order !== undefined &&
        (roleName || Object.keys(s).length === 1 && c.family !== "roleName");
    if (c.exact) c.score = order! + Math.max(0, c.score - WEB_FAMILY_SCORE[c.family]!) / 10;
  }
  return out.sort((a, b) => (a.rejected ? 1 : 0) - (b.rejected ? 1 : 0) || a.score - b.score);
}

const EXACT_KEYS = new Set(["id", "testId", "contentDescription", "ariaLabel"]);

/**
 * v3, strict: `{ id: x, childOf: { testId: row } }`, an exact property unique within a parent
 * one exact property names ("add parent context"), or within the row a row anchor names
 * (`{ id: expand_button, childOf: { text: "USB debugging connected" } }`: the id repeats in
 * every row, the row's text picks one; an anchor is never a text with a number in it).
 *
 * @param sel a selector
 * @returns whether strict mode may take it
 * @example
 * ```ts
 * if (!scopedExactSelector({ id: "title", childOf: { id: "row-3" } })) throw new Error();
 * if (!scopedExactSelector({ id: "more", childOf: { text: "Alex" } })) throw new Error();
 * if (scopedExactSelector({ text: "Add", childOf: { id: "row-3" } })) throw new Error();
 * ```
 */
export function scopedExactSelector(sel: Selector): boolean {
  const keys = Object.keys(sel);
  if (keys.length !== 2 || sel.childOf === undefined) return false;
  if (!keys.some((k) => EXACT_KEYS.has(k))) return false;
  const parent = Object.keys(sel.childOf);
  return parent.length === 1 && (EXACT_KEYS.has(parent[0]!) || parent[0] === "text");
}
