/**
 * A small, strict XML scanner for UI hierarchy dumps: elements and attributes only (text
 * content, comments, processing instructions, CDATA and the doctype are skipped). It scans the
 * string once with `indexOf`, decodes the five named entities and numeric character references,
 * and reports malformed input as a `SyntaxError` with line and column (also elements nested
 * deeper than `MAX_NESTING`, which the recursive code reading the tree could not hold).
 *
 * @module
 */
import { MAX_NESTING } from "../input/mod.ts";

/** One XML element: tag name, decoded attributes in document order, child elements. */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** Offset of the `<` of the start tag in the source (see {@linkcode lineColumn}). */
  offset: number;
}

/**
 * The 1-based line and column of an offset in a text.
 *
 * @param text the source
 * @param offset a UTF-16 offset into it
 * @returns the line and column, both 1-based
 * @example
 * ```ts
 * const p = lineColumn("a\nbc", 3);
 * if (p.line !== 2 || p.column !== 2) throw new Error();
 * ```
 */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = text.indexOf("\n"); i >= 0 && i < end; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: end - lineStart + 1 };
}

/**
 * Builds a `SyntaxError` that names the line and column of an offset.
 *
 * @param text the source
 * @param offset where the problem is
 * @param what what is wrong, sentence case
 * @returns the error (not thrown)
 */
export function syntaxErrorAt(text: string, offset: number, what: string): SyntaxError {
  const { line, column } = lineColumn(text, offset);
  return new SyntaxError(`${what} at line ${line}, column ${column}`);
}

const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/**
 * Decodes the entities and character references of `text[start, end)`.
 *
 * @throws {SyntaxError} on an unescaped `&`, an unknown entity or an invalid reference
 */
