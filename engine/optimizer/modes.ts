/**
 * The modes pass: shapes each action's ranked candidates by the selector mode (000).
 *
 * - strict: one exact unique property (id, testId, contentDescription / ariaLabel); an action
 *   with none fails its step, which is marked `recordable: false` with a clear message.
 * - flexible: text or content description first (tolerant of structure changes; a number in
 *   the text becomes `\d+` in a `textRegex`), then the ranked best.
 * - adaptive: the best selector; when it is weaker than an authored id, an ordered fallback
 *   chain id → contentDescription → text → position (`selectors: [...]`).
 *
 * @module
 */
import type { Selector, SelectorMode } from "../trail.ts";
import type { Candidate, Draft, DraftAction } from "./draft.ts";
import { type ModeFlags, modeFlags } from "./heuristics.ts";

const EXACT_FAMILIES = new Set(["id", "testId", "contentDescription"]);
const AUTHORED_ID_FAMILIES = new Set(["id", "testId"]);
const CHAIN_ORDER = ["id", "testId", "contentDescription", "roleName", "text", "cssPath", "xy"];
/** Flexible mode's preference: copy with numbers as patterns, then copy, then labels. */
const LABEL_FAMILIES = ["textPattern", "text", "contentDescription"];

/** A mode's choice for one action. */
export interface Choice {
  selector?: Selector;
  selectors?: Selector[];
  /** Set when the mode cannot accept any candidate. */
  error?: string;
  chosen?: Candidate;
}

function single(sel: Selector): boolean {
  const keys = Object.keys(sel);
  return keys.length === 1;
}

/**
 * Chooses the selector (or chain) of one action from its ranked candidates.
 *
 * @param candidates ranked candidates (see `rankSelectors`)
 * @param mode the selector mode
 * @returns the choice, or an error when the mode accepts none
 */
export function chooseSelector(candidates: readonly Candidate[], mode: SelectorMode): Choice {
  const flags = modeFlags(mode);
  const ok = candidates.filter((c) => !c.rejected && c.matches === 1 && allowed(c, flags));
  if (flags.exactOnly) {
    const exact = ok.find((c) => c.exact ?? (EXACT_FAMILIES.has(c.family) && single(c.selector)));
    if (!exact) {
      return { error: "no unique id, testId or contentDescription (strict mode)" };
    }
    return { selector: exact.selector, chosen: exact };
  }
  if (ok.length === 0) return { error: "no unique selector" };
  if (flags.preferLabels) {
    for (const fam of LABEL_FAMILIES) {
      const c = ok.find((x) => x.family === fam);
      if (!c) continue;
      // A pattern falls back to the exact copy (for players that do not read textRegex).
      const exact = fam === "textPattern" ? ok.find((x) => x.family === "text") : undefined;
      if (exact) return { selectors: [c.selector, exact.selector], chosen: c };
      return { selector: c.selector, chosen: c };
    }
    return { selector: ok[0]!.selector, chosen: ok[0]! };
  }
  const best = ok[0]!;
  if (!flags.fallbackChain || AUTHORED_ID_FAMILIES.has(best.family)) {
    return { selector: best.selector, chosen: best };
  }
  const chain: Candidate[] = [best];
  for (const fam of CHAIN_ORDER) {
    const c = ok.find((x) => x.family === fam);
    if (c && !chain.includes(c)) chain.push(c);
  }
  if (chain.length === 1) return { selector: best.selector, chosen: best };
  return { selectors: chain.map((c) => c.selector), chosen: best };
}

function allowed(c: Candidate, flags: ModeFlags): boolean {
  const s = c.selector;
  if (!flags.allowXy && s.xy !== undefined) return false;
  if (!flags.allowText && (s.text !== undefined || s.textRegex !== undefined)) return false;
  return true;
}

/**
 * Applies a mode's choice to an action, recording what was chosen and rejected.
 *
 * @param a the action with candidates
 * @param mode the step's selector mode
 * @returns the action with `selector`/`selectors` set, and the error when none fits
 */
