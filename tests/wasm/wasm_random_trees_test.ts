import { center, type Point, type UiNode, walk } from "../../engine/screens/ui_node.ts";
import { nodeLabel, refHash } from "../../engine/screens/refs.ts";
import { ScreenTable } from "../../engine/screens/screen_table.ts";
import { Prng } from "../../wasm/prng.ts";
import { assert, assertEquals } from "../_fixtures/assert.ts";
import { assertEnginesAgree, randomPoints, randomTree } from "../_fixtures/wasm_random_tree.ts";

const TREES = 1000;

Deno.test(`WASM hot path equals the TS reference on ${TREES} random trees`, () => {
  let wide = 0;
  for (let seed = 1; seed <= TREES; seed++) {
    const rng = new Prng(seed);
    const size = seed % 10 === 0 ? rng.int(200, 600) : rng.int(1, 60);
    // Every 8th tree lies far from the origin (narrow columns shifted by an origin) or spans more
    // than 32,767 px (the hit test's Int32 scan), so both paths and the clamping run.
    const [scale, shift] = seed % 8 === 0
      ? rng.pick([[1, 16300], [1, -1e6], [200, 0], [300, -5e4]])
      : [1, 0];
    const root = randomTree(rng, size, scale, shift, seed % 2 === 0);
    if (!ScreenTable.from(root).table.narrow) wide++;
    assertEnginesAgree(rng, root, `seed ${seed}`);
  }
  assert(wide > 40 && wide < TREES / 4, `${wide} trees without narrow columns`);
});

// The hit-test rule written against the tree itself, independent of the table.
function oracle(root: UiNode, p: Point): UiNode | undefined {
  const x = Math.floor(p.x), y = Math.floor(p.y);
  let best: UiNode | undefined, bestDepth = -1, bestArea = 0;
  for (const [n, depth] of walk(root)) {
    const b = n.bounds;
    const x1 = Math.round(b.x), y1 = Math.round(b.y);
    const x2 = Math.max(x1, Math.round(b.x + b.w)), y2 = Math.max(y1, Math.round(b.y + b.h));
    if (!n.visible || x < x1 || x >= x2 || y < y1 || y >= y2) continue;
    const area = (x2 - x1) * (y2 - y1);
    if (depth > bestDepth || (depth === bestDepth && area < bestArea)) {
      best = n;
      bestDepth = depth;
      bestArea = area;
    }
  }
  return best;
}

Deno.test("ScreenTable.hitTest() follows the hit-test rule on 200 random trees", () => {
  for (let seed = 5001; seed <= 5200; seed++) {
    const rng = new Prng(seed);
    const root = randomTree(rng, rng.int(1, 80));
    const t = ScreenTable.from(root, { engine: "wasm" });
    for (const p of randomPoints(rng, t, 30)) {
      const i = t.hitTest(p);
      assertEquals(i < 0 ? undefined : t.node(i), oracle(root, p), `seed ${seed} (${p.x}, ${p.y})`);
    }
  }
});

/** The nodes in the order they are drawn, written against the tree: siblings that all carry a
 * drawing order by it (ties in document order), others in document order; a parent first. */
function paintOrder(root: UiNode): UiNode[] {
  const out: UiNode[] = [];
  const key = (n: UiNode) => Number(n.attrs?.["drawing-order"] ?? NaN);
  const visit = (n: UiNode) => {
    out.push(n);
    const kids = [...n.children];
    if (kids.every((c) => !Number.isNaN(key(c)))) kids.sort((a, b) => key(a) - key(b));
    kids.forEach(visit);
  };
  visit(root);
  return out;
}

// The topmost rule written against the tree: the last node drawn that contains the point.
function topOracle(root: UiNode, p: Point, clickable: boolean): UiNode | undefined {
  const x = Math.floor(p.x), y = Math.floor(p.y);
  let best: UiNode | undefined;
  for (const n of paintOrder(root)) {
    const b = n.bounds;
    const x1 = Math.round(b.x), y1 = Math.round(b.y);
    const x2 = Math.max(x1, Math.round(b.x + b.w)), y2 = Math.max(y1, Math.round(b.y + b.h));
    if (!n.visible || (clickable && !n.clickable)) continue;
    if (x >= x1 && x < x2 && y >= y1 && y < y2) best = n;
  }
  return best;
}

