// Hit testing: the deepest, then smallest-area, visible node containing a point.
// Two scans, the same answer: over the narrow Int16 bounds (eight nodes per v128) when the table
// has them, else over the Int32 columns (four per v128). Padding lanes have zero width or zero
// bounds, which contain no point.
import {
  COL_AREA, COL_DEPTH, COL_FLAGS, COL_X1, COL_X2, COL_Y1, COL_Y2, F_VISIBLE, H_NARROW, H_NARROW_OX,
  H_NARROW_OY, LANES, NARROW_H, NARROW_LANES, NARROW_W, NARROW_X1, NARROW_Y1,
} from "../layout";
import { clamp16, column, count, header, narrow } from "./table";

// Folds the lanes set in `bits` (nodes base, base + 1, …) into the best index so far.
// @ts-ignore: decorator
@inline function consider(table: usize, base: i32, bits: i32, best: i32): i32 {
  const fp = column(table, COL_FLAGS);
  const dp = column(table, COL_DEPTH);
  const ap = column(table, COL_AREA);
  let bestDepth = best < 0 ? -1 : load<i32>(dp + (<usize>best << 2));
  let bestArea = best < 0 ? 0 : load<i32>(ap + (<usize>best << 2));
  while (bits != 0) {
    const i = base + ctz(bits);
    bits &= bits - 1;
    const at = <usize>i << 2;
    if ((load<i32>(fp + at) & F_VISIBLE) == 0) continue;
    const d = load<i32>(dp + at);
    const a = load<i32>(ap + at);
    if (d > bestDepth || (d == bestDepth && a < bestArea)) {
      best = i;
      bestDepth = d;
      bestArea = a;
    }
  }
  return best;
}

// Lanes whose box (left x1, top y1, width w, height h) contains the splatted point (xs, ys):
// x1 <= x < x1 + w is (x - x1) <u w, exact while coordinates stay within ±2^29 (layout.ts).
// @ts-ignore: decorator
@inline function inside32(x1: v128, y1: v128, w: v128, h: v128, xs: v128, ys: v128): v128 {
  return v128.and(i32x4.lt_u(i32x4.sub(xs, x1), w), i32x4.lt_u(i32x4.sub(ys, y1), h));
}

// The same over eight Int16 lanes (clamp16 keeps the subtraction in range).
// @ts-ignore: decorator
@inline function inside16(x1: v128, y1: v128, w: v128, h: v128, xs: v128, ys: v128): v128 {
  return v128.and(i16x8.lt_u(i16x8.sub(xs, x1), w), i16x8.lt_u(i16x8.sub(ys, y1), h));
}

function hitWide(table: usize, x: i32, y: i32): i32 {
  const x1p = column(table, COL_X1);
  const y1p = column(table, COL_Y1);
  const x2p = column(table, COL_X2);
  const y2p = column(table, COL_Y2);
  const xs = i32x4.splat(x);
  const ys = i32x4.splat(y);
  const end = <usize>(((count(table) + LANES - 1) / LANES) * 16);
  let best = -1;
  for (let off: usize = 0; off < end; off += 16) {
    const x1 = v128.load(x1p + off), y1 = v128.load(y1p + off);
    const w = i32x4.sub(v128.load(x2p + off), x1), h = i32x4.sub(v128.load(y2p + off), y1);
    const m = inside32(x1, y1, w, h, xs, ys);
    if (v128.any_true(m)) best = consider(table, <i32>(off >> 2), i32x4.bitmask(m), best);
  }
  return best;
}

function hitNarrow(table: usize, x: i32, y: i32): i32 {
  const x1p = narrow(table, NARROW_X1);
  const y1p = narrow(table, NARROW_Y1);
  const wp = narrow(table, NARROW_W);
  const hp = narrow(table, NARROW_H);
  const xs = i16x8.splat(<i16>clamp16(x, header(table, H_NARROW_OX)));
  const ys = i16x8.splat(<i16>clamp16(y, header(table, H_NARROW_OY)));
  const end = <usize>(((count(table) + NARROW_LANES - 1) / NARROW_LANES) * 16);
  let best = -1;
  for (let off: usize = 0; off < end; off += 16) {
    const m = inside16(v128.load(x1p + off), v128.load(y1p + off), v128.load(wp + off), v128.load(hp + off), xs, ys);
    if (v128.any_true(m)) best = consider(table, <i32>(off >> 1), i16x8.bitmask(m), best);
  }
  return best;
}

/** Index of the deepest, then smallest-area, visible node containing (x, y), or -1. */
export function hitTest(table: usize, x: i32, y: i32): i32 {
  return header(table, H_NARROW) != 0 ? hitNarrow(table, x, y) : hitWide(table, x, y);
}

