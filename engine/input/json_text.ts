/**
 * JSON parsing with errors that name the line and column (V8's messages do not always), a
 * hint when the text ends early (a truncated file), and the nesting limit.
 *
 * @module
 */
import { jsonNestingError } from "./nesting.ts";
import { FormatError } from "./format_error.ts";

/**
 * Parses JSON text.
 *
 * @param text the JSON text
 * @returns the parsed value
 * @throws {FormatError} `line L, column C: reason` for malformed or truncated JSON, or
 *   `path…: nested deeper than 1000 levels`
 * @example
 * ```ts
 * try { parseJson('{"a": 1,\n "b": }'); } catch (e) {
 *   if (!(e as Error).message.startsWith("line 2, column 7")) throw e;
 * }
 * ```
 */
export function parseJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const { offset, reason } = locateJsonError(text);
    const { line, column } = lineColumn(text, offset);
    const fallback = err instanceof Error ? err.message : String(err);
    throw new FormatError(
      `line ${line}, column ${column}: ${reason ?? fallback}`,
      `${line}:${column}`,
    );
  }
  checkJsonNesting(value);
  return value;
}

/**
 * Refuses a parsed JSON value nested deeper than `MAX_NESTING` (engine/input/nesting.ts) objects and
 * arrays: Cairn's recursive code could not hold it.
 *
 * @param value parsed JSON
 * @throws {FormatError} `path…: nested deeper than 1000 levels`
 * @example
 * ```ts
 * checkJsonNesting({ a: [1, { b: 2 }] }); // within the limit: no error
 * ```
 */
export function checkJsonNesting(value: unknown): void {
  const tooDeep = jsonNestingError(value);
  if (tooDeep !== undefined) throw new FormatError(tooDeep);
}

/**
 * The 1-based line and column of an offset in a text.
 *
 * @param text the text
 * @param offset a UTF-16 offset
 * @returns line and column
 */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

class Stop {
  constructor(readonly offset: number, readonly reason: string) {}
}

/** Finds the offset of the first syntax error of a JSON text (a small recursive scanner). */
function locateJsonError(text: string): { offset: number; reason?: string } {
  let i = 0;
  const n = text.length;
  const ws = () => {
    while (i < n && " \t\n\r".includes(text[i]!)) i++;
  };
  const fail = (reason: string): never => {
    if (i >= n) throw new Stop(n, "unexpected end of input (is the file truncated?)");
    throw new Stop(i, `${reason}, found ${JSON.stringify(text[i])}`);
  };
  const literal = (word: string) => {
    for (const ch of word) {
      if (text[i] !== ch) fail(`expected ${word}`);
      i++;
    }
  };
  const string = () => {
    i++; // opening quote
    while (true) {
      if (i >= n) fail("unterminated string");
      const c = text.charCodeAt(i);
      if (c === 34) {
        i++;
        return;
      }
      if (c < 0x20) fail("control character in string");
      if (c === 92) {
        i++;
        if (i >= n) fail("unterminated string");
        const e = text[i]!;
        if (e === "u") {
          for (let k = 1; k <= 4; k++) {
            if (!/[0-9a-fA-F]/.test(text[i + k] ?? "")) {
              i += k;
              fail("bad \\u escape");
            }
          }
          i += 5;
          continue;
        }
        if (!'"\\/bfnrt'.includes(e)) fail("bad escape");
      }
      i++;
    }
  };
  const number = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 64));
    if (!m || m[0].length === 0) fail("expected a value");
    i += m![0].length;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") {
        i++;
        return;
      }
      while (true) {
        ws();
        if (text[i] !== '"') fail("expected a property name in double quotes");
        string();
        ws();
        if (text[i] !== ":") fail("expected ':' after a property name");
        i++;
        value();
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return;
        }
        fail("expected ',' or '}' in an object");
      }
    }
    if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") {
        i++;
        return;
      }
      while (true) {
        value();
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return;
        }
        fail("expected ',' or ']' in an array");
      }
    }
    if (c === '"') return string();
    if (c === "t") return literal("true");
    if (c === "f") return literal("false");
    if (c === "n") return literal("null");
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return number();
    fail("expected a value");
  };
  try {
    ws();
    if (i >= n) return { offset: 0, reason: "empty file: expected a JSON value" };
    value();
    ws();
    if (i < n) fail("unexpected text after the JSON value");
    return { offset: 0 };
  } catch (e) {
    if (e instanceof Stop) return { offset: e.offset, reason: e.reason };
    if (e instanceof RangeError) return { offset: i, reason: "nesting too deep" };
    throw e;
  }
}