Deno.test("ScreenTable.hitTestTop() follows drawing order on 200 random trees", () => {
  let differs = 0;
  for (let seed = 7001; seed <= 7200; seed++) {
    const rng = new Prng(seed);
    const root = randomTree(rng, rng.int(1, 80), 1, 0, seed % 4 !== 0);
    const t = ScreenTable.from(root, { engine: "wasm" });
    for (const p of randomPoints(rng, t, 30)) {
      for (const clickable of [false, true]) {
        const i = clickable ? t.hitTestTop(p, { clickable }) : t.hitTestTop(p);
        const want = topOracle(root, p, clickable);
        assertEquals(i < 0 ? undefined : t.node(i), want, `seed ${seed} (${p.x}, ${p.y})`);
        if (!clickable && want !== undefined && want !== t.node(t.hitTest(p))) differs++;
      }
    }
  }
  assert(differs > 100, `the topmost node differs from the deepest at only ${differs} points`);
});

function labelled(n: UiNode): boolean {
  return n.text !== undefined || n.contentDescription !== undefined ||
    n.resourceId !== undefined || n.testId !== undefined;
}

// iOS without element types: a labelled leaf, or a labelled node holding a labelled one.
function typelessInteractive(n: UiNode): boolean {
  const holds = (m: UiNode): boolean => m.children.some((c) => labelled(c) || holds(c));
  return n.clickable || (labelled(n) && (n.children.length === 0 || holds(n)));
}

Deno.test("ScreenTable.hitTestTop() finds the interactive node on top of 200 random typeless iOS trees, WASM as the reference", () => {
  let differs = 0;
  for (let seed = 8001; seed <= 8200; seed++) {
    const rng = new Prng(seed);
    const root = randomTree(rng, rng.int(1, 80));
    const screen = { platform: "ios", format: "maestro", root, width: 140, height: 140 } as const;
    const w = ScreenTable.from(screen, { engine: "wasm" });
    const r = ScreenTable.from(screen, { engine: "reference" });
    for (const p of randomPoints(rng, w, 30)) {
      const i = w.hitTestTop(p, { interactive: true });
      assertEquals(i, r.hitTestTop(p, { interactive: true }), `seed ${seed} (${p.x}, ${p.y})`);
      const x = Math.floor(p.x), y = Math.floor(p.y);
      let want: UiNode | undefined;
      for (const n of paintOrder(root)) {
        const b = n.bounds;
        const x1 = Math.round(b.x), y1 = Math.round(b.y);
        const x2 = Math.max(x1, Math.round(b.x + b.w)), y2 = Math.max(y1, Math.round(b.y + b.h));
        if (!n.visible || !typelessInteractive(n)) continue;
        if (x >= x1 && x < x2 && y >= y1 && y < y2) want = n;
      }
      assertEquals(i < 0 ? undefined : w.node(i), want, `seed ${seed} (${p.x}, ${p.y})`);
      if (want !== undefined && w.hitTestTop(p, { clickable: true }) !== i) differs++;
    }
  }
  assert(
    differs > 100,
    `the interactive node differs from the clickable one at only ${differs} points`,
  );
});

Deno.test("ScreenTable.refHashes() equals engine/screens/refs.ts refHash() on 300 random trees", () => {
  for (let seed = 9001; seed <= 9300; seed++) {
    const rng = new Prng(seed);
    const root = randomTree(rng, rng.int(1, 60));
    const want = [...walk(root)].map(([n]) => {
      const c = center(n.bounds);
      return refHash(n.className, nodeLabel(n), c.x, c.y) >>> 0;
    });
    assertEquals(
      Array.from(ScreenTable.from(root, { engine: "wasm" }).refHashes()),
      want,
      `seed ${seed}`,
    );
  }
});
