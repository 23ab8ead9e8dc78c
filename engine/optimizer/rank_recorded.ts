/**
 * Selectors a recorder wrote (DevTools Recorder `selectors` arrays: aria/, css, xpath, text/,
 * pierce/) read back as Cairn selectors and ranked like the optimizer's own.
 *
 * @module
 */
import type { Selector } from "../trail/mod.ts";
import type { Candidate } from "./draft.ts";
import { generatedIdReason } from "./generated.ts";
import { escapeRegex } from "../trail/mod.ts";
import { readAriaChain } from "../formats/mod.ts";
import { dynamicPattern, norm } from "./anchors.ts";
import {
  TEXT_PATTERN_PENALTY,
  WEB_ARIA_LABEL_SCORE,
  WEB_CSS_PATH_SCORE,
  WEB_ID_SCORE,
  WEB_ROLE_NAME_SCORE,
  WEB_TEST_ID_SCORE,
  WEB_TEXT_SCORE,
} from "./scores.ts";
import { copyOf } from "./rank_web.ts";

/** `[data-testid=X]`: what a trail's `testId` means on the web (playback looks it up so). */
export const RECORDED_TEST_ID = /^\[data-testid=["']?([^"'\]]+)["']?\]$/;
/** Another test attribute (`data-test`, `data-cy`, …): as durable, kept as the CSS it is. */
export const RECORDED_TEST_ATTRIBUTE = /^\[data-(?:test-id|test|cy|qa|pw)=["']?[^"'\]]+["']?\]$/;
export const RECORDED_ID = /^#((?:\\.|[^\s>+~.#[\]\\])+)$/;
/**
 * The Chrome Recorder writes a `text/` selector as the whole text of an element when it is this
 * short, else as its first words (at least this many characters): `text/Custom selector` for
 * "Custom selector attribute". Chrome matches it as contained text.
 */
export const RECORDER_TEXT_MIN = 12;

/**
 * Candidates from the selectors a recorder computed at run time (Chrome DevTools Recorder
 * `aria`/`css`/`text`, Cairn's human recorder `testId`/`ariaLabel`/`id`/`cssPath`), for actions
 * captured without a screen. They cannot be checked for uniqueness here: each is marked
 * unverified in its family, ranked by the web order.
 *
 * @param recorded selector kind → value (`target.selectors`)
 * @param options the heuristics level (default 1; from 2 an `aria` chain is read hop by hop, a
 *   Recorder `text/` selector that may be the first words of the text is a `textRegex` of that
 *   start, and a CSS selector on the flow's `testAttribute` is a test id)
 * @returns candidates, most durable first
 * @example
 * ```ts
 * const c = rankRecordedSelectors({ aria: "Mocha", css: "[data-test=Mocha]" });
 * if (c[0]?.selector.cssPath !== "[data-test=Mocha]" || c[2]?.selector.name !== "Mocha") {
 *   throw new Error();
 * }
 * ```
 */
