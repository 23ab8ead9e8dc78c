import { assert, assertEquals, assertThrows } from "../tests/assert.ts";
import { COL_RESOURCE_ID, COL_TEXT, PREDICATE_INTS } from "./layout.ts";
import { encodePredicate } from "./hot_path.ts";
import { reference } from "./reference.ts";
import { wasmAvailable, wasmHotPath } from "./mod.ts";
import { Prng } from "./prng.ts";
import { syntheticTable } from "./_synthetic_table.ts";
import { type FlatTable, TableWriter } from "./table.ts";

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
  return { hits: Array.from(hits), hashes: Array.from(hashes), count, first: Array.from(first) };
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
