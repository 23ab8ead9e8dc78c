/**
 * Parser of Android hierarchies: Appium UiAutomator2 page source (tags are class names) and
 * raw `uiautomator dump` output (`<node>` tags), old and new attribute sets alike.
 *
 * @module
 */
import { extent, flag, node, parseBoundsString } from "./_parse_util.ts";
import { MAX_NESTING } from "../input/mod.ts";
import type { Bounds, Screen, UiNode } from "./ui_node.ts";
import {
  decodeEntities,
  internName,
  internValue,
  parseXml,
  syntaxErrorAt,
  type XmlElement,
} from "./xml.ts";

/** Raw attributes kept in `attrs` besides `package`, `index` and `tag`. */
const KEPT_ATTRS = [
  "focusable",
  "long-clickable",
  "NAF",
  "instance",
  "input-type",
  "window-id",
  "pane-title",
  "drawing-order",
  "display-id",
  "heading",
  "tooltip-text",
] as const;

/**
 * Parses Android page source or a `uiautomator dump` into a screen.
 *
 * The root is a synthetic `hierarchy` node spanning the screen; each direct child of
 * `<hierarchy>` (one per window when the dumper includes several) is one of its children.
 *
 * @param text the XML source
 * @returns the screen (format `uiautomator-dump` when `<node>` tags are used, else `uiautomator2`)
 * @throws {SyntaxError} on malformed XML or bounds, or XCUITest page source, naming the line
 * and column
 * @example
 * ```ts
 * const s = parseAndroid('<hierarchy rotation="0"><node class="android.widget.Button" text="OK" bounds="[0,0][100,50]"/></hierarchy>');
 * if (s.root.children[0]?.text !== "OK" || s.width !== 100) throw new Error();
 * ```
 */
export function parseAndroid(text: string): Screen {
  return scanAndroid(text) ?? parseAndroidTree(text);
}

/**
 * The general path of {@linkcode parseAndroid}: the XML tree first, then the nodes from it.
 * Exported for the tests that hold the direct scanner to it.
 *
 * @param text the XML source
 * @returns the screen
 * @throws {SyntaxError} as {@linkcode parseAndroid}
 */
export function parseAndroidTree(text: string): Screen {
  const doc = parseXml(text);
  if (doc.name === "AppiumAUT" || doc.name.startsWith("XCUIElementType")) {
    throw syntaxErrorAt(
      text,
      doc.offset,
      `Not UiAutomator XML: the root element is <${doc.name}>, XCUITest's (expected <hierarchy> or <node>)`,
    );
  }
  const top = doc.name === "hierarchy" ? doc.children : [doc];
  let dump = false;
  const convert = (el: XmlElement): UiNode => {
    if (el.name === "node") dump = true;
    const a = el.attrs;
    const boundsAttr = a.bounds;
    const bounds = boundsAttr === undefined
      ? { x: 0, y: 0, w: 0, h: 0 }
      : parseBoundsString(boundsAttr);
    if (!bounds) {
      throw syntaxErrorAt(
        text,
        el.offset,
        `Invalid bounds ${JSON.stringify(boundsAttr)} (expected [x1,y1][x2,y2])`,
      );
    }
    const resourceId = a["resource-id"] ?? "";
    const attrs: Record<string, string> = { tag: el.name };
    if (a.package !== undefined) attrs.package = a.package;
    if (a.index !== undefined) attrs.index = a.index;
    for (const k of KEPT_ATTRS) {
      const v = a[k];
      if (v !== undefined && v !== "") attrs[k] = v;
    }
    const visibleAttr = a["visible-to-user"] ?? a.displayed;
    return node({
      className: a.class || (el.name === "node" ? "android.view.View" : el.name),
      text: a.text,
      resourceId,
      testId: resourceId !== "" && !resourceId.includes(":id/") ? resourceId : undefined,
      contentDescription: a["content-desc"],
      hint: a.hint,
      bounds,
      clickable: flag(a.clickable),
      enabled: flag(a.enabled, true),
      focused: flag(a.focused),
      checked: flag(a.checked),
      checkable: flag(a.checkable),
      selected: flag(a.selected),
      scrollable: flag(a.scrollable),
      password: flag(a.password),
      visible: flag(visibleAttr, true),
      attrs,
      children: el.children.map(convert),
    });
  };
  const children = top.map(convert);
  const ext = extent(children.map((c) => c.bounds));
  const width = Math.max(Number(doc.attrs.width) || 0, ext.width);
  const height = Math.max(Number(doc.attrs.height) || 0, ext.height);
  const rootAttrs: Record<string, string> = { tag: "hierarchy" };
  if (doc.attrs.rotation !== undefined) rootAttrs.rotation = doc.attrs.rotation;
  const root = node({
    className: "hierarchy",
    bounds: { x: 0, y: 0, w: width, h: height },
    attrs: rootAttrs,
    children,
  });
  return {
    platform: "android",
    format: dump ? "uiautomator-dump" : "uiautomator2",
    root,
    width,
    height,
  };
}

