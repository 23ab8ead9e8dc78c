// WASM hot path against the plain-TS reference, in one run on the same table:
// deno bench -A wasm/
import {
  COL_CLASS,
  COL_RESOURCE_ID,
  COL_TEXT,
  F_CLICKABLE,
  F_VISIBLE,
  PREDICATE_INTS,
} from "../../wasm/layout.ts";
import { encodePredicate, type HotPath, type Predicate } from "../../wasm/hot_path.ts";
import { reference } from "../../wasm/reference.ts";
import { wasmHotPath } from "../../wasm/mod.ts";
import { Prng } from "../../wasm/prng.ts";
import { HEIGHT, syntheticTable, WIDTH } from "../../wasm/_synthetic_table.ts";

const NODES = 10_000;
const POINTS = 100_000;
const COUNTS = 1_000;

const rng = new Prng(20261122);
const table = syntheticTable(rng, NODES);
const points = new Int32Array(POINTS * 2);
if (!table.narrow) throw new Error("the bench table should fit the narrow columns");
for (let k = 0; k < POINTS; k++) {
  points[2 * k] = rng.int(-10, WIDTH + 10);
  points[2 * k + 1] = rng.int(-10, HEIGHT + 10);
}

// Uniqueness checks as the selector pass makes them: a candidate built from a node's own values.
const preds = new Int32Array(COUNTS * PREDICATE_INTS);
const col = (c: number) => table.column(c);
for (let j = 0; j < COUNTS; j++) {
  const i = rng.int(0, NODES - 1);
  const clauses: [number, number][] = [];
  if (col(COL_RESOURCE_ID)[i] !== 0) clauses.push([COL_RESOURCE_ID, col(COL_RESOURCE_ID)[i]!]);
  if (col(COL_TEXT)[i] !== 0 || clauses.length === 0) clauses.push([COL_TEXT, col(COL_TEXT)[i]!]);
  if (rng.chance(0.5)) clauses.push([COL_CLASS, col(COL_CLASS)[i]!]);
  const p: Predicate = { clauses };
  if (rng.chance(0.3)) {
    Object.assign(p, { flagsMask: F_VISIBLE | F_CLICKABLE, flagsValue: F_VISIBLE });
  }
  encodePredicate(p, preds.subarray(j * PREDICATE_INTS, (j + 1) * PREDICATE_INTS));
}

// The same screen twenty times larger: a 48,000 px span, so the Int32 scan runs.
const wide = syntheticTable(new Prng(20261122), NODES, 20);
const widePoints = points.map((v) => v * 20);
if (wide.narrow) throw new Error("the wide bench table should not fit the narrow columns");

const engines: [string, HotPath][] = [["reference", reference], ["wasm", wasmHotPath()]];
const hits = new Int32Array(POINTS);
const hashes = new Uint32Array(NODES);
const counts = new Int32Array(COUNTS);
let sink = 0;

for (const [name, hot] of engines) {
  const baseline = name === "reference";
  Deno.bench({
    name: `${name}: hitTestBatch, ${POINTS} points`,
    group: "hit test (10,000 nodes)",
    baseline,
    n: 3,
    warmup: 1,
    fn() {
      hot.hitTestBatch(table, points, hits);
      sink ^= hits[POINTS - 1]!;
    },
  });
  Deno.bench({
    name: `${name}: hitTestBatch, ${POINTS} points, Int32 scan`,
    group: "hit test (10,000 nodes spanning 48,000 px: Int32 scan)",
    baseline,
    n: 3,
    warmup: 1,
    fn() {
      hot.hitTestBatch(wide, widePoints, hits);
      sink ^= hits[POINTS - 1]!;
    },
  });
  Deno.bench({
    name: `${name}: refHashes, ${NODES} nodes`,
    group: "ref hashes (10,000 nodes)",
    baseline,
    fn() {
      hot.refHashes(table, hashes);
      sink ^= hashes[NODES - 1]!;
    },
  });
  Deno.bench({
    name: `${name}: countMatches ×${COUNTS}`,
    group: "uniqueness counts (10,000 nodes)",
    baseline,
    fn() {
      for (let j = 0; j < COUNTS; j++) {
        sink ^= hot.countMatches(
          table,
          preds.subarray(j * PREDICATE_INTS, (j + 1) * PREDICATE_INTS),
        );
      }
    },
  });
  Deno.bench({
    name: `${name}: countBatch, ${COUNTS} predicates`,
    group: "uniqueness counts (10,000 nodes)",
    fn() {
      hot.countBatch(table, preds, counts);
      sink ^= counts[COUNTS - 1]!;
    },
  });
}

globalThis.addEventListener("unload", () => {
  if (sink === 0.5) console.log(sink); // keeps results observable
});
