import { assert, assertEquals, assertThrows } from "../../_fixtures/assert.ts";
import { makeNode, type UiNode, type UiNodeInit } from "../../../engine/screens/ui_node.ts";
import { ScreenTable, type TableEngine } from "../../../engine/screens/screen_table.ts";

const ENGINES: TableEngine[] = ["wasm", "reference"];

function box(x: number, y: number, w: number, h: number) {
  return { x, y, w, h };
}

function node(init: UiNodeInit, ...children: UiNode[]): UiNode {
  return makeNode({ ...init, children });
}

// A list screen: two overlapping cards, an invisible overlay, a zero-area node.
const title = node({ className: "TextView", text: "Inbox", bounds: box(10, 10, 200, 40) });
const okA = node({
  className: "Button",
  text: "OK",
  resourceId: "ok",
  clickable: true,
  bounds: box(20, 100, 100, 50),
});
const cardA = node({ className: "Card", bounds: box(0, 90, 400, 100) }, okA);
const okB = node({
  className: "Button",
  text: "OK",
  resourceId: "ok",
  clickable: true,
  enabled: false,
  bounds: box(20, 150, 100, 30),
});
const cardB = node({ className: "Card", bounds: box(0, 140, 400, 100) }, okB);
const overlay = node({ className: "Overlay", visible: false, bounds: box(0, 0, 400, 800) });
const dot = node({ className: "Dot", bounds: box(50, 50, 0, 10) });
const root = node(
  { className: "Frame", bounds: box(0, 0, 400, 800) },
  title,
  cardA,
  cardB,
  overlay,
  dot,
);
const screen = {
  platform: "android",
  format: "uiautomator2",
  width: 400,
  height: 800,
  root,
} as const;

for (const engine of ENGINES) {
  const t = ScreenTable.from(screen, { engine });
  const at = (x: number, y: number) => {
    const i = t.hitTest({ x, y });
    return i < 0 ? undefined : t.node(i);
  };

  Deno.test(`ScreenTable.hitTest() picks the deepest visible node (${engine})`, () => {
    assertEquals(t.engine.kind, engine);
    assertEquals(at(30, 110), okA);
    assertEquals(at(300, 110), cardA);
    assertEquals(at(300, 500), root);
    assertEquals(at(15, 20), title);
  });

  Deno.test(`ScreenTable.hitTest() breaks depth ties by smaller area, then document order (${engine})`, () => {
    // (30, 160): okA ends at y 150, okB (area 3000) and cardA/cardB overlap; okB is deeper.
    assertEquals(at(30, 160), okB);
    // (300, 160): cardA (y 90–190) and cardB (140–240) have equal depth and area: first wins.
    assertEquals(at(300, 160), cardA);
    // (30, 145): okA (area 5000) and cardB's child okB does not reach; okA is the only depth 2.
    assertEquals(at(30, 145), okA);
  });

  Deno.test(`ScreenTable.hitTest() treats right and bottom edges as exclusive (${engine})`, () => {
    assertEquals(at(120, 120), cardA); // okA spans x 20 ≤ x < 120
    assertEquals(at(119.9, 120), okA); // floored to 119
    assertEquals(at(20, 100), okA);
    assertEquals(at(400, 10), undefined);
    assertEquals(at(-1, 10), undefined);
    assertEquals(at(Number.NaN, 10), undefined);
  });

  Deno.test(`ScreenTable.hitTest() never returns invisible or zero-area nodes (${engine})`, () => {
    assertEquals(at(50, 55), root); // dot has width 0; overlay is invisible
  });

  Deno.test(`ScreenTable.hitTestBatch() answers like hitTest() per point (${engine})`, () => {
    const points = [{ x: 30, y: 110 }, { x: 900, y: 900 }, { x: 30, y: 160 }, { x: 1, y: 1 }];
    assertEquals(Array.from(t.hitTestBatch(points)), points.map((p) => t.hitTest(p)));
    assertEquals(t.hitTestBatch([]).length, 0);
  });

  Deno.test(`ScreenTable.count() counts exact matches with flags and scope (${engine})`, () => {
    assertEquals(t.count({ text: "OK" }), 2);
    assertEquals(t.count({ text: "OK", resourceId: "ok", className: "Button" }), 2);
    assertEquals(t.count({ text: "OK", flags: { enabled: true } }), 1);
    assertEquals(t.count({ text: "OK", descendantsOf: t.indexOf(cardB) }), 1);
    assertEquals(t.count({ className: "Card", descendantsOf: t.indexOf(cardB) }), 0);
    assertEquals(t.count({ text: "Nope" }), 0);
    assertEquals(t.count({}), 8);
    assertEquals(t.count({ flags: { visible: false } }), 1);
    assertEquals(t.count({ text: "OK", descendantsOf: t.indexOf(okA) }), 0);
  });

  Deno.test(`ScreenTable.countBatch() answers like count() per predicate (${engine})`, () => {
    const preds = [{ text: "OK" }, { className: "Card" }, { text: "x" }, {
      flags: { clickable: true },
    }];
    assertEquals(Array.from(t.countBatch(preds)), preds.map((p) => t.count(p)));
  });

  Deno.test(`ScreenTable.matches() returns the first k in document order (${engine})`, () => {
    assertEquals(t.matches({ text: "OK" }, 1), { indices: [t.indexOf(okA)], count: 2 });
    assertEquals(t.matches({ text: "OK" }, 5), {
      indices: [t.indexOf(okA), t.indexOf(okB)],
      count: 2,
    });
    assertEquals(t.matches({ text: "OK" }, 0), { indices: [], count: 2 });
  });

  Deno.test(`ScreenTable subtree queries follow document order (${engine})`, () => {
    assertEquals(t.size, 8);
    assertEquals(t.indexOf(root), 0);
    assertEquals(t.subtreeEnd(0), 8);
    assertEquals(t.subtreeEnd(t.indexOf(cardA)), t.indexOf(cardA) + 2);
    assertEquals(t.subtreeEnd(t.indexOf(dot)), 8);
    assertEquals(t.ancestors(t.indexOf(okB)), [t.indexOf(cardB), 0]);
    assertEquals(t.ancestors(0), []);
    assertEquals(t.parent(t.indexOf(okA)), t.indexOf(cardA));
    assertEquals(t.depth(t.indexOf(okA)), 2);
    assertEquals(t.indexOf(makeNode({ className: "Frame" })), -1);
    assertThrows(() => t.subtreeEnd(8), RangeError, "Cannot find node 8");
    assertThrows(() => t.node(-1), RangeError);
    assertThrows(() => t.node(1.5), RangeError, "Cannot find node 1.5");
    assertThrows(() => t.count({ descendantsOf: 99 }), RangeError, "Cannot find node 99");
  });
}