export function applyChoice(
  a: DraftAction,
  mode: SelectorMode,
): { a: DraftAction; error?: string } {
  if (!a.candidates) return { a };
  const choice = chooseSelector(a.candidates, mode);
  const out: DraftAction = { ...a, notes: [...a.notes] };
  delete out.selector;
  delete out.selectors;
  if (choice.selector) out.selector = choice.selector;
  if (choice.selectors) out.selectors = choice.selectors;
  for (const c of a.candidates) {
    if (c === choice.chosen) continue;
    if (c.rejected) out.notes.push(`rejected ${JSON.stringify(c.selector)}: ${c.rejected}`);
    else {out.notes.push(
        `passed over ${JSON.stringify(c.selector)} (${c.family}, score ${c.score})`,
      );}
  }
  if (choice.chosen) {
    out.notes.push(
      `chose ${
        JSON.stringify(choice.selectors ?? choice.selector)
      } (${choice.chosen.family}, ${mode})`,
    );
  }
  return choice.error ? { a: out, error: choice.error } : { a: out };
}

/** Kinds whose coordinates the player refuses without an element (v2, web). */
const XY_REFUSED = new Set(["readText", "assertText", "assertVisible"]);

/** Kinds that act on an element and need a selector. */
const TARGETED = new Set([
  "tap",
  "doubleTap",
  "hover",
  "longPress",
  "check",
  "select",
  "readText",
  "assertText",
  "assertVisible",
]);

/**
 * The modes pass: every action gets the selector its step's mode allows; in strict mode an
 * action with none fails its step (marked `recordable: false`, with a warning).
 *
 * @param draft the draft after the selectors pass
 * @returns the shaped draft
 */
export function modesPass(draft: Draft): Draft {
  const warnings = [...draft.warnings];
  const steps = draft.steps.map((s, si) => {
    const mode = s.selectorMode ?? draft.mode;
    let failed: string | undefined;
    const actions = s.actions.map((a) => {
      if (a.drop) return a;
      if (!a.candidates) {
        if (!TARGETED.has(a.kind) || !a.src.ok) return a;
        const flags = modeFlags(mode);
        // v2 (web): the player replays coordinates in adaptive mode only, and refuses them on
        // a read, an assertion or a point that hit nothing on the screen captured before
        // (`recordable: false` instead).
        const xyReplays = draft.level < 2 || draft.model.platform !== "web" ||
          (mode === "adaptive" && !XY_REFUSED.has(a.kind) && a.src.screen === undefined);
        if (a.point && flags.allowXy && xyReplays) {
          const size = a.src.screen ? draft.model.sizes.get(a.src.screen) : undefined;
          const selector: Selector = { xy: [Math.round(a.point.x), Math.round(a.point.y)] };
          if (size) selector.viewport = { width: size.width, height: size.height };
          return { ...a, selector, notes: [...a.notes, `chose ${JSON.stringify(selector)} (xy)`] };
        }
        if (a.kind === "assertVisible" && a.literal !== undefined && flags.allowText) {
          const selector: Selector = { text: a.literal };
          return {
            ...a,
            selector,
            notes: [...a.notes, `chose ${JSON.stringify(selector)} (text)`],
          };
        }
        if (a.unplayable === undefined) failed ??= `${a.kind} ${where(a)}: no resolved element`;
        return a;
      }
      const r = applyChoice(a.describedValue ? valueCarrying(a) : a, mode);
      // an action the player cannot do as recorded goes to the agent (concision): no selector
      // of it fails the step (`unplayable` is set from v2 only)
      if (r.error && a.src.ok && a.unplayable === undefined) {
        failed ??= `${a.kind} ${where(a)}: ${r.error}`;
      }
      const sel = r.a.selector;
      if (r.a.describedValue) return describedAssertion(r.a);
      if (r.a.showsNoText) return presenceCheck(r.a);
      if (
        r.a.kind === "assertVisible" && a.literal !== undefined && !r.a.selectors && sel &&
        !usesValue(sel, a.literal)
      ) {
        r.a.kind = "assertText";
        r.a.equals = a.literal;
        r.a.notes.push(`assertVisible → assertText: the selector does not carry the value`);
      }
      return r.a;
    });
    if (failed) {
      warnings.push(`Step ${si + 1} "${s.text}" is not recordable in ${mode} mode: ${failed}`);
      return { ...s, actions, recordable: false };
    }
    return { ...s, actions };
  });
  return { ...draft, steps, warnings };
}

