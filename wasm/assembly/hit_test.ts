// Hit testing: the deepest, then smallest-area, visible node containing a point.
import { COL_AREA, COL_DEPTH, COL_FLAGS, COL_X1, COL_X2, COL_Y1, COL_Y2, F_VISIBLE, LANES } from "../layout";
import { column, count } from "./table";

// @ts-ignore: decorator
@inline function hitOne(table: usize, n: i32, x: i32, y: i32): i32 {
  const x1p = column(table, COL_X1);
  const y1p = column(table, COL_Y1);
  const x2p = column(table, COL_X2);
  const y2p = column(table, COL_Y2);
  const fp = column(table, COL_FLAGS);
  const dp = column(table, COL_DEPTH);
  const ap = column(table, COL_AREA);
  const xs = i32x4.splat(x);
  const ys = i32x4.splat(y);
  const end = <usize>(((n + LANES - 1) / LANES) * 16);
  let best = -1;
  let bestDepth = -1;
  let bestArea = 0;
  for (let off: usize = 0; off < end; off += 16) {
    // Padding lanes hold zero bounds, which contain no point.
    const inX = v128.and(i32x4.le_s(v128.load(x1p + off), xs), i32x4.lt_s(xs, v128.load(x2p + off)));
    const inY = v128.and(i32x4.le_s(v128.load(y1p + off), ys), i32x4.lt_s(ys, v128.load(y2p + off)));
    const m = v128.and(inX, inY);
    if (!v128.any_true(m)) continue;
    let bits = i32x4.bitmask(m);
    while (bits != 0) {
      const lane = <usize>ctz(bits);
      bits &= bits - 1;
      const at = off + (lane << 2);
      if ((load<i32>(fp + at) & F_VISIBLE) == 0) continue;
      const d = load<i32>(dp + at);
      const a = load<i32>(ap + at);
      if (d > bestDepth || (d == bestDepth && a < bestArea)) {
        best = <i32>(at >> 2);
        bestDepth = d;
        bestArea = a;
      }
    }
  }
  return best;
}

/** Index of the deepest, then smallest-area, visible node containing (x, y), or -1. */
export function hitTest(table: usize, x: i32, y: i32): i32 {
  return hitOne(table, count(table), x, y);
}

/** Hit tests `len` points (x, y Int32 pairs at `points`) and writes one index each to `out`. */
export function hitTestBatch(table: usize, points: usize, len: i32, out: usize): void {
  const n = count(table);
  for (let k = 0; k < len; k++) {
    const p = points + (<usize>k << 3);
    store<i32>(out + (<usize>k << 2), hitOne(table, n, load<i32>(p), load<i32>(p, 4)));
  }
}
