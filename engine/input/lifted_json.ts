/**
 * A large JSON file read without ever holding its whole text: the long strings (a capture's
 * inline hierarchies, ~80 KB each) are lifted out of the bytes before `JSON.parse`, which then
 * reads only what is left, and each lifted string is decoded when it is asked for. A capture of
 * 1,000 real-size screens (86 MB) otherwise lives three times over at once: its bytes, its text
 * (two bytes a character once one character is not Latin-1) and the parsed strings.
 *
 * @module
 */
import { isUtf8 } from "node:buffer";

/** A JSON document whose long strings are held as bytes until asked for. */
export interface LiftedJson {
  /** The parsed document; each long string is a placeholder that {@linkcode text} resolves. */
  value: unknown;
  /**
   * The string a placeholder stands for, decoded now (it is not kept).
   *
   * @returns the string, or undefined when `s` is not a placeholder of this document
   */
  text(s: string): string | undefined;
  /** How many strings were lifted. */
  lifted: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** The characters a JSON escape may name (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u`). */
const ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74, 0x75]);

function isHex(c: number | undefined): boolean {
  return c !== undefined &&
    ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66));
}

/** JSON's whitespace: space, tab, line feed, carriage return. */
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/**
 * Parses a JSON document from its bytes, lifting out every string value (not a key) of `minBytes`
 * bytes or more. Only a well-formed single document is taken: anything else (not UTF-8, UTF-16, malformed
 * JSON, a malformed string, JSON lines) gives undefined, and the caller reads the text as a whole,
 * whose errors name the line and column.
 *
 * @param bytes the file's bytes (kept, not copied: lifted strings are read from them)
 * @param minBytes the shortest string literal lifted, quotes included
 * @returns the document, or undefined
 * @example
 * ```ts
 * const long = "x".repeat(100);
 * const doc = liftJson(new TextEncoder().encode(`{"a": "${long}", "b": "short"}`), 50)!;
 * const v = doc.value as { a: string; b: string };
 * if (v.b !== "short" || doc.lifted !== 1 || doc.text(v.a) !== long) throw new Error();
 * ```
 */
export function liftJson(bytes: Uint8Array, minBytes = 4096): LiftedJson | undefined {
  if (!isUtf8(bytes)) return undefined;
  const n = bytes.length;
  let i = 0;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3; // a byte order mark
  const tag = `\u0000cairn-lifted:${crypto.randomUUID()}:`;
  const tagBytes = encoder.encode(JSON.stringify(tag).slice(0, -1)); // `"\u0000cairn-…:`
  const ranges: number[] = []; // start, end (exclusive) of each lifted literal, quotes included
  const parts: Uint8Array[] = [];
  let from = i;
  let skeleton = 0;
  for (; i < n; i++) {
    if (bytes[i] !== QUOTE) continue;
    const start = i++;
    for (;;) {
      const c = bytes[i];
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        const e = bytes[i + 1]!;
        if (!ESCAPES.has(e)) return undefined;
        if (e === 0x75) {
          if (!isHex(bytes[i + 2]) || !isHex(bytes[i + 3])) return undefined;
          if (!isHex(bytes[i + 4]) || !isHex(bytes[i + 5])) return undefined;
          i += 6;
        } else i += 2;
        continue;
      }
      if (c === undefined || c < 0x20) return undefined; // cut short, or a raw control character
      i++;
    }
    if (i + 1 - start < minBytes) continue;
    // a key stays: only values are lifted
    let next = i + 1;
    while (next < n && isSpace(bytes[next]!)) next++;
    if (bytes[next] === 0x3a) continue;
    parts.push(bytes.subarray(from, start));
    const mark = encoder.encode(`${ranges.length / 2}"`);
    parts.push(tagBytes, mark);
    skeleton += start - from + tagBytes.length + mark.length;
    ranges.push(start, i + 1);
    from = i + 1;
  }
  if (ranges.length === 0) return undefined; // nothing to gain: read it as a whole
  parts.push(bytes.subarray(from));
  skeleton += n - from;
  const joined = new Uint8Array(skeleton);
  let at = 0;
  for (const p of parts) {
    joined.set(p, at);
    at += p.length;
  }
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(joined));
  } catch {
    return undefined;
  }
  return {
    value,
    lifted: ranges.length / 2,
    text(s: string): string | undefined {
      if (!s.startsWith(tag)) return undefined;
      const k = Number(s.slice(tag.length));
      const start = ranges[2 * k];
      if (!Number.isInteger(k) || start === undefined) return undefined;
      return JSON.parse(decoder.decode(bytes.subarray(start, ranges[2 * k + 1]))) as string;
    },
  };
}

/**
 * Resolves the document's placeholders in place, except where `keep` says to leave one.
 *
 * @param doc the lifted document
 * @param keep whether to leave the placeholder at a path (keys and indexes from the root)
 * @returns `doc.value`, resolved
 */
export function restoreLifted(
  doc: LiftedJson,
  keep: (path: readonly (string | number)[]) => boolean = () => false,
): unknown {
  const path: (string | number)[] = [];
  const visit = (v: unknown): unknown => {
    if (typeof v === "string") {
      if (keep(path)) return v;
      return doc.text(v) ?? v;
    }
    if (v === null || typeof v !== "object") return v;
    if (Array.isArray(v)) {
      for (let k = 0; k < v.length; k++) {
        path.push(k);
        const was = v[k];
        const now = visit(was);
        if (now !== was) v[k] = now;
        path.pop();
      }
      return v;
    }
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      path.push(k);
      const was = o[k];
      const now = visit(was);
      // defined, not assigned: a "__proto__" key of JSON is a plain own property
      if (now !== was) Object.defineProperty(o, k, { value: now });
      path.pop();
    }
    return v;
  };
  return visit(doc.value);
}
