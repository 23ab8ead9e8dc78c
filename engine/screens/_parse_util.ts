/**
 * Helpers shared by the hierarchy parsers (private to `engine/`).
 *
 * @module
 */
import { type Bounds, makeNode, type UiNode, type UiNodeInit } from "./ui_node.ts";
import { jsonNestingError } from "../input/mod.ts";
import { lineColumn } from "./xml.ts";

const BOUNDS_RE =
  /^\s*\[\s*(-?[\d.]+)\s*,\s*(-?[\d.]+)\s*\]\s*\[\s*(-?[\d.]+)\s*,\s*(-?[\d.]+)\s*\]\s*$/;

/**
 * Parses an Android-style bounds string `[x1,y1][x2,y2]` into `{x, y, w, h}`.
 *
 * @param s the bounds string
 * @returns the bounds, or undefined when `s` is not of that form
 */
export function parseBoundsString(s: string): Bounds | undefined {
  const fast = integerBounds(s);
  if (fast) return fast;
  const m = BOUNDS_RE.exec(s);
  if (!m) return undefined;
  const x1 = Number(m[1]), y1 = Number(m[2]), x2 = Number(m[3]), y2 = Number(m[4]);
  if (![x1, y1, x2, y2].every(Number.isFinite)) return undefined;
  return { x: x1, y: y1, w: Math.max(0, x2 - x1), h: Math.max(0, y2 - y1) };
}

/**
 * The common case of {@linkcode parseBoundsString} without a regular expression: `[x1,y1][x2,y2]`
 * of (optionally negative) integers, no spaces; undefined for anything else.
 */
function integerBounds(s: string): Bounds | undefined {
  const v = [0, 0, 0, 0];
  let i = 0;
  for (let k = 0; k < 4; k++) {
    if (s.charCodeAt(i) !== (k % 2 === 0 ? 91 /* [ */ : 44 /* , */)) return undefined;
    i++;
    const neg = s.charCodeAt(i) === 45; /* - */
    if (neg) i++;
    const from = i;
    let n = 0;
    for (let c = s.charCodeAt(i); c >= 48 && c <= 57; c = s.charCodeAt(++i)) n = n * 10 + c - 48;
    if (i === from || i - from > 15) return undefined;
    v[k] = neg ? -n : n;
    if (k % 2 === 1) {
      if (s.charCodeAt(i) !== 93 /* ] */) return undefined;
      i++;
    }
  }
  if (i !== s.length) return undefined;
  const [x1, y1, x2, y2] = v as [number, number, number, number];
  return { x: x1, y: y1, w: Math.max(0, x2 - x1), h: Math.max(0, y2 - y1) };
}

/** `"true"` → true, `"false"` → false, anything else → the fallback. */
export function flag(v: string | boolean | undefined, fallback = false): boolean {
  if (v === "true" || v === true) return true;
  if (v === "false" || v === false) return false;
  return fallback;
}

/**
 * Parses JSON, turning the engine's message into a `SyntaxError` that names line and column.
 *
 * @param text the JSON source
 * @param what what the text is, for the message (`Maestro hierarchy`)
 * @returns the parsed value
 * @throws {SyntaxError} naming the line and column of the first error, or the path where the
 *   value nests deeper than `MAX_NESTING` (engine/input/nesting.ts)
 */
export function parseJsonAt(text: string, what: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    const [offset, reason] = jsonErrorAt(text);
    const { line, column } = lineColumn(text, offset);
    throw new SyntaxError(`Invalid ${what} JSON at line ${line}, column ${column}: ${reason}`);
  }
  const tooDeep = jsonNestingError(value);
  if (tooDeep !== undefined) throw new SyntaxError(`Invalid ${what} JSON at ${tooDeep}`);
  return value;
}

/** Finds the offset and reason of the first JSON syntax error (run only after a failure). */
function jsonErrorAt(text: string): [number, string] {
  let i = 0;
  const ws = () => {
    while (/[ \t\n\r]/.test(text[i] ?? "")) i++;
  };
  const fail = (reason: string): never => {
    throw [i, reason];
  };
  const value = (depth: number): void => {
    if (depth > 10_000) fail("nesting too deep");
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail("expected a double-quoted property name");
        str();
        ws();
        if (text[i] !== ":") fail("expected ':' after a property name");
        i++;
        value(depth + 1);
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "}") return void i++;
        else fail("expected ',' or '}' after a property value");
      }
    }
    if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") return void i++;
      for (;;) {
        value(depth + 1);
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "]") return void i++;
        else fail("expected ',' or ']' after an array element");
      }
    }
    if (c === '"') return str();
    const m = /^(-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(
      text.slice(i, i + 400),
    );
    if (!m) {
      fail(
        i >= text.length ? "unexpected end of input" : `unexpected character ${JSON.stringify(c)}`,
      );
    }
    i += m![0].length;
  };
  const str = () => {
    i++;
    for (;;) {
      const c = text[i];
      if (c === undefined) fail("unterminated string");
      if (c === '"') return void i++;
      if (c === "\\") {
        const e = text[i + 1] ?? "";
        if (
          e === "u"
            ? !/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))
            : !'"\\/bfnrt'.includes(e) || e === ""
        ) {
          fail("invalid escape in string");
        }
        i += e === "u" ? 6 : 2;
        continue;
      }
      if (c! < " ") fail("control character in string");
      i++;
    }
  };
  try {
    value(0);
    ws();
    if (i < text.length) fail("unexpected text after the JSON value");
    return [i, "invalid JSON"];
  } catch (e) {
    if (Array.isArray(e)) return e as [number, string];
    throw e;
  }
}

/** A plain object, or undefined. */
export function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v)
    ? v as Record<string, unknown>
    : undefined;
}

/** A string value, or undefined. */
export function asString(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return undefined;
}

/** The largest right and bottom edge over a list of bounds. */
export function extent(bounds: Iterable<Bounds>): { width: number; height: number } {
  let width = 0;
  let height = 0;
  for (const b of bounds) {
    width = Math.max(width, b.x + b.w);
    height = Math.max(height, b.y + b.h);
  }
  return { width, height };
}

/** Node fields where an absent string may be passed as `undefined`. */
export type LooseNodeInit = { [K in keyof UiNodeInit]?: UiNodeInit[K] | undefined } & {
  className: string;
};

/**
 * `makeNode` for parsers: accepts `undefined` for absent strings (`makeNode` drops them, and
 * empty strings, already).
 *
 * @param init the fields known of the node
 * @returns a complete node
 */
export function node(init: LooseNodeInit): UiNode {
  return makeNode(init as UiNodeInit);
}
