/**
 * A parsed screen as compact bytes, so a stored capture's screens are parsed once, at ingest, and
 * read back by later projections several times faster than their hierarchies parse
 * (docs/storage.md "Parsed screens").
 *
 * The bytes hold one string table and the nodes in pre-order; {@linkcode decodeScreen} gives back
 * the screen the parser gave, to the key order of every object. What the codec cannot hold exactly
 * (a string that is not well-formed UTF-16, a node with a field the node model does not name) is
 * not encoded: {@linkcode encodeScreen} returns undefined and the hierarchy is parsed instead.
 *
 * Layout (little-endian): a 32-byte header of eight int32 (magic, codec version, string count,
 * UTF-8 bytes of the strings, int count, number count, platform, format), then the strings'
 * UTF-16 lengths (int32 each), the ints, the numbers (float64, 8-aligned), the strings' UTF-8.
 * The ints are the screen's url (string index or -1), then for each node: a mask (flags, which
 * string fields are present, attrs), the class name, each present string field, the attrs count
 * and key/value pairs, and the child count. The numbers are width, height, then each node's
 * bounds.
 *
 * @module
 */
import { parseHierarchy } from "./hierarchy.ts";
import {
  FLAG_FIELDS,
  HierarchyFormat,
  Platform,
  type Screen,
  STRING_FIELDS,
  type UiNode,
} from "./ui_node.ts";

/**
 * The codec's version, part of the key parsed screens are stored under. Raise it whenever the
 * bytes change, or a parser's output does (`tests/engine/screens/screen_codec_test.ts` holds a
 * fingerprint of the parsers' output on the corpus to this number): a stored screen of another
 * version is not read, and its hierarchy is parsed again.
 */
export const SCREEN_CODEC_VERSION = 1;

/**
 * The kind a hierarchy's parsed screen is stored under beside its blob: the codec, its version
 * and the format the hierarchy was parsed as (the same bytes may be read as two formats).
 *
 * @param format the format the hierarchy is parsed as
 * @returns the kind, e.g. `cairn.screen/v1 uiautomator2`
 */
export function parsedScreenKind(format: HierarchyFormat): string {
  return `cairn.screen/v${SCREEN_CODEC_VERSION} ${format}`;
}

const MAGIC = 0x6e726163; // "carn"
const HEADER_INTS = 8;

const FLAGS = FLAG_FIELDS;
const FIELD_BIT = FLAGS.length; // STRING_FIELDS take the bits after the flags
const ATTRS_BIT = 1 << (FIELD_BIT + STRING_FIELDS.length);
/** Keys a node may have: the flags, className, bounds, children, the string fields, attrs. */
const NODE_KEYS = new Set<string>([
  ...FLAGS,
  "className",
  "bounds",
  "children",
  ...STRING_FIELDS,
  "attrs",
]);
const SCREEN_KEYS = new Set(["platform", "format", "root", "width", "height", "url"]);
const PLATFORMS = Platform.options;
const FORMATS = HierarchyFormat.options;

/** Not encodable: the screen is parsed from its hierarchy instead. */
class Unencodable extends Error {}

/**
 * Encodes a parsed screen.
 *
 * @param screen a screen as a parser gave it
 * @returns its bytes, or undefined when the codec cannot hold it exactly
 * @example
 * ```ts
 * import { parseHierarchy } from "./hierarchy.ts";
 * const s = parseHierarchy('<hierarchy><node class="android.widget.Button" text="OK" bounds="[0,0][100,50]"/></hierarchy>');
 * const back = decodeScreen(encodeScreen(s)!);
 * if (JSON.stringify(back) !== JSON.stringify(s)) throw new Error();
 * ```
 */
