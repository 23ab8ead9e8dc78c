/**
 * The modes pass: shapes each action's ranked candidates by the selector mode.
 *
 * - strict: one exact unique property (id, testId, contentDescription / ariaLabel); an action
 *   with none fails its step, which is marked `recordable: false` with a clear message.
 * - flexible: text or content description first (tolerant of structure changes; a number in
 *   the text becomes `\d+` in a `textRegex`), then the ranked best.
 * - adaptive: the best selector; when it is weaker than an authored id, an ordered fallback
 *   chain id → contentDescription → text → position (`selectors: [...]`). From heuristics v3 the
 *   chain is always written: the best selector, then every other kind of unique candidate (at
 *   most {@linkcode MAX_CHAIN}, coordinates last), none by a value the action types or reads.
 *
 * @module
 */
import type { Selector, SelectorMode } from "../trail/mod.ts";
import type { Candidate, ChainOptions, Draft, DraftAction } from "./draft.ts";
import { type ModeFlags, modeFlags } from "../trail/mod.ts";
import { escapeRegex } from "../trail/mod.ts";
import { norm as normText } from "./anchors.ts";
import { scopedExactSelector } from "./selectors.ts";

/**
 * `norm` of anchors.ts, remembered: every action of a long capture normalises the capture's
 * slot values again (the values no selector may be by), 100,000s of calls on a few hundred
 * distinct texts. Bounded: cleared when full.
 */
const NORMED = new Map<string, string>();
const MAX_NORMED = 4096;

function norm(text: string): string {
  let n = NORMED.get(text);
  if (n === undefined) {
    n = normText(text);
    if (NORMED.size >= MAX_NORMED) NORMED.clear();
    NORMED.set(text, n);
  }
  return n;
}

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
  /** v3: unique candidates left out because they hold a value the action must not be found by. */
  avoided?: Candidate[];
  /** v3: why the choice is not what the mode prefers (flexible found no label). */
  note?: string;
}

