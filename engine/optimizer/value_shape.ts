/**
 * A regex for a value no known format fits, derived from the value's own shape (heuristics
 * v2): the digits are what varies, so they become `\d+` (a lone number) or `\d{n}` (a run of
 * several numbers: a code, a date, a clock, where the widths are the format); letters are the
 * value's stable words and code prefixes, kept literally (`ORD-2026-004217` →
 * `ORD-\d{4}-\d{6}`); a token where letters and digits alternate more than once is random
 * (`ML4XV8YWNMESK`) and becomes a character class of its length. A value without a digit has
 * no shape to generalize (it is its own text).
 *
 * @module
 */
import { escapeRegex } from "../trail/mod.ts";

/** Longer values are sentences, not formatted values. */
const MAX_SHAPE_LENGTH = 64;

/** Alphanumeric tokens and the separators between them. */
const TOKEN = /[A-Za-z0-9]+|[^A-Za-z0-9]+/g;
/** A separator inside a structured number (`2026-004217`, `02:55:13`), not a space or word. */
const JOINER = /^[^\sA-Za-z0-9]$/;

/**
 * The regex of a value's shape, or undefined when it has none (no digit, or too long).
 *
 * @param value the value seen
 * @returns a regex source that matches the whole value
 * @example
 * ```ts
 * if (shapePattern("ORD-2026-004217") !== "ORD-\\d{4}-\\d{6}") throw new Error();
 * if (shapePattern("Page 3 of 10") !== "Page \\d+ of \\d+") throw new Error();
 * if (shapePattern("US") !== undefined) throw new Error();
 * ```
 */
export function shapePattern(value: string): string | undefined {
  if (!/\d/.test(value) || value.length > MAX_SHAPE_LENGTH) return undefined;
  let pattern = "";
  for (const m of value.matchAll(TOKEN)) {
    const t = m[0];
    pattern += /^[A-Za-z0-9]/.test(t) ? alnum(value, t, m.index) : escapeRegex(t);
  }
  return new RegExp(`^(?:${pattern})$`).test(value) ? pattern : undefined;
}

/** One alphanumeric token: letter runs literal, digit runs as digits, random mixes as a class. */
function alnum(value: string, token: string, at: number): string {
  const runs = [...token.matchAll(/\d+|[A-Za-z]+/g)];
  if (runs.length > 2) return charClass(token);
  return runs.map((r) => {
    const start = at + r.index;
    if (/\d/.test(r[0])) return digits(value, r[0], start);
    // a word counted by the lone number before it and ending the phrase: "(2 items)"
    const counted = runs.length === 1 && /(?:^|[^\w.,:-])\d+ $/.test(value.slice(0, start)) &&
      /^(?:$|[^\sA-Za-z0-9])/.test(value.slice(start + r[0].length));
    return counted ? countNoun(r[0]) : escapeRegex(r[0]);
  }).join("");
}

/**
 * A digit run: its width is the format when it is zero-padded or joined to another number by
 * one separator (a code, a date, a clock); a lone number, or the integer part of a decimal
 * (`$37.50`), is `\d+` (any amount).
 */
function digits(value: string, run: string, at: number): string {
  const end = at + run.length;
  const joinedBefore = JOINER.test(value[at - 1] ?? "") && /\d/.test(value[at - 2] ?? "");
  const joinedAfter = JOINER.test(value[end] ?? "") && /\d/.test(value[end + 1] ?? "");
  const padded = run.length > 1 && run.startsWith("0");
  if (padded || joinedBefore) return `\\d{${run.length}}`;
  if (!joinedAfter || isDecimalPoint(value, end)) return "\\d+";
  return `\\d{${run.length}}`;
}

/** A "." after an integer that starts the only fraction (`37.50`, not `1.0.0` or `2026.11.24`). */
function isDecimalPoint(value: string, at: number): boolean {
  if (value[at] !== ".") return false;
  const frac = /^\d+/.exec(value.slice(at + 1))?.[0] ?? "";
  const after = at + 1 + frac.length;
  return !(JOINER.test(value[after] ?? "") && /\d/.test(value[after + 1] ?? ""));
}

/**
 * A noun counted by a number, singular or plural: `items` and `item` → `items?`, `entries` →
 * `entr(?:y|ies)`, `boxes` → `box(?:es)?` (a count of 1 takes the singular).
 *
 * @param word the noun as seen
 * @returns a regex source matching both forms
 * @example
 * ```ts
 * if (countNoun("items") !== "items?") throw new Error();
 * ```
 */
export function countNoun(word: string): string {
  if (/[^aeiou]ies$/i.test(word)) return `${escapeRegex(word.slice(0, -3))}(?:y|ies)`;
  if (/[^aeiou]y$/i.test(word)) return `${escapeRegex(word.slice(0, -1))}(?:y|ies)`;
  if (/(?:s|x|z|ch|sh)es$/i.test(word)) return `${escapeRegex(word.slice(0, -2))}(?:es)?`;
  if (/(?:s|x|z|ch|sh)$/i.test(word) && !/s$/i.test(word)) {
    return `${escapeRegex(word)}(?:es)?`;
  }
  if (/[^s]s$/i.test(word)) return `${escapeRegex(word)}?`;
  if (/s$/i.test(word)) return escapeRegex(word); // "class", "glass": no plain plural to strip
  return `${escapeRegex(word)}s?`;
}

function charClass(token: string): string {
  const upper = /[A-Z]/.test(token);
  const lower = /[a-z]/.test(token);
  const cls = upper && lower ? "A-Za-z" : upper ? "A-Z" : "a-z";
  return `[${cls}0-9]{${token.length}}`;
}