export function encodeScreen(screen: Screen): Uint8Array | undefined {
  const strings: string[] = [];
  const index = new Map<string, number>();
  const str = (s: string): number => {
    let i = index.get(s);
    if (i === undefined) {
      if (!s.isWellFormed()) throw new Unencodable();
      i = strings.length;
      strings.push(s);
      index.set(s, i);
    }
    return i;
  };
  const ints: number[] = [];
  const nums: number[] = [];
  for (const k in screen) if (!SCREEN_KEYS.has(k)) return undefined;
  const platform = PLATFORMS.indexOf(screen.platform);
  const format = FORMATS.indexOf(screen.format);
  if (platform < 0 || format < 0) return undefined;
  try {
    ints.push(screen.url === undefined ? -1 : str(screen.url));
    nums.push(screen.width);
    nums.push(screen.height);
    const stack: UiNode[] = [screen.root];
    while (stack.length > 0) {
      const n = stack.pop()!;
      let keys = 0;
      for (const k in n) {
        if (!NODE_KEYS.has(k)) return undefined;
        keys++;
      }
      let mask = 0;
      for (let f = 0; f < FLAGS.length; f++) if (n[FLAGS[f]!]) mask |= 1 << f;
      for (let f = 0; f < STRING_FIELDS.length; f++) {
        if (n[STRING_FIELDS[f]!] !== undefined) mask |= 1 << (FIELD_BIT + f);
      }
      if (n.attrs !== undefined) mask |= ATTRS_BIT;
      // what a decoded node has: every flag, className, bounds, children and the present rest
      if (keys !== FLAGS.length + 3 + popcount(mask >>> FIELD_BIT)) return undefined;
      ints.push(mask);
      ints.push(str(n.className));
      for (const f of STRING_FIELDS) {
        const v = n[f];
        if (v !== undefined) ints.push(str(v));
      }
      if (n.attrs !== undefined) {
        const entries = Object.entries(n.attrs);
        ints.push(entries.length);
        for (const [k, v] of entries) {
          ints.push(str(k));
          ints.push(str(v));
        }
      }
      ints.push(n.children.length);
      const b = n.bounds;
      if (Object.keys(b).length !== 4) return undefined;
      nums.push(b.x);
      nums.push(b.y);
      nums.push(b.w);
      nums.push(b.h);
      for (let c = n.children.length - 1; c >= 0; c--) stack.push(n.children[c]!);
    }
  } catch (err) {
    if (err instanceof Unencodable) return undefined;
    throw err;
  }
  const utf8 = new TextEncoder().encode(strings.join(""));
  const intCount = HEADER_INTS + strings.length + ints.length;
  const numsAt = align8(intCount * 4);
  const out = new Uint8Array(numsAt + nums.length * 8 + utf8.byteLength);
  const head = new Int32Array(out.buffer, 0, intCount);
  head.set([
    MAGIC,
    SCREEN_CODEC_VERSION,
    strings.length,
    utf8.byteLength,
    ints.length,
    nums.length,
    platform,
    format,
  ]);
  for (let i = 0; i < strings.length; i++) head[HEADER_INTS + i] = strings[i]!.length;
  head.set(ints, HEADER_INTS + strings.length);
  new Float64Array(out.buffer, numsAt, nums.length).set(nums);
  out.set(utf8, numsAt + nums.length * 8);
  return out;
}

/**
 * The parsed screen of a stored hierarchy as kept beside its blob: the stored bytes parsed as the
 * format and encoded, what a projection would otherwise parse (a recorder keeps it as it records).
 *
 * @param stored the hierarchy's stored bytes (secrets scrubbed, as stored)
 * @param format the format it is parsed as
 * @returns the bytes, or undefined when the hierarchy does not parse (the projection reports it)
 *   or the codec cannot hold it
 */
export function parsedScreenBytes(
  stored: Uint8Array,
  format: HierarchyFormat,
): Uint8Array | undefined {
  try {
    return encodeScreen(parseHierarchy(new TextDecoder().decode(stored), { format }));
  } catch {
    return undefined;
  }
}

const decoder = new TextDecoder();

/**
 * Decodes bytes of {@linkcode encodeScreen} back into the screen.
 *
 * @param bytes the bytes
 * @returns the screen, or undefined when the bytes are not of this codec version or are cut short
 */
