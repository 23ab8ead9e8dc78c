// Hit testing: the deepest, then smallest-area, visible node containing a point.
// Padding lanes of the last block hold zero bounds, which contain no point.
import { COL_AREA, COL_DEPTH, COL_FLAGS, COL_X1, COL_X2, COL_Y1, COL_Y2, F_VISIBLE, LANES } from "../layout";
import { column, count } from "./table";

// Bytes of a column the SIMD loops read: whole blocks of LANES nodes.
// @ts-ignore: decorator
@inline function blockBytes(n: i32): usize {
  return <usize>(((n + LANES - 1) / LANES) * 16);
}

// Folds the lanes set in `bits` of the block at byte offset `off` into the best index so far.
// @ts-ignore: decorator
@inline function consider(table: usize, off: usize, bits: i32, best: i32): i32 {
  const fp = column(table, COL_FLAGS);
  const dp = column(table, COL_DEPTH);
  const ap = column(table, COL_AREA);
  let bestDepth = best < 0 ? -1 : load<i32>(dp + (<usize>best << 2));
  let bestArea = best < 0 ? 0 : load<i32>(ap + (<usize>best << 2));
  while (bits != 0) {
    const at = off + (<usize>ctz(bits) << 2);
    bits &= bits - 1;
    if ((load<i32>(fp + at) & F_VISIBLE) == 0) continue;
    const d = load<i32>(dp + at);
    const a = load<i32>(ap + at);
    if (d > bestDepth || (d == bestDepth && a < bestArea)) {
      best = <i32>(at >> 2);
      bestDepth = d;
      bestArea = a;
    }
  }
  return best;
}

// Lanes whose box (left x1, top y1, width w, height h) contains the splatted point (xs, ys):
// x1 <= x < x1 + w is (x - x1) <u w, exact while coordinates stay within ±2^29 (layout.ts).
// @ts-ignore: decorator
@inline function inside(x1: v128, y1: v128, w: v128, h: v128, xs: v128, ys: v128): v128 {
  return v128.and(i32x4.lt_u(i32x4.sub(xs, x1), w), i32x4.lt_u(i32x4.sub(ys, y1), h));
}

/** Index of the deepest, then smallest-area, visible node containing (x, y), or -1. */
export function hitTest(table: usize, x: i32, y: i32): i32 {
  const x1p = column(table, COL_X1);
  const y1p = column(table, COL_Y1);
  const x2p = column(table, COL_X2);
  const y2p = column(table, COL_Y2);
  const xs = i32x4.splat(x);
  const ys = i32x4.splat(y);
  const end = blockBytes(count(table));
  let best = -1;
  for (let off: usize = 0; off < end; off += 16) {
    const x1 = v128.load(x1p + off), y1 = v128.load(y1p + off);
    const w = i32x4.sub(v128.load(x2p + off), x1), h = i32x4.sub(v128.load(y2p + off), y1);
    const m = inside(x1, y1, w, h, xs, ys);
    if (v128.any_true(m)) best = consider(table, off, i32x4.bitmask(m), best);
  }
  return best;
}

/**
 * Hit tests `len` points (x, y Int32 pairs at `points`) and writes one index each to `out`.
 * Four points share each pass over the table, so each block of bounds is loaded once for four.
 */
export function hitTestBatch(table: usize, points: usize, len: i32, out: usize): void {
  const x1p = column(table, COL_X1);
  const y1p = column(table, COL_Y1);
  const x2p = column(table, COL_X2);
  const y2p = column(table, COL_Y2);
  const end = blockBytes(count(table));
  let k = 0;
  for (; k + 4 <= len; k += 4) {
    const p = points + (<usize>k << 3);
    const xa = i32x4.splat(load<i32>(p, 0)), ya = i32x4.splat(load<i32>(p, 4));
    const xb = i32x4.splat(load<i32>(p, 8)), yb = i32x4.splat(load<i32>(p, 12));
    const xc = i32x4.splat(load<i32>(p, 16)), yc = i32x4.splat(load<i32>(p, 20));
    const xd = i32x4.splat(load<i32>(p, 24)), yd = i32x4.splat(load<i32>(p, 28));
    let ba = -1, bb = -1, bc = -1, bd = -1;
    for (let off: usize = 0; off < end; off += 16) {
      const x1 = v128.load(x1p + off), y1 = v128.load(y1p + off);
      const w = i32x4.sub(v128.load(x2p + off), x1), h = i32x4.sub(v128.load(y2p + off), y1);
      const ma = inside(x1, y1, w, h, xa, ya);
      const mb = inside(x1, y1, w, h, xb, yb);
      const mc = inside(x1, y1, w, h, xc, yc);
      const md = inside(x1, y1, w, h, xd, yd);
      if (!v128.any_true(v128.or(v128.or(ma, mb), v128.or(mc, md)))) continue;
      if (v128.any_true(ma)) ba = consider(table, off, i32x4.bitmask(ma), ba);
      if (v128.any_true(mb)) bb = consider(table, off, i32x4.bitmask(mb), bb);
      if (v128.any_true(mc)) bc = consider(table, off, i32x4.bitmask(mc), bc);
      if (v128.any_true(md)) bd = consider(table, off, i32x4.bitmask(md), bd);
    }
    const o = out + (<usize>k << 2);
    store<i32>(o, ba, 0);
    store<i32>(o, bb, 4);
    store<i32>(o, bc, 8);
    store<i32>(o, bd, 12);
  }
  for (; k < len; k++) {
    const p = points + (<usize>k << 3);
    store<i32>(out + (<usize>k << 2), hitTest(table, load<i32>(p), load<i32>(p, 4)));
  }
}