// Four points per pass over the narrow columns: each block of bounds is loaded once for four.
function batchNarrow(table: usize, points: usize, len: i32, out: usize): i32 {
  const x1p = narrow(table, NARROW_X1);
  const y1p = narrow(table, NARROW_Y1);
  const wp = narrow(table, NARROW_W);
  const hp = narrow(table, NARROW_H);
  const end = <usize>(((count(table) + NARROW_LANES - 1) / NARROW_LANES) * 16);
  const ox = header(table, H_NARROW_OX);
  const oy = header(table, H_NARROW_OY);
  let k = 0;
  for (; k + 4 <= len; k += 4) {
    const p = points + (<usize>k << 3);
    const xa = i16x8.splat(<i16>clamp16(load<i32>(p, 0), ox)), ya = i16x8.splat(<i16>clamp16(load<i32>(p, 4), oy));
    const xb = i16x8.splat(<i16>clamp16(load<i32>(p, 8), ox)), yb = i16x8.splat(<i16>clamp16(load<i32>(p, 12), oy));
    const xc = i16x8.splat(<i16>clamp16(load<i32>(p, 16), ox)), yc = i16x8.splat(<i16>clamp16(load<i32>(p, 20), oy));
    const xd = i16x8.splat(<i16>clamp16(load<i32>(p, 24), ox)), yd = i16x8.splat(<i16>clamp16(load<i32>(p, 28), oy));
    let ba = -1, bb = -1, bc = -1, bd = -1;
    for (let off: usize = 0; off < end; off += 16) {
      const x1 = v128.load(x1p + off), y1 = v128.load(y1p + off);
      const w = v128.load(wp + off), h = v128.load(hp + off);
      const ma = inside16(x1, y1, w, h, xa, ya);
      const mb = inside16(x1, y1, w, h, xb, yb);
      const mc = inside16(x1, y1, w, h, xc, yc);
      const md = inside16(x1, y1, w, h, xd, yd);
      if (!v128.any_true(v128.or(v128.or(ma, mb), v128.or(mc, md)))) continue;
      const base = <i32>(off >> 1);
      if (v128.any_true(ma)) ba = consider(table, base, i16x8.bitmask(ma), ba);
      if (v128.any_true(mb)) bb = consider(table, base, i16x8.bitmask(mb), bb);
      if (v128.any_true(mc)) bc = consider(table, base, i16x8.bitmask(mc), bc);
      if (v128.any_true(md)) bd = consider(table, base, i16x8.bitmask(md), bd);
    }
    const o = out + (<usize>k << 2);
    store<i32>(o, ba, 0);
    store<i32>(o, bb, 4);
    store<i32>(o, bc, 8);
    store<i32>(o, bd, 12);
  }
  return k;
}

// Four points per pass over the Int32 columns.
function batchWide(table: usize, points: usize, len: i32, out: usize): i32 {
  const x1p = column(table, COL_X1);
  const y1p = column(table, COL_Y1);
  const x2p = column(table, COL_X2);
  const y2p = column(table, COL_Y2);
  const end = <usize>(((count(table) + LANES - 1) / LANES) * 16);
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
      const ma = inside32(x1, y1, w, h, xa, ya);
      const mb = inside32(x1, y1, w, h, xb, yb);
      const mc = inside32(x1, y1, w, h, xc, yc);
      const md = inside32(x1, y1, w, h, xd, yd);
      if (!v128.any_true(v128.or(v128.or(ma, mb), v128.or(mc, md)))) continue;
      const base = <i32>(off >> 2);
      if (v128.any_true(ma)) ba = consider(table, base, i32x4.bitmask(ma), ba);
      if (v128.any_true(mb)) bb = consider(table, base, i32x4.bitmask(mb), bb);
      if (v128.any_true(mc)) bc = consider(table, base, i32x4.bitmask(mc), bc);
      if (v128.any_true(md)) bd = consider(table, base, i32x4.bitmask(md), bd);
    }
    const o = out + (<usize>k << 2);
    store<i32>(o, ba, 0);
    store<i32>(o, bb, 4);
    store<i32>(o, bc, 8);
    store<i32>(o, bd, 12);
  }
  return k;
}

/** Hit tests `len` points (x, y Int32 pairs at `points`) and writes one index each to `out`. */
export function hitTestBatch(table: usize, points: usize, len: i32, out: usize): void {
  let k = header(table, H_NARROW) != 0
    ? batchNarrow(table, points, len, out)
    : batchWide(table, points, len, out);
  for (; k < len; k++) {
    const p = points + (<usize>k << 3);
    store<i32>(out + (<usize>k << 2), hitTest(table, load<i32>(p), load<i32>(p, 4)));
  }
}
