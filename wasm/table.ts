/**
 * The flat screen table on the host side: one contiguous byte block laid out as `layout.ts`
 * describes (header, Int32 columns, string offsets, UTF-8 string arena), written once by a
 * {@linkcode TableWriter} and read by both the reference and the WASM hot path.
 *
 * @module
 */
import {
  ALIGN,
  COL_X1,
  COL_X2,
  COL_Y1,
  COL_Y2,
  H_ARENA,
  H_ARENA_BYTES,
  H_COUNT,
  H_MAGIC,
  H_NARROW,
  H_NARROW_COLUMNS,
  H_NARROW_OX,
  H_NARROW_OY,
  H_NARROW_STRIDE,
  H_STR_OFFSETS,
  H_STRIDE,
  H_STRING_COUNT,
  H_TOTAL_BYTES,
  HEADER_BYTES,
  HEADER_INTS,
  LANES,
  MAGIC,
  NARROW_H,
  NARROW_LANES,
  NARROW_LIMIT,
  NARROW_W,
  NARROW_X1,
  NARROW_Y1,
  NUM_COLUMNS,
  NUM_NARROW,
} from "./layout.ts";

/** Rounds `bytes` up to a multiple of `ALIGN`. */
export function align(bytes: number): number {
  return Math.ceil(bytes / ALIGN) * ALIGN;
}

/** Byte distance between two narrow Int16 columns of a table of `n` nodes. */
export function narrowStride(n: number): number {
  return Math.ceil(n / NARROW_LANES) * NARROW_LANES * 2;
}

/** Byte distance between two columns of a table of `n` nodes (whole `v128` blocks). */
export function columnStride(n: number): number {
  return Math.ceil(n / LANES) * LANES * 4;
}

let nextTableId = 1;

/** A finished, immutable table: the bytes and typed-array views of its sections. */
export class FlatTable {
  /** Unique per table in this process (the WASM binding uses it to know what is resident). */
  readonly id: number = nextTableId++;
  /** The whole table, as copied into WASM memory. */
  readonly bytes: Uint8Array;
  /** Number of nodes. */
  readonly n: number;
  /** Byte distance between two columns. */
  readonly stride: number;
  /** Interned strings by id (id 0 is "" and means absent). */
  readonly strings: readonly string[];
  /** Byte offsets of each string in `arena` (`strings.length + 1` values). */
  readonly strOffsets: Int32Array;
  /** UTF-8 bytes of every interned string. */
  readonly arena: Uint8Array;
  /** Whether the narrow Int16 bounds are valid (the boxes span at most 32,767 px per axis). */
  readonly narrow: boolean;
  readonly #columns: Int32Array[];
  readonly #ids: ReadonlyMap<string, number>;

  /**
   * Wraps table bytes written by a {@linkcode TableWriter}.
   *
   * @param bytes the table; its byteOffset must be a multiple of 4
   * @param strings the interned strings by id
   * @param ids the id of each interned string
   */
  constructor(bytes: Uint8Array, strings: readonly string[], ids: ReadonlyMap<string, number>) {
    const header = new Int32Array(bytes.buffer, bytes.byteOffset, HEADER_INTS);
    if (header[H_MAGIC] !== MAGIC) throw new TypeError("Cannot read table: bad magic number");
    this.bytes = bytes;
    this.n = header[H_COUNT]!;
    this.narrow = header[H_NARROW] === 1;
    this.stride = header[H_STRIDE]!;
    this.strings = strings;
    this.#ids = ids;
    this.#columns = [];
    for (let c = 0; c < NUM_COLUMNS; c++) {
      this.#columns.push(
        new Int32Array(bytes.buffer, bytes.byteOffset + HEADER_BYTES + c * this.stride, this.n),
      );
    }
    this.strOffsets = new Int32Array(
      bytes.buffer,
      bytes.byteOffset + header[H_STR_OFFSETS]!,
      header[H_STRING_COUNT]! + 1,
    );
    this.arena = new Uint8Array(
      bytes.buffer,
      bytes.byteOffset + header[H_ARENA]!,
      header[H_ARENA_BYTES]!,
    );
  }

  /**
   * One column (a `COL_*` of layout.ts) as an Int32Array of n values.
   *
   * @param c the column
   * @returns a view into the table bytes
   */
  column(c: number): Int32Array {
    const col = this.#columns[c];
    if (col === undefined) throw new RangeError(`Cannot read column ${c}: no such column`);
    return col;
  }

  /**
   * The id of an interned string: 0 for "" or undefined, -1 if no node holds the string.
   *
   * @param s the string
   * @returns its id
   */
  stringId(s: string | undefined): number {
    if (s === undefined || s === "") return 0;
    return this.#ids.get(s) ?? -1;
  }
}

/**
 * Builds a {@linkcode FlatTable}: set every column of every node, intern strings, finish.
 *
 * @example
 * ```ts
 * import { COL_CLASS, COL_END } from "./layout.ts";
 * const w = new TableWriter(1);
 * w.column(COL_END)[0] = 1;
 * w.column(COL_CLASS)[0] = w.intern("Button");
 * const t = w.finish();
 * if (t.strings[t.column(COL_CLASS)[0]!] !== "Button") throw new Error();
 * ```
 */
export class TableWriter {
  /** Number of nodes. */
  readonly n: number;
  readonly #stride: number;
  readonly #columnBytes: Uint8Array;
  readonly #ids = new Map<string, number>([["", 0]]);
  readonly #strings: string[] = [""];