// The direct scanner: one pass from the text to the nodes, no element tree in between.

/** The attributes the scanner reads, by slot. */
const SLOTS = [
  "class",
  "text",
  "resource-id",
  "content-desc",
  "hint",
  "bounds",
  "clickable",
  "enabled",
  "focused",
  "checked",
  "checkable",
  "selected",
  "scrollable",
  "password",
  "visible-to-user",
  "displayed",
  "package",
  "index",
  "width",
  "height",
  "rotation",
  ...KEPT_ATTRS,
] as const;
const [
  CLASS,
  TEXT,
  RESOURCE_ID,
  CONTENT_DESC,
  HINT,
  BOUNDS,
  CLICKABLE,
  ENABLED,
  FOCUSED,
  CHECKED,
  CHECKABLE,
  SELECTED,
  SCROLLABLE,
  PASSWORD,
  VISIBLE_TO_USER,
  DISPLAYED,
  PACKAGE,
  INDEX,
  WIDTH,
  HEIGHT,
  ROTATION,
] = SLOTS.map((_, i) => i) as number[] as [
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
];
const FIRST_KEPT = SLOTS.length - KEPT_ATTRS.length;

/** The longest slot name. */
const MAX_SLOT_NAME = Math.max(...SLOTS.map((n) => n.length));
/** Slots by name length × 128 + first code unit (all ASCII). */
const SLOT_INDEX: ([string, number][] | undefined)[] = new Array((MAX_SLOT_NAME + 1) * 128);
SLOTS.forEach((name, slot) => {
  const key = name.length * 128 + name.charCodeAt(0);
  (SLOT_INDEX[key] ??= []).push([name, slot]);
});

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/** The end of the name starting at `i` (as the XML scanner reads names). */
function nameEnd(text: string, i: number): number {
  for (let c = text.charCodeAt(i);; c = text.charCodeAt(++i)) {
    if (
      isSpace(c) || c === 62 /* > */ || c === 47 /* / */ || c === 61 /* = */ ||
      c === 60 /* < */ || Number.isNaN(c)
    ) return i;
  }
}

/** The slot of the attribute named by `text[start, end)`, or -1. */
function slotAt(text: string, start: number, end: number): number {
  const first = text.charCodeAt(start);
  if (first >= 128 || end - start > MAX_SLOT_NAME) return -1;
  const candidates = SLOT_INDEX[(end - start) * 128 + first];
  if (candidates !== undefined) {
    for (const [n, k] of candidates) if (text.startsWith(n, start)) return k;
  }
  return -1;
}

/**
 * `text[start, end)` as a string that does not hold `text` alive: V8 slices of 13 code units or
 * more point into their source, so a screen kept for a whole optimization would keep its 80 KB
 * source too. Those are internalized (a copy in the engine's string table, shared by equal
 * values, freed with them).
 */
function keep(text: string, start: number, end: number): string {
  if (end - start < 13) return internValue(text, start, end);
  return Object.keys({ [text.slice(start, end)]: 0 })[0]!;
}

/** Only whitespace (or a byte order mark) in `text[from, to)`. */
function blank(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (!isSpace(c) && c !== 0xfeff) return false;
  }
  return true;
}

/** The attributes of the start tag being read: where each slot's value is, by element serial. */
const seen = new Int32Array(SLOTS.length);
const starts = new Int32Array(SLOTS.length);
const ends = new Int32Array(SLOTS.length);
const decoded: (string | undefined)[] = SLOTS.map(() => undefined);
let serial = 0;

/** Whether the start tag being read has the slot's attribute. */
function has(slot: number): boolean {
  return seen[slot] === serial;
}

/**
 * Scans UiAutomator XML straight into nodes, reading from each start tag only the attributes a
 * node keeps (flags and bounds without slicing strings). The screen is the one
 * {@linkcode parseAndroidTree} gives, to the key order of every object. Anything it does not
 * take on (comments, doctypes, malformed input of any kind) returns undefined, and the general
 * path parses the text again, so errors read the same. Exported for the tests that hold it to the
 * general path.
 *
 * @param text the XML source
 * @returns the screen, or undefined for the general path
 */
