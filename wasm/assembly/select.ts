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

// Counts the matches of the predicate at `pred`; writes the first `k` indices to `out`.
function scan(table: usize, pred: usize, out: usize, k: i32): i32 {
  const n = count(table);
  const from = max(field(pred, P_FROM), 0);
  const to = min(field(pred, P_TO), n);
  if (from >= to) return 0;
  const clauses = field(pred, P_CLAUSE_COUNT);
  const mask = field(pred, P_FLAGS_MASK);
  const masks = i32x4.splat(mask);
  const values = i32x4.splat(field(pred, P_FLAGS_VALUE));
  const flags = column(table, COL_FLAGS);
  // The first clause is hoisted: it rejects most blocks before the others are read.
  const firstCol = clauses > 0 ? column(table, field(pred, P_CLAUSES)) : 0;
  const firstVal = i32x4.splat(clauses > 0 ? field(pred, P_CLAUSES + 1) : 0);
  const fromV = i32x4.splat(from);
  const toV = i32x4.splat(to);
  const start = <usize>((from / LANES) * 16);
  const end = <usize>(((to + LANES - 1) / LANES) * 16);
  let found = 0;
  for (let off = start; off < end; off += 16) {
    let m = i32x4.splat(-1);
    if (clauses > 0) {
      m = i32x4.eq(v128.load(firstCol + off), firstVal);
      if (!v128.any_true(m)) continue;
      for (let c = 1; c < clauses; c++) {
        const col = column(table, field(pred, P_CLAUSES + 2 * c));
        m = v128.and(m, i32x4.eq(v128.load(col + off), i32x4.splat(field(pred, P_CLAUSES + 2 * c + 1))));
      }
    }
    if (mask != 0) m = v128.and(m, i32x4.eq(v128.and(v128.load(flags + off), masks), values));
    const base = <i32>(off >> 2);
    if (base < from || base + LANES > to) {
      const idx = i32x4.add(i32x4.splat(base), i32x4(0, 1, 2, 3));
      m = v128.and(m, v128.and(i32x4.ge_s(idx, fromV), i32x4.lt_s(idx, toV)));
    }
    let bits = i32x4.bitmask(m);
    if (bits == 0) continue;
    if (found >= k) {
      found += popcnt(bits);
      continue;
    }
    while (bits != 0) {
      if (found < k) store<i32>(out + (<usize>found << 2), base + ctz(bits));
      found++;
      bits &= bits - 1;
    }
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