// The ref hash written out from its definition, independent of both implementations.
function specHash(n: UiNode): number {
  const r10 = (v: number) => Math.round(v / 10) * 10;
  const cx = Math.round(n.bounds.x + n.bounds.w / 2), cy = Math.round(n.bounds.y + n.bounds.h / 2);
  // A text field's text is the value typed: its label is description, else name, else hint.
  const field =
    /^(android\.widget\.(AutoComplete|MultiAutoComplete)TextView|XCUIElementType(Secure)?TextField|XCUIElementType(SearchField|TextView)|textbox|searchbox|combobox)$|EditText$/
      .test(n.className);
  const label = field
    ? n.contentDescription ?? n.name ?? n.hint ?? ""
    : n.text ?? n.contentDescription ?? n.name ?? "";
  const s = `${n.className}\u0000${label}\u0000${String(r10(cx))},${String(r10(cy))}`;
  let h = 0x811c9dc5;
  for (const b of new TextEncoder().encode(s)) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h;
}

Deno.test("ScreenTable.refHashes() follows the ref hash definition on tricky nodes", () => {
  const nodes = [
    node({ className: "Button", text: "Go", bounds: box(0, 0, 30, 10) }), // cx 15 → 20
    node({
      className: "Image",
      contentDescription: "Ünïcödé 日本 😀",
      bounds: box(-30, -20, 10, 10),
    }), // -25 → -20, -15 → -10
    node({ className: "Link", name: "more", bounds: box(-10.5, 3.4, 0, 0.2) }),
    node({ className: "", bounds: box(-4, -6, 0, 0) }), // round10(-4) is -0, printed 0
    node({ className: "View", bounds: box(1e6 + 0.5, 2e6, 3, 5) }),
    node({ className: "Text", text: "a", contentDescription: "b", bounds: box(5, 5, 1, 1) }),
    // text fields: the typed text is not the label; description, else name, else hint is
    node({
      className: "android.widget.EditText",
      text: "typed",
      hint: "Email",
      bounds: box(0, 0, 9, 9),
    }),
    node({
      className: "android.widget.EditText",
      text: "typed",
      contentDescription: "mail",
      hint: "Email",
    }),
    node({ className: "com.example.TextInputEditText", text: "typed" }),
    node({ className: "textbox", name: "Search", hint: "Find…", text: "q" }),
  ];
  const tree = node({ className: "Root", bounds: box(0, 0, 100, 100) }, ...nodes);
  for (const engine of ENGINES) {
    const t = ScreenTable.from(tree, { engine });
    const want = [tree, ...nodes].map(specHash);
    assertEquals(Array.from(t.refHashes()), want, engine);
  }
});

Deno.test("ScreenTable.from() rounds fractional bounds and keeps a one-node tree", () => {
  const t = ScreenTable.from(node({ className: "A", bounds: box(0.4, 0.6, 9.2, 9.8) }));
  assertEquals(t.size, 1);
  assertEquals(t.hitTest({ x: 0, y: 1 }), 0);
  assertEquals(t.hitTest({ x: 0, y: 0 }), -1); // y1 = round(0.6) = 1
  assertEquals(t.hitTest({ x: 9, y: 9 }), 0); // x2 = round(9.6) = 10
  assert(t.refHashes().length === 1);
});

Deno.test("ScreenTable.hitTest() agrees across engines on huge and non-finite coordinates", () => {
  const big = node({ className: "Big", bounds: box(-1e12, -1e12, 2e12, 2e12) });
  const far = node({ className: "Far", bounds: box(1e9, 1e9, 10, 10) });
  const odd = node({ className: "Odd", bounds: box(Number.NaN, 0, Infinity, 10) });
  const tree = node({ className: "Root", bounds: box(-5, -5, 10, 10) }, big, far, odd);
  const points = [
    { x: 0, y: 0 },
    { x: -1e15, y: 0 },
    { x: 1e15, y: 1e15 },
    { x: 536870911, y: 536870911 },
    { x: -536870912, y: -536870912 },
    { x: 1e9 + 5, y: 1e9 + 5 },
    { x: Infinity, y: 0 },
  ];
  const w = ScreenTable.from(tree, { engine: "wasm" });
  const r = ScreenTable.from(tree, { engine: "reference" });
  assertEquals(Array.from(w.hitTestBatch(points)), Array.from(r.hitTestBatch(points)));
  assertEquals(points.map((p) => w.hitTest(p)), points.map((p) => r.hitTest(p)));
  assertEquals(w.hitTest({ x: 0, y: 0 }), 1); // Big is deeper than Root, Far is clamped away
  assertEquals(Array.from(w.refHashes()), Array.from(r.refHashes()));
});