export function scanAndroid(text: string): Screen | undefined {
  const len = text.length;
  const names: string[] = [];
  const kids: UiNode[][] = [];
  const top: UiNode[] = [];
  let rootName: string | undefined;
  let rootClosed = false;
  let dump = false;
  let width = 0;
  let height = 0;
  let rotation: string | undefined;
  let pos = 0;
  let nextLt = -1;
  let nextAmp = -1;
  const str = (k: number): string | undefined =>
    seen[k] !== serial ? undefined : decoded[k] ?? keep(text, starts[k]!, ends[k]!);
  const flagOf = (k: number, fallback: boolean): boolean => {
    if (seen[k] !== serial) return fallback;
    const d = decoded[k];
    if (d !== undefined) return flag(d, fallback);
    const s = starts[k]!, n = ends[k]! - s;
    if (n === 4 && text.startsWith("true", s)) return true;
    if (n === 5 && text.startsWith("false", s)) return false;
    return fallback;
  };
  while (pos < len) {
    const lt = text.indexOf("<", pos);
    if (names.length === 0 && !blank(text, pos, lt < 0 ? len : lt)) return undefined;
    if (lt < 0) break;
    const c = text.charCodeAt(lt + 1);
    if (c === 63 /* ? */) {
      const end = text.indexOf("?>", lt);
      if (end < 0) return undefined;
      pos = end + 2;
      continue;
    }
    if (c === 33 /* ! */) return undefined;
    if (c === 47 /* / */) {
      const end = nameEnd(text, lt + 2);
      const open = names.pop();
      if (open === undefined || end - lt - 2 !== open.length || !text.startsWith(open, lt + 2)) {
        return undefined;
      }
      kids.pop();
      let gt = end;
      while (isSpace(text.charCodeAt(gt))) gt++;
      if (text.charCodeAt(gt) !== 62) return undefined;
      if (names.length === 0) rootClosed = true;
      pos = gt + 1;
      continue;
    }
    // a start tag
    const tagEnd = nameEnd(text, lt + 1);
    if (tagEnd === lt + 1 || rootClosed || names.length >= MAX_NESTING) return undefined;
    const name = internName(text, lt + 1, tagEnd);
    // a new stamp for the start tag (wrapping before the Int32Array's range ends)
    if (++serial === 0x7fffffff) {
      seen.fill(0);
      serial = 1;
    }
    let unknown: string[] | undefined;
    let i = tagEnd;
    let selfClosing = false;
    for (;;) {
      const before = i;
      while (isSpace(text.charCodeAt(i))) i++;
      const ch = text.charCodeAt(i);
      if (ch === 62 /* > */) {
        i++;
        break;
      }
      if (ch === 47 /* / */) {
        if (text.charCodeAt(i + 1) !== 62) return undefined;
        selfClosing = true;
        i += 2;
        break;
      }
      if (Number.isNaN(ch) || i === before) return undefined;
      // a name the scanner reads, right before its '=': no need to scan it character by character
      let slot = slotAt(text, i, text.indexOf("=", i));
      const attrEnd = slot >= 0 ? i + SLOTS[slot]!.length : nameEnd(text, i);
      if (attrEnd === i) return undefined;
      if (slot < 0) slot = slotAt(text, i, attrEnd);
      if (slot >= 0) {
        if (seen[slot] === serial) return undefined;
        seen[slot] = serial;
      } else {
        const attr = text.slice(i, attrEnd);
        unknown ??= [];
        if (unknown.includes(attr)) return undefined;
        unknown.push(attr);
      }
      i = attrEnd;
      while (isSpace(text.charCodeAt(i))) i++;
      if (text.charCodeAt(i) !== 61 /* = */) return undefined;
      i++;
      while (isSpace(text.charCodeAt(i))) i++;
      const q = text.charCodeAt(i);
      if (q !== 34 && q !== 39) return undefined;
      const close = text.indexOf(q === 34 ? '"' : "'", i + 1);
      if (close < 0) return undefined;
      if (nextLt <= i) nextLt = text.indexOf("<", i + 1);
      if (nextLt >= 0 && nextLt < close) return undefined;
      if (nextLt < 0) nextLt = len;
      if (slot >= 0) {
        starts[slot] = i + 1;
        ends[slot] = close;
        decoded[slot] = undefined;
      }
      if (nextAmp <= i) {
        nextAmp = text.indexOf("&", i + 1);
        if (nextAmp < 0) nextAmp = len;
      }
      if (nextAmp < close) {
        let value: string;
        try {
          value = decodeEntities(text, i + 1, close);
        } catch {
          return undefined;
        }
        if (slot >= 0) decoded[slot] = value;
      }
      i = close + 1;
    }
    let children: UiNode[];
    if (names.length === 0) {
      if (rootName !== undefined) return undefined;
      rootName = name;
      if (name === "AppiumAUT" || name.startsWith("XCUIElementType")) return undefined;
      width = Number(str(WIDTH)) || 0;
      height = Number(str(HEIGHT)) || 0;
      rotation = str(ROTATION);
    }
    if (names.length === 0 && name === "hierarchy") children = top;
    else {
      const n = scanNode(text, name, str, flagOf);
      if (n === undefined) return undefined;
      if (name === "node") dump = true;
      (names.length === 0 ? top : kids[kids.length - 1]!).push(n);
      children = n.children;
    }
    if (!selfClosing) {
      names.push(name);
      kids.push(children);
    } else if (names.length === 0) rootClosed = true;
    pos = i;
  }
  if (names.length > 0 || rootName === undefined) return undefined;
  const ext = extent(top.map((c) => c.bounds));
  width = Math.max(width, ext.width);
  height = Math.max(height, ext.height);
  const rootAttrs: Record<string, string> = { tag: "hierarchy" };
  if (rotation !== undefined) rootAttrs.rotation = rotation;
  const root = node({
    className: "hierarchy",
    bounds: { x: 0, y: 0, w: width, h: height },
    attrs: rootAttrs,
    children: top,
  });
  return {
    platform: "android",
    format: dump ? "uiautomator-dump" : "uiautomator2",
    root,
    width,
    height,
  };
}