export function decodeScreen(bytes: Uint8Array): Screen | undefined {
  if (bytes.byteLength < HEADER_INTS * 4) return undefined;
  // typed views need aligned offsets: a view into a larger buffer may not be
  const buf = bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
  const head = new Int32Array(buf.buffer, buf.byteOffset, HEADER_INTS);
  const [magic, version, stringCount, utf8Bytes, intCount, numCount, platform, format] = head;
  if (magic !== MAGIC || version !== SCREEN_CODEC_VERSION) return undefined;
  const ints = HEADER_INTS + stringCount! + intCount!;
  const numsAt = align8(ints * 4);
  if (buf.byteLength !== numsAt + numCount! * 8 + utf8Bytes!) return undefined;
  const I = new Int32Array(buf.buffer, buf.byteOffset, ints);
  const N = new Float64Array(buf.buffer, buf.byteOffset + numsAt, numCount!);
  const all = decoder.decode(buf.subarray(numsAt + numCount! * 8));
  const strings = new Array<string>(stringCount!);
  for (let i = 0, at = 0; i < stringCount!; i++) {
    const len = I[HEADER_INTS + i]!;
    strings[i] = all.slice(at, at + len);
    at += len;
  }
  let ip = HEADER_INTS + stringCount!;
  let np = 0;
  const url = I[ip++]!;
  const width = N[np++]!;
  const height = N[np++]!;
  const readNode = (): UiNode => {
    const mask = I[ip++]!;
    const node: UiNode = {
      className: strings[I[ip++]!]!,
      bounds: { x: N[np++]!, y: N[np++]!, w: N[np++]!, h: N[np++]! },
      clickable: (mask & 1) !== 0,
      enabled: (mask & 2) !== 0,
      focused: (mask & 4) !== 0,
      checked: (mask & 8) !== 0,
      checkable: (mask & 16) !== 0,
      selected: (mask & 32) !== 0,
      scrollable: (mask & 64) !== 0,
      password: (mask & 128) !== 0,
      visible: (mask & 256) !== 0,
      children: [],
    };
    for (let f = 0; f < STRING_FIELDS.length; f++) {
      if (mask & (1 << (FIELD_BIT + f))) node[STRING_FIELDS[f]!] = strings[I[ip++]!]!;
    }
    if (mask & ATTRS_BIT) {
      const attrs: Record<string, string> = {};
      for (let count = I[ip++]!; count > 0; count--) {
        const k = strings[I[ip++]!]!;
        attrs[k] = strings[I[ip++]!]!;
      }
      node.attrs = attrs;
    }
    const childCount = I[ip++]!;
    for (let c = 0; c < childCount; c++) node.children.push(readNode());
    return node;
  };
  const root = readNode();
  if (ip !== ints || np !== numCount) return undefined;
  const screen: Screen = {
    platform: PLATFORMS[platform!]!,
    format: FORMATS[format!]!,
    root,
    width,
    height,
  };
  if (url >= 0) screen.url = strings[url]!;
  return screen;
}

/**
 * A screen's size from bytes of {@linkcode encodeScreen}, read from their head without decoding the
 * nodes (a projection learns every screen's size before it reads any screen whole).
 *
 * @param bytes the bytes
 * @returns width and height, or undefined when the bytes are not of this codec version or are cut
 *   short
 */
export function decodeScreenSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  if (bytes.byteLength < HEADER_INTS * 4) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const int = (i: number) => view.getInt32(i * 4, true);
  const [magic, version, stringCount, utf8Bytes, intCount, numCount] = [0, 1, 2, 3, 4, 5].map(int);
  if (magic !== MAGIC || version !== SCREEN_CODEC_VERSION || numCount! < 2) return undefined;
  const numsAt = align8((HEADER_INTS + stringCount! + intCount!) * 4);
  if (bytes.byteLength !== numsAt + numCount! * 8 + utf8Bytes!) return undefined;
  return { width: view.getFloat64(numsAt, true), height: view.getFloat64(numsAt + 8, true) };
}

function align8(n: number): number {
  return (n + 7) & ~7;
}

function popcount(v: number): number {
  let c = 0;
  for (; v !== 0; v &= v - 1) c++;
  return c;
}
