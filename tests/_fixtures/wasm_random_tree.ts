/**
 * Random screens for the WASM property tests and benches, and the check that holds the WASM
 * hot path equal to the TS reference on one screen.
 *
 * @module
 */
import { makeNode, type Point, type UiNode } from "../../engine/screens/ui_node.ts";
import {
  type NodePredicate,
  PREDICATE_FLAGS,
  PREDICATE_STRINGS,
  ScreenTable,
} from "../../engine/screens/screen_table.ts";
import type { Prng } from "../../wasm/prng.ts";
import { assertEquals } from "./assert.ts";

const CLASSES = [
  "Button",
  "TextView",
  "android.widget.FrameLayout",
  "View",
  "Ünï",
  "日本",
  "android.widget.EditText", // text fields hash another label (engine/screens/refs.ts nodeLabel)
  "textbox",
];
const WORDS = ["OK", "Cancel", "Sign in", "ok", "", "😀 emoji", "naïve", "a\u0000b"];
const COORDS = [-20, -5, -0.5, 0, 0.5, 10, 10.5, 20, 33, 50, 64.5, 90, 100, 120];

function word(rng: Prng): string | undefined {
  return rng.chance(0.45) ? undefined : rng.pick(WORDS);
}

function bounds(rng: Prng, scale: number, shift: number) {
  const x = rng.chance(0.7) ? rng.pick(COORDS) : rng.next() * 140 - 20;
  const y = rng.chance(0.7) ? rng.pick(COORDS) : rng.next() * 140 - 20;
  const side = () =>
    rng.chance(0.1) ? 0 : rng.chance(0.6) ? rng.pick([10, 20, 40, 80, 100]) : rng.next() * 90;
  return { x: x * scale + shift, y: y * scale + shift, w: side() * scale, h: side() * scale };
}

/**
 * A random tree: overlapping siblings from a small coordinate grid (equal areas and shared
 * edges are common), zero-area and invisible nodes, strings from a small pool.
 *
 * @param rng the generator
 * @param size about how many nodes
 * @param scale multiplies every coordinate (default 1: a 140-pixel screen)
 * @param shift is added to every coordinate after scaling
 * @param orders give nodes Android `drawing-order` attributes (small, often equal, some missing)
 * @returns the root
 */
export function randomTree(
  rng: Prng,
  size: number,
  scale = 1,
  shift = 0,
  orders = false,
): UiNode {
  const nodes: UiNode[] = [];
  const make = (): UiNode => {
    const n = makeNode({
      className: rng.pick(CLASSES),
      bounds: bounds(rng, scale, shift),
      visible: rng.chance(0.85),
      enabled: rng.chance(0.8),
      clickable: rng.chance(0.4),
      checked: rng.chance(0.2),
      focused: rng.chance(0.1),
      ...Object.fromEntries(Object.keys(PREDICATE_STRINGS).slice(1).map((k) => [k, word(rng)])),
    });
    nodes.push(n);
    return n;
  };
  const root = make();
  while (nodes.length < size) rng.pick(nodes).children.push(make());
  if (orders) {
    for (const n of nodes) {
      if (rng.chance(0.9)) n.attrs = { "drawing-order": String(rng.int(0, 4)) };
    }
  }
  return root;
}

/**
 * Random points for a table: anywhere, and on or next to the edges of random nodes.
 *
 * @param rng the generator
 * @param t the table
 * @param count how many
 * @returns the points
 */
export function randomPoints(rng: Prng, t: ScreenTable, count: number): Point[] {
  const points: Point[] = [];
  for (let k = 0; k < count; k++) {
    if (rng.chance(0.3)) {
      points.push({ x: rng.next() * 160 - 30, y: rng.next() * 160 - 30 });
      continue;
    }
    const b = t.node(rng.int(0, t.size - 1)).bounds;
    const edge = (lo: number, len: number) =>
      rng.pick([
        lo,
        lo + len,
        lo + len - 1,
        lo - 1,
        lo + len / 2,
        Math.round(lo),
        Math.round(lo + len),
      ]);
    points.push({ x: edge(b.x, b.w), y: edge(b.y, b.h) });
  }
  return points;
}

/**
 * A random predicate, often built from a random node's own values so that it matches.
 *
 * @param rng the generator
 * @param t the table
 * @returns the predicate
 */
export function randomPredicate(rng: Prng, t: ScreenTable): NodePredicate {
  const source = t.node(rng.int(0, t.size - 1));
  const p: Record<string, unknown> = {};
  for (const key of Object.keys(PREDICATE_STRINGS) as (keyof typeof PREDICATE_STRINGS)[]) {
    if (!rng.chance(0.25)) continue;
    p[key] = rng.chance(0.8) ? source[key] ?? "" : rng.pick([...WORDS, "missing"]);
  }
  if (rng.chance(0.4)) {
    const flags: Record<string, boolean> = {};
    for (const key of Object.keys(PREDICATE_FLAGS)) {
      if (rng.chance(0.3)) flags[key] = rng.chance(0.5);
    }
    p.flags = flags;
  }
  if (rng.chance(0.3)) p.descendantsOf = rng.int(0, t.size - 1);
  return p as NodePredicate;
}

/**
 * Asserts that the WASM and the reference engines answer every query alike on one tree.
 *
 * @param rng the generator (points and predicates)
 * @param root the tree
 * @param label names the case in a failure
 */
export function assertEnginesAgree(rng: Prng, root: UiNode, label: string): void {
  const w = ScreenTable.from(root, { engine: "wasm" });
  const r = ScreenTable.from(root, { engine: "reference" });
  assertEquals(w.engine.kind, "wasm");
  assertEquals(r.engine.kind, "reference");
  const points = randomPoints(rng, r, 40);
  const batch = Array.from(w.hitTestBatch(points));
  assertEquals(batch, Array.from(r.hitTestBatch(points)), `${label}: hitTestBatch`);
  for (const [k, p] of points.entries()) {
    assertEquals(w.hitTest(p), batch[k], `${label}: hitTest(${p.x}, ${p.y})`);
    const requires = [
      {},
      { clickable: true },
      { interactive: true },
      { checked: true, enabled: true },
    ] as const;
    for (const require of requires) {
      assertEquals(
        w.hitTestTop(p, require),
        r.hitTestTop(p, require),
        `${label}: hitTestTop(${p.x}, ${p.y}, ${JSON.stringify(require)})`,
      );
    }
  }
  assertEquals(Array.from(w.refHashes()), Array.from(r.refHashes()), `${label}: refHashes`);
  const preds = Array.from({ length: 12 }, () => randomPredicate(rng, r));
  assertEquals(
    Array.from(w.countBatch(preds)),
    Array.from(r.countBatch(preds)),
    `${label}: countBatch`,
  );
  for (const p of preds) {
    const k = rng.int(0, 4);
    const want = r.matches(p, k);
    assertEquals(w.count(p), want.count, `${label}: count ${JSON.stringify(p)}`);
    assertEquals(w.matches(p, k), want, `${label}: matches ${JSON.stringify(p)}`);
  }
  for (let k = 0; k < 5; k++) {
    const i = rng.int(0, r.size - 1);
    assertEquals(w.subtreeEnd(i), r.subtreeEnd(i), `${label}: subtreeEnd(${i})`);
    assertEquals(w.ancestors(i), r.ancestors(i), `${label}: ancestors(${i})`);
  }
}