/** The node of the start tag just read (as `parseAndroidTree` converts an element), or undefined for invalid bounds. */
function scanNode(
  text: string,
  name: string,
  str: (k: number) => string | undefined,
  flagOf: (k: number, fallback: boolean) => boolean,
): UiNode | undefined {
  let bounds: Bounds | undefined = { x: 0, y: 0, w: 0, h: 0 };
  if (has(BOUNDS)) {
    const d = decoded[BOUNDS];
    bounds = d === undefined
      ? integerBoundsAt(text, starts[BOUNDS]!, ends[BOUNDS]!) ??
        parseBoundsString(text.slice(starts[BOUNDS], ends[BOUNDS]))
      : parseBoundsString(d);
    if (!bounds) return undefined;
  }
  const resourceId = str(RESOURCE_ID) ?? "";
  const attrs: Record<string, string> = { tag: name };
  if (has(PACKAGE)) attrs.package = str(PACKAGE)!;
  if (has(INDEX)) attrs.index = str(INDEX)!;
  for (let k = FIRST_KEPT; k < SLOTS.length; k++) {
    if (!has(k)) continue;
    const v = str(k)!;
    if (v !== "") attrs[SLOTS[k]!] = v;
  }
  // makeNode's fields in makeNode's order, written out (the node is built 100,000s of times)
  const n: UiNode = {
    className: str(CLASS) || (name === "node" ? "android.view.View" : name),
    bounds,
    clickable: flagOf(CLICKABLE, false),
    enabled: flagOf(ENABLED, true),
    focused: flagOf(FOCUSED, false),
    checked: flagOf(CHECKED, false),
    checkable: flagOf(CHECKABLE, false),
    selected: flagOf(SELECTED, false),
    scrollable: flagOf(SCROLLABLE, false),
    password: flagOf(PASSWORD, false),
    visible: has(VISIBLE_TO_USER) ? flagOf(VISIBLE_TO_USER, true) : flagOf(DISPLAYED, true),
    children: [],
  };
  const text_ = str(TEXT);
  if (text_ !== undefined && text_ !== "") n.text = text_;
  if (resourceId !== "") {
    n.resourceId = resourceId;
    if (!resourceId.includes(":id/")) n.testId = resourceId;
  }
  const description = str(CONTENT_DESC);
  if (description !== undefined && description !== "") n.contentDescription = description;
  const hint = str(HINT);
  if (hint !== undefined && hint !== "") n.hint = hint;
  n.attrs = attrs;
  return n;
}

/** `parseBoundsString`'s common case, `[x1,y1][x2,y2]` of integers, read in place; else undefined. */
function integerBoundsAt(text: string, start: number, end: number): Bounds | undefined {
  let i = start;
  let x1 = 0, y1 = 0, x2 = 0;
  for (let k = 0; k < 4; k++) {
    if (text.charCodeAt(i) !== (k % 2 === 0 ? 91 /* [ */ : 44 /* , */)) return undefined;
    i++;
    const neg = text.charCodeAt(i) === 45; /* - */
    if (neg) i++;
    const from = i;
    let n = 0;
    for (let c = text.charCodeAt(i); c >= 48 && c <= 57; c = text.charCodeAt(++i)) {
      n = n * 10 + c - 48;
    }
    if (i === from || i - from > 15) return undefined;
    if (neg) n = -n;
    if (k % 2 === 1) {
      if (text.charCodeAt(i) !== 93 /* ] */) return undefined;
      i++;
    }
    if (k === 0) x1 = n;
    else if (k === 1) y1 = n;
    else if (k === 2) x2 = n;
    else {
      if (i !== end) return undefined;
      return { x: x1, y: y1, w: Math.max(0, x2 - x1), h: Math.max(0, n - y1) };
    }
  }
  return undefined;
}
