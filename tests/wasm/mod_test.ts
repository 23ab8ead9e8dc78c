import { assert, assertEquals, assertThrows } from "../_fixtures/assert.ts";
import {
  COL_AREA,
  COL_DEPTH,
  COL_END,
  COL_FLAGS,
  COL_PAINT,
  COL_PARENT,
  COL_RESOURCE_ID,
  COL_TEXT,
  COL_X1,
  COL_X2,
  COL_Y1,
  COL_Y2,
  F_CLICKABLE,
  F_VISIBLE,
  NARROW_LIMIT,
  PREDICATE_INTS,
} from "../../wasm/layout.ts";
import { encodePredicate } from "../../wasm/hot_path.ts";
import { reference } from "../../wasm/reference.ts";
import { wasmAvailable, wasmHotPath } from "../../wasm/mod.ts";
import { Prng } from "../../wasm/prng.ts";
import { syntheticTable } from "../../wasm/_synthetic_table.ts";
import { type FlatTable, TableWriter } from "../../wasm/table.ts";

function points(rng: Prng, count: number): Int32Array {
  const p = new Int32Array(count * 2);
  for (let k = 0; k < count; k++) {
    p[2 * k] = rng.int(-20, 1100);
    p[2 * k + 1] = rng.int(-20, 2420);
  }
  return p;
}

function answers(t: FlatTable, pts: Int32Array, hot = wasmHotPath()) {
  const hits = new Int32Array(pts.length / 2);
  hot.hitTestBatch(t, pts, hits);
  const hashes = new Uint32Array(t.n);
  hot.refHashes(t, hashes);
  const pred = encodePredicate({
    clauses: [[COL_RESOURCE_ID, t.column(COL_RESOURCE_ID)[t.n - 1]!]],
  });
  const first = new Int32Array(3);
  const count = hot.firstMatches(t, pred, first);
  const tops: number[] = [];
  for (let k = 0; k < pts.length / 2; k++) {
    for (const mask of [0, F_CLICKABLE]) {
      tops.push(hot.hitTestTop(t, pts[2 * k]!, pts[2 * k + 1]!, mask));
    }
  }
  return {
    hits: Array.from(hits),
    tops,
    hashes: Array.from(hashes),
    count,
    first: Array.from(first),
  };
}

Deno.test("wasmHotPath() keeps answers right when tables alternate and memory grows", () => {
  assert(wasmAvailable());
  const rng = new Prng(42);
  const small = syntheticTable(rng, 300);
  const large = syntheticTable(rng, 120_000); // ~9 MB of columns: memory must grow
  const pts = points(rng, 101); // not a multiple of four: the batch's tail path runs too
  const want = [small, large].map((t) => answers(t, pts, reference));
  for (let round = 0; round < 2; round++) {
    assertEquals(answers(small, pts), want[0], `small, round ${round}`);
    assertEquals(answers(large, pts), want[1], `large, round ${round}`);
  }
  // A batch larger than the free memory after the resident table grows it again.
  const many = points(rng, 300_000);
  const w = new Int32Array(300_000), r = new Int32Array(300_000);
  wasmHotPath().hitTestBatch(small, many, w);
  reference.hitTestBatch(small, many, r);
  assertEquals(w, r);
});

Deno.test("countBatch() equals countMatches() per predicate in both engines", () => {
  const rng = new Prng(7);
  const t = syntheticTable(rng, 5_000);
  const preds = new Int32Array(50 * PREDICATE_INTS);
  for (let j = 0; j < 50; j++) {
    const i = rng.int(0, t.n - 1);
    encodePredicate(
      {
        clauses: [[COL_TEXT, t.column(COL_TEXT)[i]!]],
        from: rng.int(0, 100),
        to: rng.int(2000, 6000),
      },
      preds.subarray(j * PREDICATE_INTS, (j + 1) * PREDICATE_INTS),
    );
  }
  for (const hot of [reference, wasmHotPath()]) {
    const out = new Int32Array(50);
    hot.countBatch(t, preds, out);
    for (let j = 0; j < 50; j++) {
      const one = hot.countMatches(t, preds.subarray(j * PREDICATE_INTS, (j + 1) * PREDICATE_INTS));
      assertEquals(out[j], one, `${hot.kind} predicate ${j}`);
    }
  }
});

