/**
 * The operations of the hot path, implemented twice over the same {@linkcode FlatTable}: in
 * plain TS (`reference.ts`) and in AssemblyScript compiled to WASM (`mod.ts`); tests hold the
 * two equal.
 *
 * @module
 */
import {
  FIRST_STRING_COLUMN,
  MAX_CLAUSES,
  NUM_COLUMNS,
  P_CLAUSE_COUNT,
  P_CLAUSES,
  P_FLAGS_MASK,
  P_FLAGS_VALUE,
  P_FROM,
  P_TO,
  PREDICATE_INTS,
} from "./layout.ts";
import type { FlatTable } from "./table.ts";

/** Every export of the hot path. Coordinates are Int32; indices are node indices. */
export interface HotPath {
  /** Which implementation this is. */
  readonly kind: "wasm" | "reference";
  /** The deepest, then smallest-area, visible node containing (x, y); first in document order on ties; -1 for none. */
  hitTest(t: FlatTable, x: number, y: number): number;
  /**
   * The visible node drawn on top at (x, y) — the highest paint rank (`COL_PAINT`) — among those
   * whose flags hold every bit of `mask` (0: any); -1 for none.
   */
  hitTestTop(t: FlatTable, x: number, y: number, mask: number): number;
  /** `hitTest` of every (x, y) pair in `points` into `out` (one index per pair). */
  hitTestBatch(t: FlatTable, points: Int32Array, out: Int32Array): void;
  /** The FNV-1a ref hash of every node into `out` (n values). */
  refHashes(t: FlatTable, out: Uint32Array): void;
  /** How many nodes match the encoded predicate (see {@linkcode encodePredicate}). */
  countMatches(t: FlatTable, pred: Int32Array): number;
  /** `countMatches` of each predicate in `preds` (PREDICATE_INTS apart) into `out`. */
  countBatch(t: FlatTable, preds: Int32Array, out: Int32Array): void;
  /** How many nodes match; the first `out.length` matching indices go to `out`. */
  firstMatches(t: FlatTable, pred: Int32Array, out: Int32Array): number;
  /** The exclusive end of node i's subtree, -1 when i is out of range. */
  subtreeEnd(t: FlatTable, i: number): number;
  /** Writes node i's ancestors (parent first) to `out` (room for n) and returns their number. */
  ancestors(t: FlatTable, i: number, out: Int32Array): number;
}

/** A selector predicate over the table: every clause holds and `(flags & flagsMask) == flagsValue`. */
export interface Predicate {
  /** Pairs of a string column (`COL_CLASS` … `COL_HINT`) and a string id (-1 never matches). */
  clauses: ReadonlyArray<readonly [column: number, id: number]>;
  /** Flag bits to compare (0: flags are not compared). */
  flagsMask?: number;
  /** Their required value. */
  flagsValue?: number;
  /** First node searched (default 0). */
  from?: number;
  /** End of the nodes searched, exclusive (default: all). */
  to?: number;
}

/**
 * Encodes a predicate into the Int32 fields `countMatches` and `firstMatches` read.
 *
 * @param p the predicate
 * @param out where to write (PREDICATE_INTS values); a new array by default
 * @returns the encoded predicate
 * @throws {RangeError} on more than MAX_CLAUSES clauses or a column that holds no string ids
 * @example
 * ```ts
 * import { COL_TEXT } from "./layout.ts";
 * const p = encodePredicate({ clauses: [[COL_TEXT, 3]] });
 * if (p.length !== 24) throw new Error();
 * ```
 */
export function encodePredicate(
  p: Predicate,
  out: Int32Array = new Int32Array(PREDICATE_INTS),
): Int32Array {
  if (p.clauses.length > MAX_CLAUSES) {
    throw new RangeError(`Cannot encode a predicate of ${p.clauses.length} clauses (max 8)`);
  }
  out.fill(0);
  out[P_FROM] = p.from ?? 0;
  out[P_TO] = Math.min(p.to ?? 0x7fffffff, 0x7fffffff);
  out[P_FLAGS_MASK] = p.flagsMask ?? 0;
  out[P_FLAGS_VALUE] = p.flagsValue ?? 0;
  out[P_CLAUSE_COUNT] = p.clauses.length;
  p.clauses.forEach(([column, id], k) => {
    if (!Number.isInteger(column) || column < FIRST_STRING_COLUMN || column >= NUM_COLUMNS) {
      throw new RangeError(`Cannot match column ${column}: it holds no string ids`);
    }
    out[P_CLAUSES + 2 * k] = column;
    out[P_CLAUSES + 2 * k + 1] = id;
  });
  return out;
}