export function decodeEntities(text: string, start: number, end: number): string {
  let out = "";
  let i = start;
  while (i < end) {
    const amp = text.indexOf("&", i);
    if (amp < 0 || amp >= end) break;
    out += text.slice(i, amp);
    const semi = text.indexOf(";", amp);
    if (semi < 0 || semi >= end || semi - amp > 12) {
      throw syntaxErrorAt(text, amp, "Unescaped '&' in attribute value");
    }
    const ref = text.slice(amp + 1, semi);
    if (ref.charCodeAt(0) === 35 /* # */) {
      const hex = ref[1] === "x" || ref[1] === "X";
      const digits = ref.slice(hex ? 2 : 1);
      const valid = hex ? /^[0-9a-fA-F]+$/.test(digits) : /^[0-9]+$/.test(digits);
      const code = valid ? parseInt(digits, hex ? 16 : 10) : NaN;
      if (!(code >= 0 && code <= 0x10ffff)) {
        throw syntaxErrorAt(text, amp, `Invalid character reference '&${ref};'`);
      }
      out += String.fromCodePoint(code);
    } else {
      const named = NAMED[ref];
      if (named === undefined) throw syntaxErrorAt(text, amp, `Unknown entity '&${ref};'`);
      out += named;
    }
    i = semi + 1;
  }
  return out + text.slice(i, end);
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

function isNameEnd(c: number): boolean {
  return isSpace(c) || c === 62 /* > */ || c === 47 /* / */ || c === 61 /* = */ || Number.isNaN(c);
}

function skipSpace(text: string, i: number): number {
  while (isSpace(text.charCodeAt(i))) i++;
  return i;
}

function readName(text: string, i: number): number {
  while (!isNameEnd(text.charCodeAt(i)) && text.charCodeAt(i) !== 60 /* < */) i++;
  return i;
}

/**
 * Element and attribute names seen so far, by length and first code unit: a dump repeats a few
 * dozen names thousands of times, and returning the same (internalized, flat) string spares a
 * slice per name and the hashing of a fresh string on every attribute store.
 */
const NAMES = new Map<number, string[]>();
/** Bound of {@linkcode NAMES} (names beyond it are sliced each time). */
const MAX_NAMES = 2048;
let nameCount = 0;

/** `text[start, end)` as a shared string when it is a name seen before (see `NAMES`). */
export function internName(text: string, start: number, end: number): string {
  const len = end - start;
  const key = len * 0x10000 + text.charCodeAt(start);
  const list = NAMES.get(key);
  if (list !== undefined) {
    for (const n of list) if (text.startsWith(n, start)) return n;
  }
  const name = text.slice(start, end);
  if (nameCount >= MAX_NAMES || len > 64 || (list !== undefined && list.length >= 16)) return name;
  // the key of an object is an internalized copy: it does not hold the source text alive
  const flat = Object.keys({ [name]: 0 })[0]!;
  if (list !== undefined) list.push(flat);
  else NAMES.set(key, [flat]);
  nameCount++;
  return flat;
}

/**
 * Short attribute values seen so far (class names, packages, resource ids, flags), keyed like
 * {@linkcode NAMES} plus the last code unit: shared across parses instead of sliced per node, so
 * parsed trees do not keep their source text alive through sliced strings.
 */
const VALUES = new Map<number, string[]>();
const MAX_VALUES = 8192;
const MAX_VALUE_LENGTH = 48;
let valueCount = 0;

/** `text[start, end)` as a shared string when it is a short value seen before (see `VALUES`). */
export function internValue(text: string, start: number, end: number): string {
  const len = end - start;
  if (len === 0) return "";
  if (len === 5 && text.startsWith("false", start)) return "false";
  if (len === 4 && text.startsWith("true", start)) return "true";
  // below 13 code units V8 copies a slice: it holds nothing alive, and only the shortest
  // (indexes, drawing orders, display ids) repeat enough to be worth looking up
  if ((len > 3 && len < 13) || len > MAX_VALUE_LENGTH) return text.slice(start, end);
  const key = (len * 0x10000 + text.charCodeAt(start)) * 0x10000 + text.charCodeAt(end - 1);
  const list = VALUES.get(key);
  if (list !== undefined) {
    for (const v of list) if (text.startsWith(v, start)) return v;
  }
  const value = text.slice(start, end);
  if (valueCount >= MAX_VALUES || (list !== undefined && list.length >= 16)) return value;
  const flat = Object.keys({ [value]: 0 })[0]!;
  if (list !== undefined) list.push(flat);
  else VALUES.set(key, [flat]);
  valueCount++;
  return flat;
}

function indexOrEnd(text: string, what: string, from: number): number {
  const i = text.indexOf(what, from);
  return i < 0 ? text.length : i;
}

function expectEnd(text: string, start: number, marker: string, what: string): number {
  const end = text.indexOf(marker, start);
  if (end < 0) throw syntaxErrorAt(text, start, `Unterminated ${what}`);
  return end + marker.length;
}

function checkNoText(text: string, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    if (!isSpace(text.charCodeAt(i)) && text.charCodeAt(i) !== 0xfeff) {
      throw syntaxErrorAt(text, i, "Text outside the root element");
    }
  }
}

/**
 * Parses an XML document into its root element.
 *
 * @param text the XML source
 * @returns the root element
 * @throws {SyntaxError} on malformed XML or elements nested deeper than {@linkcode MAX_NESTING},
 *   naming the line and column
 * @example
 * ```ts
 * const root = parseXml('<a x="1&amp;2"><b/></a>');
 * if (root.attrs.x !== "1&2" || root.children[0]?.name !== "b") throw new Error();
 * ```
 */