/** v3: the longest fallback chain written for one action (a Recorder step has five). */
export const MAX_CHAIN = 5;
/** v3: a slot value at least this long inside a label makes the label change with the slot. */
const MIN_CONTAINED = 5;
/** v3, flexible: the label families in the order flexible prefers them. */
const FLEXIBLE_ORDER = ["textPattern", "text", "contentDescription", "roleName"];

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
export function chooseSelector(
  candidates: readonly Candidate[],
  mode: SelectorMode,
  options: Partial<ChainOptions> = {},
): Choice {
  const flags = modeFlags(mode);
  if ((options.level ?? 0) >= 3) return chooseV3(candidates, flags, options);
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

/**
 * Heuristics v3's choice: strict one exact selector (a unique id within a durable parent too),
 * flexible a chain of labels, adaptive the ranked chain; none holds a value to avoid.
 */
function chooseV3(
  candidates: readonly Candidate[],
  flags: ModeFlags,
  options: Partial<ChainOptions>,
): Choice {
  const usable = candidates.filter((c) => !c.rejected && c.matches === 1 && allowed(c, flags));
  const avoid = [...new Set((options.avoid ?? []).map(norm).filter((v) => v !== ""))];
  // an assertion's pattern of its own text would pass on another value (another date)
  const loose = (c: Candidate) =>
    options.asserts === true && c.selector.textRegex !== undefined &&
    avoid.some((v) => fullMatch(c.selector.textRegex!, v));
  const held = (c: Candidate) => c.assertsOwnText !== true && holdsValue(c.selector, avoid);
  const free = usable.filter((c) => !held(c) && !loose(c));
  const avoided = usable.filter((c) => held(c) || loose(c));
  // nothing but coordinates is free of the value: the value it is (a contact named as typed,
  // a heading checked for presence), except for a read, which could only read that value again
  const pool = options.reads === true || free.some((c) => c.selector.xy === undefined)
    ? free
    : usable.filter((c) => !loose(c));
  const out = (choice: Choice): Choice => {
    const left = pool === free ? avoided : avoided.filter((c) => !pool.includes(c));
    return left.length > 0 ? { ...choice, avoided: left } : choice;
  };
  if (flags.exactOnly) {
    const exact = pool.find((c) =>
      c.exact ??
        (EXACT_FAMILIES.has(c.family) && (single(c.selector) || scopedExactSelector(c.selector)))
    );
    if (!exact) {
      return out({
        error: "no unique id, testId or contentDescription, alone or within a unique parent " +
          "or row (strict mode)",
      });
    }
    return out({ selector: exact.selector, chosen: exact });
  }
  if (pool.length === 0) return out({ error: "no unique selector" });
  if (flags.preferLabels) {
    const labels = pool.filter((c) =>
      FLEXIBLE_ORDER.includes(c.family) && c.selector.xy === undefined &&
      c.selector.cssPath === undefined
    ).sort((a, b) =>
      FLEXIBLE_ORDER.indexOf(a.family) - FLEXIBLE_ORDER.indexOf(b.family) || a.score - b.score
    );
    if (labels.length > 0) return out(asChoice(rankedChain(labels, false)));
    return out({
      ...asChoice(rankedChain(pool, true)),
      note: "flexible: no text, description or role + name picks it: the adaptive chain",
    });
  }
  return out(asChoice(rankedChain(pool, true)));
}

function asChoice(chain: Candidate[]): Choice {
  if (chain.length === 1) return { selector: chain[0]!.selector, chosen: chain[0]! };
  return { selectors: chain.map((c) => c.selector), chosen: chain[0]! };
}

/**
 * The chain: the first candidate, then one of every other kind in their order (a kind is a
 * family, scoped or not, indexed or not), duplicates of a kept one left out (`[data-testid=x]`
 * beside `testId: x`), an obfuscated id only as the first, coordinates last.
 */
function rankedChain(ordered: readonly Candidate[], withXy: boolean): Candidate[] {
  const chain: Candidate[] = [];
  const kinds = new Set<string>();
  const xy = withXy ? ordered.find((c) => c.selector.xy !== undefined) : undefined;
  const room = MAX_CHAIN - (xy ? 1 : 0);
  for (const c of ordered) {
    if (chain.length >= room) break;
    if (c.selector.xy !== undefined) continue;
    if (c.family === "obfuscatedId" && chain.length > 0) continue;
    const kind = kindOf(c);
    if (kinds.has(kind) || chain.some((k) => same(k.selector, c.selector))) continue;
    kinds.add(kind);
    chain.push(c);
  }
  if (xy) chain.push(xy);
  return chain;
}

function kindOf(c: Candidate): string {
  const s = c.selector;
  return `${c.family}${s.childOf ? "@" : ""}${s.index !== undefined ? "#" : ""}`;
}

/** The same lookup written twice (equal, or a CSS path of a test id or of an id beside it). */
function same(a: Selector, b: Selector): boolean {
  if (JSON.stringify(a) === JSON.stringify(b)) return true;
  const css = (x: Selector, y: Selector) => {
    if (x.cssPath === undefined || Object.keys(x).length !== 1) return false;
    if (y.testId !== undefined && Object.keys(y).length === 1) {
      return /^\[data-testid=["']?([^"'\]]+)["']?\]$/.exec(x.cssPath)?.[1] === y.testId;
    }
    if (y.id !== undefined && Object.keys(y).length === 1) return x.cssPath === `#${y.id}`;
    return false;
  };
  return css(a, b) || css(b, a);
}

/** Does the regular expression match the whole value? */
function fullMatch(regex: string, value: string): boolean {
  try {
    return new RegExp(`^(?:${regex})$`, "u").test(value);
  } catch {
    return false;
  }
}

/**
 * Does the selector (or a parent of it) find the element by one of the values: a text, name,
 * label or description equal to one, or holding a long one; a `textRegex` that is one, escaped?
 */
export function holdsValue(sel: Selector, values: readonly string[]): boolean {
  if (values.length === 0) return false;
  for (const f of [sel.text, sel.name, sel.ariaLabel, sel.contentDescription]) {
    if (f === undefined) continue;
    const t = norm(f);
    if (values.some((v) => t === v || (v.length >= MIN_CONTAINED && t.includes(v)))) return true;
  }
  if (sel.textRegex !== undefined && values.some((v) => sel.textRegex === escapeRegex(v))) {
    return true;
  }
  return sel.childOf !== undefined && holdsValue(sel.childOf, values);
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
  const choice = chooseSelector(a.candidates, mode, a.chain);
  const out: DraftAction = { ...a, notes: [...a.notes] };
  delete out.selector;
  delete out.selectors;
  if (choice.selector) out.selector = choice.selector;
  if (choice.selectors) out.selectors = choice.selectors;
  const inChain = new Set((choice.selectors ?? []).map((s) => JSON.stringify(s)));
  for (const c of a.candidates) {
    if (c === choice.chosen) continue;
    if (c.rejected) out.notes.push(`rejected ${JSON.stringify(c.selector)}: ${c.rejected}`);
    else if (choice.avoided?.includes(c)) {
      out.notes.push(
        `left out ${JSON.stringify(c.selector)}: holds a value the action types, reads or ` +
          `asserts, or a slot's value`,
      );
    } else if (inChain.has(JSON.stringify(c.selector))) {
      out.notes.push(`fallback ${JSON.stringify(c.selector)} (${c.family}, score ${c.score})`);
    } else {
      out.notes.push(
        `passed over ${JSON.stringify(c.selector)} (${c.family}, score ${c.score})`,
      );
    }
  }
  if (choice.note) out.notes.push(choice.note);
  const positional = a.candidates.find((c) =>
    c.lastResort !== undefined &&
    (c === choice.chosen || inChain.has(JSON.stringify(c.selector)))
  );
  if (positional) {
    out.notes.push(
      `index as a last resort ${JSON.stringify(positional.selector)}: ${positional.lastResort}`,
    );
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
  const slotValues = draft.level >= 3 ? captureValues(draft) : [];
  const steps = draft.steps.map((s, si) => {
    const mode = s.selectorMode ?? draft.mode;
    let failed: string | undefined;
    const actions = s.actions.map((a0) => {
      if (a0.drop) return a0;
      const a = draft.level >= 3 ? withChain(a0, draft.level, slotValues) : a0;
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
      if (a.kind === "keyPress") {
        // v3: the focused element's chain; none the mode accepts: a page-level key, as recorded
        if (!r.error) return r.a;
        const page: DraftAction = {
          ...r.a,
          notes: [...r.a.notes, `pressed on the page: ${r.error}`],
        };
        delete page.selector;
        delete page.selectors;
        return page;
      }
      // an action the player cannot do as recorded goes to the agent (concision): no selector
      // of it fails the step (`unplayable` is set from v2 only)
      if (r.error && a.src.ok && a.unplayable === undefined) {
        failed ??= `${a.kind} ${where(a)}: ${r.error}`;
      }
      const sel = r.a.selector;
      if (r.a.describedValue) return describedAssertion(r.a);
      if (r.a.showsNoText) return presenceCheck(r.a);
      const written = r.a.selectors ?? (sel ? [sel] : []);
      const chained = draft.level >= 3 || !r.a.selectors;
      if (
        r.a.kind === "assertVisible" && a.literal !== undefined && chained &&
        written.length > 0 && !written.some((x) => usesValue(x, a.literal))
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
 * v3: the values no selector of an action may be by: the action's own (typed, read, asserted,
 * selected) and the capture's slot values.
 */
function withChain(a: DraftAction, level: number, slotValues: readonly string[]): DraftAction {
  // an assertion of a content description is checked by that description (describedAssertion)
  if (a.describedValue) return { ...a, chain: { level, avoid: [] } };
  const own = [a.literal, a.src.value, a.text, a.value];
  // a read's target is named by what it shows: the value
  if (a.kind === "readText" || a.kind === "assertText") own.push(a.src.data.target?.name);
  const avoid = [...own.filter((v): v is string => v !== undefined), ...slotValues];
  // a visibility check's selector is its check: a pattern of the text would pass on another
  // (an assertText compares its own `equals`, so a pattern may find the element there)
  const asserts = a.kind === "assertVisible";
  const reads = a.kind === "readText";
  return {
    ...a,
    chain: { level, avoid, ...(asserts ? { asserts } : {}), ...(reads ? { reads } : {}) },
  };
}

/** A slot value shorter than this is avoided only when the action itself types or reads it. */
const MIN_SLOT_VALUE = 2;

/**
 * v3: the capture's slot values: every text typed, every value read, every memory value.
 * A selector holding one finds another element (or none) once the slot changes.
 */
function captureValues(draft: Draft): string[] {
  const out = new Set<string>();
  const put = (v: string | undefined) => {
    if (v !== undefined && norm(v).length >= MIN_SLOT_VALUE) out.add(norm(v));
  };
  for (const v of Object.values(draft.model.initialMemory)) put(v);
  for (const a of draft.model.actions) {
    if (!a.ok) continue;
    const d = a.data;
    if (d.kind === "inputText") put(d.text);
    if (d.kind === "select") put(d.value);
    if (d.kind === "readText" || d.kind === "memoryGet") put(a.value);
    for (const v of Object.values(a.memory)) put(v);
  }
  return [...out];
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
 * A value the trail types itself (`typed`: the expected value is `{{slot}}`, filled by an input of
 * the same trail) is no value that changes under the selector: when nothing but a bare point is
 * left (v3), a text candidate showing exactly that value (unique on its screen) is kept with the
 * template (`text: "{{newTask}}"`), so the element is found by what the run typed, whatever it
 * is, ahead of the point.
 *
 * @param a the assertion
 * @param expect the step's selector `mode`, and `equals` (a template) or `matches` (a regex);
 *   `typed`: the expected value is this slot, typed by the trail itself
 * @returns the retargeted action, or undefined when it cannot be retargeted
 */
export function retargetAssertion(
  a: DraftAction,
  expect: { mode: SelectorMode; typed?: string } & ({ equals: string } | { matches: string }),
): DraftAction | undefined {
  if (a.describedValue) return undefined; // a description is checked by its selector only
  if (a.showsNoText) return undefined; // the node shows no text: a presence check
  const mode = expect.mode;
  const pool = (a.candidates ?? []).filter((c) =>
    c.valueShape === true || !usesValue(c.selector, a.literal)
  );
  // v3: the typed value's own text, found by its template, when nothing but a bare point is
  // left: ahead of the point
  const literal = norm(a.literal ?? "");
  const typed = expect.typed !== undefined && (a.chain?.level ?? 0) >= 3 && literal !== "" &&
      pool.every((c) => c.selector.xy !== undefined)
    ? (a.candidates ?? []).find((c) =>
      c.selector.text !== undefined && norm(c.selector.text) === literal && !c.rejected &&
      c.matches === 1 && c.selector.index === undefined
    )
    : undefined;
  if (typed) {
    pool.unshift({ ...typed, selector: { ...typed.selector, text: `{{${expect.typed}}}` } });
  }
  const choice = chooseSelector(pool, mode, a.chain && { ...a.chain, asserts: false });
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