/**
 * v2, Android: an assertion whose value is its node's content description may only use the
 * selectors that carry it (the player's assertText reads text, never the description), and the
 * point as adaptive mode's last resort.
 */
function valueCarrying(a: DraftAction): DraftAction {
  const carries = (c: Candidate) => c.selector.contentDescription !== undefined;
  if (!(a.candidates ?? []).some((c) => carries(c) && !c.rejected && c.matches === 1)) return a;
  const pool = a.candidates!.filter((c) => carries(c) || c.selector.xy !== undefined);
  return {
    ...a,
    candidates: pool,
    allCandidates: a.candidates!,
    notes: [
      ...a.notes,
      `the expected value is the node's content description: only selectors that carry it`,
    ],
  };
}

/**
 * v2, Android: an assertion of a content description is `assertVisible` of a selector that
 * carries it (finding the node checks the value); with no such selector it stays a presence
 * check rather than an assertText the player would read as the node's (empty) text.
 */
function describedAssertion(a: DraftAction): DraftAction {
  const carried = a.selector?.contentDescription !== undefined ||
    a.selectors?.[0]?.contentDescription !== undefined;
  if (a.kind === "assertVisible" && carried) return a;
  const out: DraftAction = { ...a, kind: "assertVisible", notes: [...a.notes] };
  delete out.equals;
  out.notes.push(
    carried
      ? `assertText → assertVisible: the selector carries the expected content description`
      : `kept assertVisible: no unique selector carries the expected content description, ` +
        `and assertText would read the node's text`,
  );
  return out;
}

/**
 * v2, Android: an assertion on a node that shows no text, and whose value no frame around it
 * describes, is `assertVisible` of its selector: the player's assertText would read "".
 */
function presenceCheck(a: DraftAction): DraftAction {
  if (a.kind === "assertVisible") return a;
  const out: DraftAction = { ...a, kind: "assertVisible", notes: [...a.notes] };
  delete out.equals;
  delete out.matches;
  out.notes.push(`assertText → assertVisible: the node shows no text to compare`);
  return out;
}

function where(a: DraftAction): string {
  return a.point ? `at (${Math.round(a.point.x)}, ${Math.round(a.point.y)})` : "";
}

/** Does a selector use the node's own text (or a name equal to it)? */
function usesValue(sel: Selector, literal: string | undefined): boolean {
  if (sel.text !== undefined || sel.textRegex !== undefined) return true;
  return literal !== undefined && (sel.name === literal || sel.contentDescription === literal ||
    sel.ariaLabel === literal);
}

/**
 * Turns an assertion whose expected value became a template or a pattern into `assertText` on
 * a selector that does not use the value itself (a text selector on "7" would stop matching
 * when the count changes). Leaves the action unchanged when no such selector exists.
 *
 * @param a the assertion
 * @param expect the step's selector `mode`, and `equals` (a template) or `matches` (a regex)
 * @returns the retargeted action, or undefined when it cannot be retargeted
 */
export function retargetAssertion(
  a: DraftAction,
  expect: { mode: SelectorMode } & ({ equals: string } | { matches: string }),
): DraftAction | undefined {
  if (a.describedValue) return undefined; // a description is checked by its selector only
  if (a.showsNoText) return undefined; // the node shows no text: a presence check
  const mode = expect.mode;
  const pool = (a.candidates ?? []).filter((c) =>
    c.valueShape === true || !usesValue(c.selector, a.literal)
  );
  const choice = chooseSelector(pool, mode);
  if (!choice.selector && !choice.selectors) return undefined;
  const out: DraftAction = { ...a, kind: a.kind === "readText" ? "readText" : "assertText" };
  delete out.selector;
  delete out.selectors;
  delete out.equals;
  delete out.matches;
  if (choice.selector) out.selector = choice.selector;
  if (choice.selectors) out.selectors = choice.selectors;
  if ("equals" in expect) out.equals = expect.equals;
  else out.matches = expect.matches;
  out.notes = [
    ...a.notes,
    `retargeted to ${
      JSON.stringify(choice.selectors ?? choice.selector)
    }: a selector that does not use the value`,
  ];
  return out;
}