export function parseXml(text: string): XmlElement {
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let pos = 0;
  const len = text.length;
  // the next '<' and '&' at or after the attribute value being read (each text scanned once)
  let nextLt = -1;
  let nextAmp = -1;
  while (pos < len) {
    const lt = text.indexOf("<", pos);
    if (stack.length === 0) checkNoText(text, pos, lt < 0 ? len : lt);
    if (lt < 0) break;
    const c = text.charCodeAt(lt + 1);
    if (c === 63 /* ? */) {
      pos = expectEnd(text, lt, "?>", "processing instruction");
      continue;
    }
    if (c === 33 /* ! */) {
      if (text.startsWith("<!--", lt)) pos = expectEnd(text, lt + 4, "-->", "comment");
      else if (text.startsWith("<![CDATA[", lt)) pos = expectEnd(text, lt, "]]>", "CDATA section");
      else if (text.startsWith("<!DOCTYPE", lt)) {
        const bracket = text.indexOf("[", lt);
        const gt = text.indexOf(">", lt);
        pos = bracket >= 0 && bracket < gt
          ? expectEnd(text, expectEnd(text, bracket, "]", "doctype"), ">", "doctype")
          : expectEnd(text, lt, ">", "doctype");
      } else throw syntaxErrorAt(text, lt, "Unexpected '<!'");
      continue;
    }
    if (c === 47 /* / */) {
      const nameEnd = readName(text, lt + 2);
      const name = text.slice(lt + 2, nameEnd);
      const open = stack.pop();
      if (!open) throw syntaxErrorAt(text, lt, `Unexpected closing tag </${name}>`);
      if (open.name !== name) {
        const at = lineColumn(text, open.offset);
        throw syntaxErrorAt(
          text,
          lt,
          `Expected </${open.name}> (opened at line ${at.line}, column ${at.column}) but found </${name}>`,
        );
      }
      const gt = skipSpace(text, nameEnd);
      if (text.charCodeAt(gt) !== 62) throw syntaxErrorAt(text, gt, "Expected '>'");
      pos = gt + 1;
      continue;
    }
    // Start tag.
    const nameEnd = readName(text, lt + 1);
    if (nameEnd === lt + 1) throw syntaxErrorAt(text, lt, "Expected an element name after '<'");
    if (stack.length === 0 && root) {
      throw syntaxErrorAt(text, lt, "More than one root element");
    }
    if (stack.length >= MAX_NESTING) {
      throw syntaxErrorAt(text, lt, `Elements nested deeper than ${MAX_NESTING} levels`);
    }
    const el: XmlElement = {
      name: internName(text, lt + 1, nameEnd),
      attrs: {},
      children: [],
      offset: lt,
    };
    let i = nameEnd;
    let selfClosing = false;
    for (;;) {
      const before = i;
      i = skipSpace(text, i);
      const ch = text.charCodeAt(i);
      if (ch === 62 /* > */) {
        i++;
        break;
      }
      if (ch === 47 /* / */) {
        if (text.charCodeAt(i + 1) !== 62) throw syntaxErrorAt(text, i, "Expected '/>'");
        selfClosing = true;
        i += 2;
        break;
      }
      if (Number.isNaN(ch)) throw syntaxErrorAt(text, lt, `Unterminated start tag <${el.name}>`);
      if (i === before) throw syntaxErrorAt(text, i, "Expected whitespace before attribute");
      const attrEnd = readName(text, i);
      if (attrEnd === i) throw syntaxErrorAt(text, i, "Expected an attribute name");
      const attr = internName(text, i, attrEnd);
      i = skipSpace(text, attrEnd);
      if (text.charCodeAt(i) !== 61) {
        throw syntaxErrorAt(text, i, `Expected '=' after attribute ${attr}`);
      }
      i = skipSpace(text, i + 1);
      const q = text.charCodeAt(i);
      if (q !== 34 && q !== 39) {
        throw syntaxErrorAt(text, i, `Expected a quoted value for attribute ${attr}`);
      }
      const close = text.indexOf(q === 34 ? '"' : "'", i + 1);
      if (close < 0) throw syntaxErrorAt(text, i, `Unterminated value of attribute ${attr}`);
      if (nextLt <= i) nextLt = indexOrEnd(text, "<", i + 1);
      if (nextLt < close) throw syntaxErrorAt(text, nextLt, "'<' in attribute value");
      if (Object.hasOwn(el.attrs, attr)) {
        throw syntaxErrorAt(text, i, `Duplicate attribute ${attr}`);
      }
      if (nextAmp <= i) nextAmp = indexOrEnd(text, "&", i + 1);
      el.attrs[attr] = nextAmp < close
        ? decodeEntities(text, i + 1, close)
        : internValue(text, i + 1, close);
      i = close + 1;
    }
    const parent = stack[stack.length - 1];
    if (parent) parent.children.push(el);
    else root = el;
    if (!selfClosing) stack.push(el);
    pos = i;
  }
  const open = stack[stack.length - 1];
  if (open) throw syntaxErrorAt(text, open.offset, `Unclosed element <${open.name}>`);
  if (!root) throw syntaxErrorAt(text, len, "No root element");
  return root;
}
