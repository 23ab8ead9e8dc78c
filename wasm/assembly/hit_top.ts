// Topmost hit testing: the visible node drawn on top at a point (the highest paint rank, see
// COL_PAINT in ../layout.ts), optionally among the nodes that have given flags (a tap's
// clickable target). The scans are hit_test.ts's (narrow Int16 bounds when the table has them,
// else the Int32 columns); only the fold differs. Paint ranks are distinct, so there are no ties.
import {
  COL_FLAGS, COL_PAINT, COL_X1, COL_X2, COL_Y1, COL_Y2, F_VISIBLE, H_NARROW, H_NARROW_OX, H_NARROW_OY,
  LANES, NARROW_H, NARROW_LANES, NARROW_W, NARROW_X1, NARROW_Y1,
} from "../layout";
import { clamp16, column, count, header, narrow } from "./table";

// Folds the lanes set in `bits` (nodes base, base + 1, …) into the topmost index so far: visible,
// every bit of `mask` set in its flags, and a higher paint rank.
// @ts-ignore: decorator
@inline function considerTop(table: usize, base: i32, bits: i32, mask: i32, best: i32): i32 {
  const fp = column(table, COL_FLAGS);
  const pp = column(table, COL_PAINT);
  const need = mask | F_VISIBLE;
  let bestRank = best < 0 ? -1 : load<i32>(pp + (<usize>best << 2));
  while (bits != 0) {
    const i = base + ctz(bits);
    bits &= bits - 1;
    const at = <usize>i << 2;
    if ((load<i32>(fp + at) & need) != need) continue;
    const r = load<i32>(pp + at);
    if (r > bestRank) {
      best = i;
      bestRank = r;
    }
  }
  return best;
}

function topWide(table: usize, x: i32, y: i32, mask: i32): i32 {
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
    const m = v128.and(i32x4.lt_u(i32x4.sub(xs, x1), w), i32x4.lt_u(i32x4.sub(ys, y1), h));
    if (v128.any_true(m)) best = considerTop(table, <i32>(off >> 2), i32x4.bitmask(m), mask, best);
  }
  return best;
}

function topNarrow(table: usize, x: i32, y: i32, mask: i32): i32 {
  const x1p = narrow(table, NARROW_X1);
  const y1p = narrow(table, NARROW_Y1);
  const wp = narrow(table, NARROW_W);
  const hp = narrow(table, NARROW_H);
  const xs = i16x8.splat(<i16>clamp16(x, header(table, H_NARROW_OX)));
  const ys = i16x8.splat(<i16>clamp16(y, header(table, H_NARROW_OY)));
  const end = <usize>(((count(table) + NARROW_LANES - 1) / NARROW_LANES) * 16);
  let best = -1;
  for (let off: usize = 0; off < end; off += 16) {
    const m = v128.and(
      i16x8.lt_u(i16x8.sub(xs, v128.load(x1p + off)), v128.load(wp + off)),
      i16x8.lt_u(i16x8.sub(ys, v128.load(y1p + off)), v128.load(hp + off)),
    );
    if (v128.any_true(m)) best = considerTop(table, <i32>(off >> 1), i16x8.bitmask(m), mask, best);
  }
  return best;
}

/**
 * Index of the visible node drawn on top at (x, y) among those whose flags hold every bit of
 * `mask` (0: any node), or -1.
 */
export function hitTestTop(table: usize, x: i32, y: i32, mask: i32): i32 {
  return header(table, H_NARROW) != 0 ? topNarrow(table, x, y, mask) : topWide(table, x, y, mask);
}