Deno.test("encodePredicate() rejects a column without string ids and too many clauses", () => {
  assertThrows(() => encodePredicate({ clauses: [[0, 1]] }), RangeError, "holds no string ids");
  const nine = Array.from({ length: 9 }, () => [COL_TEXT, 1] as const);
  assertThrows(() => encodePredicate({ clauses: nine }), RangeError, "9 clauses");
});

Deno.test("TableWriter interns each string once and lays out UTF-8 bytes", () => {
  const w = new TableWriter(2);
  assertEquals(w.intern("é"), 1);
  assertEquals(w.intern(undefined), 0);
  assertEquals(w.intern("é"), 1);
  const t = w.finish();
  assertEquals(Array.from(t.arena), [0xc3, 0xa9]);
  assertEquals(Array.from(t.strOffsets), [0, 0, 2]);
  assertEquals(t.stringId("é"), 1);
  assertEquals(t.stringId("missing"), -1);
  assertEquals(t.bytes.length % 16, 0);
  assertThrows(() => new TableWriter(-1), RangeError, "Cannot build a table of -1 nodes");
});

function boxes(list: [number, number, number, number][]): FlatTable {
  const w = new TableWriter(list.length);
  const [x1, y1, x2, y2] = [COL_X1, COL_Y1, COL_X2, COL_Y2].map((c) => w.column(c));
  const area = w.column(COL_AREA), flags = w.column(COL_FLAGS), depth = w.column(COL_DEPTH);
  const end = w.column(COL_END), parent = w.column(COL_PARENT), paint = w.column(COL_PAINT);
  list.forEach(([l, t, r, b], i) => {
    paint[i] = list.length - 1 - i; // drawn in reverse: the topmost is not the deepest
    x1![i] = l;
    y1![i] = t;
    x2![i] = r;
    y2![i] = b;
    area[i] = Math.min((r - l) * (b - t), 0x7fffffff);
    flags[i] = F_VISIBLE;
    depth[i] = i === 0 ? 0 : 1;
    parent[i] = i === 0 ? -1 : 0;
    end[i] = i === 0 ? list.length : i + 1;
  });
  return w.finish();
}

Deno.test("hitTest() and hitTestTop() are exact at the narrow Int16 limits and beyond them", () => {
  const L = NARROW_LIMIT;
  const edge = [
    -L - 3,
    -L - 2,
    -L - 1,
    -L,
    -1,
    0,
    1,
    L - 1,
    L,
    L + 1,
    L + 2,
    40000,
    -40000,
    2 ** 29,
  ];
  const narrowBoxes: [number, number, number, number][] = [
    [-L - 1, -L - 1, L, L],
    [-L - 1, 0, 0, L],
    [L - 1, -L - 1, L, -L],
    [5, 5, 5, 9],
  ];
  const far = 1_000_000; // a span of 32,767 px far from 0 still fits, shifted by an origin
  const cases: [string, FlatTable, boolean, number][] = [
    ["narrow", boxes(narrowBoxes), true, 0],
    [
      "narrow, shifted",
      boxes(narrowBoxes.map((b) => b.map((v) => v + far) as typeof b)),
      true,
      far,
    ],
    [
      "wide",
      boxes([[-L - 1, -L - 1, L + 1, L], [-L - 2, 0, 0, L], [L - 1, -L - 1, L, -L]]),
      false,
      0,
    ],
  ];
  for (const [name, t, narrow, shift] of cases) {
    assertEquals(t.narrow, narrow, name);
    const pts: number[] = [];
    for (const x of edge) for (const y of edge) pts.push(x + shift, y + shift);
    const points = Int32Array.from(pts);
    const w = new Int32Array(pts.length / 2), r = new Int32Array(pts.length / 2);
    wasmHotPath().hitTestBatch(t, points, w);
    reference.hitTestBatch(t, points, r);
    assertEquals(w, r, name);
    let topHits = 0;
    for (let k = 0; k < r.length; k++) {
      const [x, y] = [pts[2 * k]!, pts[2 * k + 1]!];
      assertEquals(wasmHotPath().hitTest(t, x, y), r[k], `${name} point ${k}`);
      const top = reference.hitTestTop(t, x, y, 0);
      assertEquals(wasmHotPath().hitTestTop(t, x, y, 0), top, `${name} top point ${k}`);
      assertEquals(top < 0, r[k]! < 0, `${name} top point ${k} hits as hitTest does`);
      if (top >= 0 && top !== r[k]) topHits++;
    }
    assert(r.some((i) => i > 0) && r.some((i) => i < 0), name);
    assert(topHits > 0, `${name}: the topmost node is always the deepest`);
  }
});