  /**
   * Allocates zeroed columns for `n` nodes.
   *
   * @param n the number of nodes
   * @throws {RangeError} when n is not a non-negative integer
   */
  constructor(n: number) {
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`Cannot build a table of ${n} nodes`);
    this.n = n;
    this.#stride = columnStride(n);
    this.#columnBytes = new Uint8Array(HEADER_BYTES + NUM_COLUMNS * this.#stride);
  }

  /**
   * A column to fill (a `COL_*` of layout.ts).
   *
   * @param c the column
   * @returns an Int32Array of n values
   */
  column(c: number): Int32Array {
    if (!Number.isInteger(c) || c < 0 || c >= NUM_COLUMNS) {
      throw new RangeError(`Cannot write column ${c}: no such column`);
    }
    return new Int32Array(this.#columnBytes.buffer, HEADER_BYTES + c * this.#stride, this.n);
  }

  /**
   * Interns a string.
   *
   * @param s the string (undefined and "" are id 0)
   * @returns its id
   */
  intern(s: string | undefined): number {
    if (s === undefined || s === "") return 0;
    let id = this.#ids.get(s);
    if (id === undefined) {
      id = this.#strings.length;
      this.#strings.push(s);
      this.#ids.set(s, id);
    }
    return id;
  }

  /**
   * Writes the Int16 copy of the bounds, shifted by an origin, when the boxes span at most
   * 2 * NARROW_LIMIT + 1 pixels on each axis; returns the origin, or undefined when they do not.
   */
  #writeNarrow(bytes: Uint8Array, at: number, nStride: number): [number, number] | undefined {
    const x1 = this.column(COL_X1), y1 = this.column(COL_Y1);
    const x2 = this.column(COL_X2), y2 = this.column(COL_Y2);
    let left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
    for (let i = 0; i < this.n; i++) {
      left = Math.min(left, x1[i]!);
      top = Math.min(top, y1[i]!);
      right = Math.max(right, x2[i]!);
      bottom = Math.max(bottom, y2[i]!);
    }
    if (this.n === 0) return [0, 0];
    if (right - left > 2 * NARROW_LIMIT + 1 || bottom - top > 2 * NARROW_LIMIT + 1) {
      return undefined;
    }
    const ox = left + NARROW_LIMIT + 1, oy = top + NARROW_LIMIT + 1;
    const col = (k: number) => new Int16Array(bytes.buffer, at + k * nStride, this.n);
    const nx = col(NARROW_X1), ny = col(NARROW_Y1), nw = col(NARROW_W), nh = col(NARROW_H);
    for (let i = 0; i < this.n; i++) {
      nx[i] = x1[i]! - ox;
      ny[i] = y1[i]! - oy;
      nw[i] = x2[i]! - x1[i]!;
      nh[i] = y2[i]! - y1[i]!;
    }
    return [ox, oy];
  }

  /**
   * Lays out the strings after the columns and returns the finished table.
   *
   * @returns the table
   */
  finish(): FlatTable {
    const { utf8, lengths } = encodeAll(this.#strings);
    const arenaBytes = utf8.length;
    const narrow = this.#columnBytes.length;
    const nStride = narrowStride(this.n);
    const strOffsets = narrow + NUM_NARROW * nStride;
    const arena = strOffsets + align((lengths.length + 1) * 4);
    const total = arena + align(arenaBytes);
    const bytes = new Uint8Array(total);
    bytes.set(this.#columnBytes);
    const header = new Int32Array(bytes.buffer, 0, HEADER_INTS);
    header[H_MAGIC] = MAGIC;
    header[H_COUNT] = this.n;
    header[H_STRIDE] = this.#stride;
    header[H_STRING_COUNT] = lengths.length;
    header[H_STR_OFFSETS] = strOffsets;
    header[H_ARENA] = arena;
    header[H_ARENA_BYTES] = arenaBytes;
    header[H_TOTAL_BYTES] = total;
    header[H_NARROW_COLUMNS] = narrow;
    header[H_NARROW_STRIDE] = nStride;
    const origin = this.#writeNarrow(bytes, narrow, nStride);
    header[H_NARROW] = origin === undefined ? 0 : 1;
    header[H_NARROW_OX] = origin?.[0] ?? 0;
    header[H_NARROW_OY] = origin?.[1] ?? 0;
    const offsets = new Int32Array(bytes.buffer, strOffsets, lengths.length + 1);
    let at = 0;
    for (let id = 0; id < lengths.length; id++) {
      offsets[id] = at;
      at += lengths[id]!;
    }
    offsets[lengths.length] = at;
    bytes.set(utf8, arena);
    return new FlatTable(bytes, this.#strings, this.#ids);
  }
}

const ENCODER = new TextEncoder();

/**
 * The UTF-8 length of a string as `TextEncoder` writes it: a lone surrogate becomes U+FFFD
 * (3 bytes), a surrogate pair 4.
 */
function utf8Length(s: string): number {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * The strings' UTF-8 bytes back to back and each one's length: one `TextEncoder` call for the
 * whole table, not one per string. Joining can pair a string's trailing lone high surrogate
 * with the next one's leading low surrogate (2 bytes fewer than apart); then each is encoded
 * on its own, as before.
 */
function encodeAll(strings: readonly string[]): { utf8: Uint8Array; lengths: number[] } {
  const lengths = strings.map(utf8Length);
  const utf8 = ENCODER.encode(strings.join(""));
  if (utf8.length === lengths.reduce((sum, n) => sum + n, 0)) return { utf8, lengths };
  const parts = strings.map((s) => ENCODER.encode(s));
  const out = new Uint8Array(parts.reduce((sum, e) => sum + e.length, 0));
  let at = 0;
  for (const e of parts) {
    out.set(e, at);
    at += e.length;
  }
  return { utf8: out, lengths: parts.map((e) => e.length) };
}