export function rankRecordedSelectors(
  recorded: Readonly<Record<string, string>>,
  options: {
    level?: number;
    /** The selectors are a Chrome DevTools Recorder step's (`text` is its `text/` selector). */
    chrome?: boolean;
    /** A Recorder flow's `selectorAttribute` (`data-qa`): its selectors are authored test ids. */
    testAttribute?: string;
  } = {},
): Candidate[] {
  const v2 = (options.level ?? 1) >= 2;
  const ownTestAttribute = v2 && options.testAttribute
    ? new RegExp(`^\\[${escapeRegex(options.testAttribute)}=["']?[^"'\\]]+["']?\\]$`)
    : undefined;
  const names = Object.entries(recorded).flatMap(([k, v]) => {
    if (k.replace(/\.\d+$/, "") !== "aria") return [];
    const a = readAriaChain(v);
    return a ? [norm(a.name)] : [];
  });
  const out: Candidate[] = [];
  const push = (family: string, score: number, selector: Selector, rejected?: string) => {
    if (out.some((c) => JSON.stringify(c.selector) === JSON.stringify(selector))) return;
    out.push({ selector, score, family, matches: 1, ...(rejected ? { rejected } : {}) });
  };
  const id = (v: string) => {
    const why = generatedIdReason(v);
    push("id", WEB_ID_SCORE, { id: v }, why && `generated id (${why})`);
  };
  for (const [rawKey, v] of Object.entries(recorded)) {
    const key = rawKey.replace(/\.\d+$/, "");
    if (v === "") continue;
    if (key === "testId" || key === "data-testid") push("testId", WEB_TEST_ID_SCORE, { testId: v });
    else if (key === "ariaLabel") {
      push("contentDescription", WEB_ARIA_LABEL_SCORE, { ariaLabel: v });
    } else if (key === "aria") {
      // v2 reads a chain hop by hop (`Hello World >>> aria/[role="generic"]`: the element named
      // Hello World, the generic acted on lies inside it); v1 read it as one name
      const aria = v2 ? readAriaChain(v) : ariaV1(v);
      if (aria === undefined) continue;
      if (aria.role !== undefined) {
        push("roleName", WEB_ROLE_NAME_SCORE, { role: aria.role, name: aria.name });
      } else {
        // `aria/Name` is an accessible name, from aria-label or from the element's text: the
        // label is a guess (exact, so strict mode can take it), the name always holds
        push("contentDescription", WEB_ARIA_LABEL_SCORE, { ariaLabel: aria.name });
        push("roleName", WEB_ROLE_NAME_SCORE, { name: aria.name });
      }
    } else if (key === "id") id(v);
    else if (key === "text" && v2 && options.chrome) {
      push("text", WEB_TEXT_SCORE, recorderText(v, names));
    } else if (key === "text") push("text", WEB_TEXT_SCORE, { text: v });
    else if (key === "css" || key === "cssPath" || key === "pierce") {
      const t = RECORDED_TEST_ID.exec(v);
      const i = RECORDED_ID.exec(v);
      if (t) push("testId", WEB_TEST_ID_SCORE, { testId: t[1]! });
      else if (RECORDED_TEST_ATTRIBUTE.test(v) || ownTestAttribute?.test(v)) {
        push("testId", WEB_TEST_ID_SCORE, { cssPath: v });
      } else if (i) id(i[1]!.replace(/\\(.)/g, "$1"));
      else push("cssPath", WEB_CSS_PATH_SCORE, { cssPath: v });
    }
  }
  return out.sort((a, b) => (a.rejected ? 1 : 0) - (b.rejected ? 1 : 0) || a.score - b.score);
}

/**
 * A Chrome Recorder `text/` selector as a trail selector: the element's whole text when the
 * Recorder wrote it whole (shorter than its minimum, or the step's `aria/` name but for case:
 * CSS may capitalise the name), else a `textRegex` of the text's start (`Custom selector.*`):
 * the first words, which the exact text of a longer element never equals.
 */
export function recorderText(v: string, names: readonly string[]): Selector {
  const text = norm(v);
  const lower = text.toLowerCase();
  if (v.trim().length < RECORDER_TEXT_MIN || names.some((n) => n.toLowerCase() === lower)) {
    return { text: v };
  }
  return { textRegex: `${escapeRegex(text)}.*` };
}

/** Heuristics v1's reading of a recorder's `aria` selector: a trailing role, the rest the name. */
export function ariaV1(v: string): { name: string; role?: string } {
  const m = /^(.*)\[role="([\w-]+)"\]$/.exec(v);
  return m ? { name: m[1]!, role: m[2]! } : { name: v };
}

/**
 * Heuristics v2 for a recorder's selectors: `aria/Name` is an accessible name (from an
 * aria-label or from the text), so the aria-label read into it is a guess that fails when the
 * name comes from the text: dropped, the name says the same (strict takes it after a recorded
 * id or test id); a name holding a number becomes a pattern.
 */
export function refineRecorded(candidates: Candidate[]): Candidate[] {
  const out = candidates.map((c) => ({ ...c }));
  const names = new Set(
    out.filter((c) => c.family === "roleName" && c.selector.role === undefined)
      .map((c) => c.selector.name),
  );
  for (const c of out) {
    const label = c.selector.ariaLabel;
    if (label === undefined || !names.has(label)) continue;
    c.rejected = "an accessible name, not a recorded aria-label (the name is kept)";
  }
  const patterns: Candidate[] = [];
  const dynamic: Candidate[] = [];
  for (const c of out) {
    const copy = copyOf(c.selector);
    const p = copy === undefined || c.family === "cssPath" ? undefined : dynamicPattern(copy);
    if (p === undefined || c.rejected) continue;
    dynamic.push(c);
    if (!patterns.some((x) => x.selector.textRegex === p)) {
      patterns.push({
        selector: { textRegex: p },
        score: WEB_TEXT_SCORE + TEXT_PATTERN_PENALTY,
        family: "textPattern",
        matches: 1,
      });
    }
  }
  for (const c of dynamic) {
    c.rejected = `dynamic: holds a number that changes (pattern ${
      JSON.stringify(patterns[0]!.selector.textRegex)
    })`;
  }
  return [...out, ...patterns].sort((a, b) =>
    (a.rejected ? 1 : 0) - (b.rejected ? 1 : 0) || a.score - b.score
  );
}
