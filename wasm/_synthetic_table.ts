/**
 * A synthetic screen table for the benches: a tree of nested rectangles shaped like a long
 * Android list screen (1080 × 2400), with class names, texts and ids from realistic pools.
 *
 * @module
 */
import {
  COL_AREA,
  COL_CLASS,
  COL_CONTENT_DESCRIPTION,
  COL_CX,
  COL_CY,
  COL_DEPTH,
  COL_END,
  COL_FLAGS,
  COL_PAINT,
  COL_PARENT,
  COL_RESOURCE_ID,
  COL_TEST_ID,
  COL_TEXT,
  COL_X1,
  COL_X2,
  COL_Y1,
  COL_Y2,
  F_CLICKABLE,
  F_ENABLED,
  F_VISIBLE,
} from "./layout.ts";
import type { Prng } from "./prng.ts";
import { type FlatTable, TableWriter } from "./table.ts";

const CLASSES = [
  "android.widget.FrameLayout",
  "android.widget.LinearLayout",
  "android.view.ViewGroup",
  "android.widget.TextView",
  "android.widget.ImageView",
  "android.widget.Button",
  "androidx.recyclerview.widget.RecyclerView",
  "android.widget.EditText",
  "android.widget.CheckBox",
  "android.view.View",
];

/** Screen width of the synthetic table. */
export const WIDTH = 1080;
/** Screen height of the synthetic table. */
export const HEIGHT = 2400;

/**
 * Builds a table of exactly `n` nodes.
 *
 * @param rng the generator
 * @param n the number of nodes
 * @param scale multiplies the screen size (20 makes a 21,600 × 48,000 screen, beyond the reach of
 *   the narrow Int16 columns, so the hit test scans the Int32 ones)
 * @returns the table
 */
export function syntheticTable(rng: Prng, n: number, scale = 1): FlatTable {
  const w = new TableWriter(n);
  const c = (col: number) => w.column(col);
  const [parent, depth, end, x1, y1, x2, y2, area, flags, cx, cy] = [
    COL_PARENT,
    COL_DEPTH,
    COL_END,
    COL_X1,
    COL_Y1,
    COL_X2,
    COL_Y2,
    COL_AREA,
    COL_FLAGS,
    COL_CX,
    COL_CY,
  ].map(c) as [
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
  ];
  const cls = c(COL_CLASS), text = c(COL_TEXT), rid = c(COL_RESOURCE_ID);
  const tid = c(COL_TEST_ID), desc = c(COL_CONTENT_DESCRIPTION), paint = c(COL_PAINT);
  let next = 0;
  const build = (
    p: number,
    d: number,
    l: number,
    t: number,
    r: number,
    b: number,
    budget: number,
  ) => {
    const i = next++;
    r = Math.max(l, r);
    b = Math.max(t, b);
    parent[i] = p;
    depth[i] = d;
    paint[i] = i; // drawn in document order
    x1[i] = l;
    y1[i] = t;
    x2[i] = r;
    y2[i] = b;
    area[i] = (r - l) * (b - t);
    cx[i] = Math.round((l + r) / 2);
    cy[i] = Math.round((t + b) / 2);
    flags[i] = (rng.chance(0.93) ? F_VISIBLE : 0) | F_ENABLED | (rng.chance(0.3) ? F_CLICKABLE : 0);
    cls[i] = w.intern(rng.pick(CLASSES));
    if (rng.chance(0.4)) text[i] = w.intern(`Item ${rng.int(0, 3000)}`);
    if (rng.chance(0.5)) rid[i] = w.intern(`com.example:id/field_${rng.int(0, 400)}`);
    if (rng.chance(0.1)) tid[i] = w.intern(`test-${rng.int(0, 5000)}`);
    if (rng.chance(0.2)) desc[i] = w.intern(`Description ${rng.int(0, 800)}`);
    let left = budget - 1;
    const kids = left === 0 ? 0 : Math.min(left, left > 60 ? rng.int(2, 8) : rng.int(1, 4));
    const vertical = rng.chance(0.7);
    for (let k = 0; k < kids; k++) {
      const share = k === kids - 1 ? left : Math.max(1, Math.floor(left / (kids - k)));
      left -= share;
      if (rng.chance(0.1)) { // an overlay covering the whole parent
        build(i, d + 1, l, t, r, b, share);
        continue;
      }
      const span = vertical ? b - t : r - l;
      const from = Math.floor((span * k) / kids), to = Math.floor((span * (k + 1)) / kids);
      if (vertical) build(i, d + 1, l + 4, t + from, r - 4, t + to, share);
      else build(i, d + 1, l + from, t + 4, l + to, b - 4, share);
    }
    end[i] = next;
  };
  build(-1, 0, 0, 0, WIDTH * scale, HEIGHT * scale, n);
  return w.finish();
}
