// Selector predicates: how many nodes match a conjunction of column = string-id clauses and a
// flags mask, within a node range; and the first k of them.
import {
  COL_FLAGS, LANES, P_CLAUSE_COUNT, P_CLAUSES, P_FLAGS_MASK, P_FLAGS_VALUE, P_FROM, P_TO,
} from "../layout";
import { column, count } from "./table";

// @ts-ignore: decorator
@inline function field(pred: usize, f: i32): i32 {
  return load<i32>(pred + (<usize>f << 2));
}

// Narrows `m` to the lanes of the block at byte offset `off` that match the predicate at `pred`
// (its first clause excluded when `skipFirst`) and lie in [from, to).
// @ts-ignore: decorator
@inline function blockMask(
  table: usize, pred: usize, off: usize, m: v128, skipFirst: bool, from: i32, to: i32,
): v128 {
  const clauses = field(pred, P_CLAUSE_COUNT);
  for (let c = skipFirst ? 1 : 0; c < clauses; c++) {
    const col = column(table, field(pred, P_CLAUSES + 2 * c));
    m = v128.and(m, i32x4.eq(v128.load(col + off), i32x4.splat(field(pred, P_CLAUSES + 2 * c + 1))));
  }
  const mask = field(pred, P_FLAGS_MASK);
  if (mask != 0) {
    const flags = v128.load(column(table, COL_FLAGS) + off);
    m = v128.and(m, i32x4.eq(v128.and(flags, i32x4.splat(mask)), i32x4.splat(field(pred, P_FLAGS_VALUE))));
  }
  const base = <i32>(off >> 2);
  if (base < from || base + LANES > to) {
    const idx = i32x4.add(i32x4.splat(base), i32x4(0, 1, 2, 3));
    m = v128.and(m, v128.and(i32x4.ge_s(idx, i32x4.splat(from)), i32x4.lt_s(idx, i32x4.splat(to))));
  }
  return m;
}

// Adds the lanes of `bits` (block at `off`) to the count `found`, writing indices below `k`.
// @ts-ignore: decorator
@inline function collect(bits: i32, off: usize, found: i32, out: usize, k: i32): i32 {
  if (found >= k) return found + popcnt(bits);
  const base = <i32>(off >> 2);
  while (bits != 0) {
    if (found < k) store<i32>(out + (<usize>found << 2), base + ctz(bits));
    found++;
    bits &= bits - 1;
  }
  return found;
}

// Counts the matches of the predicate at `pred`; writes the first `k` indices to `out`.
function scan(table: usize, pred: usize, out: usize, k: i32): i32 {
  const n = count(table);
  const from = max(field(pred, P_FROM), 0);
  const to = min(field(pred, P_TO), n);
  if (from >= to) return 0;
  const start = <usize>((from / LANES) * 16);
  const end = <usize>(((to + LANES - 1) / LANES) * 16);
  let found = 0;
  if (field(pred, P_CLAUSE_COUNT) == 0) {
    for (let off = start; off < end; off += 16) {
      found = collect(i32x4.bitmask(blockMask(table, pred, off, i32x4.splat(-1), false, from, to)), off, found, out, k);
    }
    return found;
  }
  // The first clause rejects most blocks, two at a time, in a tight loop; the rest of the
  // predicate is checked on a hit.
  const first = column(table, field(pred, P_CLAUSES));
  const value = i32x4.splat(field(pred, P_CLAUSES + 1));
  let off = start;
  for (; off + 32 <= end; off += 32) {
    const m0 = i32x4.eq(v128.load(first + off), value);
    const m1 = i32x4.eq(v128.load(first + off, 16), value);
    if (!v128.any_true(v128.or(m0, m1))) continue;
    let bits = i32x4.bitmask(blockMask(table, pred, off, m0, true, from, to));
    if (bits != 0) found = collect(bits, off, found, out, k);
    bits = i32x4.bitmask(blockMask(table, pred, off + 16, m1, true, from, to));
    if (bits != 0) found = collect(bits, off + 16, found, out, k);
  }
  if (off < end) {
    const m = i32x4.eq(v128.load(first + off), value);
    const bits = i32x4.bitmask(blockMask(table, pred, off, m, true, from, to));
    if (bits != 0) found = collect(bits, off, found, out, k);
  }
  return found;
}

/** Number of nodes matching the predicate at `pred` (layout.ts P_* fields). */
export function countMatches(table: usize, pred: usize): i32 {
  return scan(table, pred, 0, 0);
}

/** Number of nodes matching the predicate at `pred`; the first `k` indices go to `out`. */
export function firstMatches(table: usize, pred: usize, out: usize, k: i32): i32 {
  return scan(table, pred, out, k);
}

/** Counts the predicates at `preds` (`len` of them, PREDICATE_INTS apart) into `out`. */
export function countBatch(table: usize, preds: usize, len: i32, stride: i32, out: usize): void {
  for (let j = 0; j < len; j++) {
    store<i32>(out + (<usize>j << 2), scan(table, preds + <usize>(j * stride), 0, 0));
  }
}
