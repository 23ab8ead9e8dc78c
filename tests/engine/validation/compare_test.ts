import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { makeNode, type Screen, type UiNode } from "../../../engine/screens/ui_node.ts";
import {
  type CapturedAction,
  compareAction,
  nodeAtBounds,
  type ReplayedAction,
} from "../../../engine/validation/compare.ts";

function button(name: string, y: number, extra: Partial<UiNode> = {}): UiNode {
  return makeNode({
    className: "button",
    role: "button",
    name,
    clickable: true,
    bounds: { x: 10, y, w: 80, h: 24 },
    ...extra,
  });
}

function screenOf(...children: UiNode[]): Screen {
  return {
    platform: "web",
    format: "chrome",
    width: 400,
    height: 400,
    root: makeNode({ className: "RootWebArea", bounds: { x: 0, y: 0, w: 400, h: 400 }, children }),
  };
}

const save = button("Save", 10);
const captured: CapturedAction = { kind: "tap", node: save, ok: true };

Deno.test("compareAction() judges each replay outcome", () => {
  const moved = screenOf(button("Save", 90));
  const cases: [string, ReplayedAction, boolean, boolean, string][] = [
    [
      "same element moved by a banner",
      {
        status: "ok",
        strategy: "role_name",
        bounds: { x: 10, y: 90, w: 80, h: 24 },
        screen: moved,
      },
      true,
      false,
      "moved by (0, 80)",
    ],
    [
      "healed",
      {
        status: "healed",
        strategy: "text",
        healed: true,
        bounds: { x: 10, y: 90, w: 80, h: 24 },
        screen: moved,
      },
      false,
      true,
      "primary selector missed",
    ],
    [
      "coordinate fallback",
      { status: "ok", strategy: "coordinates", selector: "xy=50,20" },
      false,
      true,
      "coordinate fallback",
    ],
    [
      "not found",
      { status: "failed", errorCode: "selector_not_found", error: "none" },
      false,
      true,
      "selector_not_found",
    ],
    [
      "a different element",
      {
        status: "ok",
        strategy: "css_path",
        bounds: { x: 10, y: 10, w: 80, h: 24 },
        screen: screenOf(button("Delete", 10)),
      },
      false,
      true,
      'name "Save" → "Delete"',
    ],
    [
      "disabled on replay",
      {
        status: "failed",
        errorCode: "element_disabled",
        strategy: "role_name",
        bounds: { x: 10, y: 10, w: 80, h: 24 },
        screen: screenOf(button("Save", 10, { enabled: false })),
      },
      false,
      true,
      "disabled in the replay",
    ],
  ];
  for (const [label, replay, passed, elementFailure, evidence] of cases) {
    const v = compareAction(captured, replay);
    assertEquals(v.passed, passed, label);
    assertEquals(v.elementFailure, elementFailure, label);
    assert(v.evidence.some((e) => e.includes(evidence)), `${label}: ${v.evidence.join(" | ")}`);
  }
});

Deno.test("compareAction() treats an assertion failing on the right element as an outcome, not a selector problem", () => {
  const total = makeNode({
    className: "status",
    role: "status",
    bounds: { x: 0, y: 0, w: 50, h: 20 },
  });
  const v = compareAction({ kind: "assertText", node: total, ok: true }, {
    status: "failed",
    errorCode: "assertion_failed",
    error: "Expected 2, found 1",
    strategy: "id",
    bounds: { x: 0, y: 0, w: 50, h: 20 },
    screen: screenOf(total),
  });
  assertEquals([v.passed, v.elementFailure], [false, false]);
});

Deno.test("compareAction() requires a memory slot to be populated", () => {
  const count = makeNode({
    className: "status",
    role: "status",
    text: "1",
    bounds: { x: 0, y: 0, w: 10, h: 20 },
  });
  const base = { kind: "readText", node: count, storeAs: "n", value: "1" };
  const ok = compareAction(base, { status: "ok", strategy: "test_id", value: "3" });
  assertEquals(ok.passed, true);
  assert(ok.evidence.some((e) => e.includes('memory slot n = "3" (capture: "1")')));
  assertEquals(
    compareAction(base, { status: "ok", strategy: "test_id", value: " " }).passed,
    false,
  );
});

Deno.test("nodeAtBounds() prefers the node with the captured role when several share a box", () => {
  const text = makeNode({
    className: "StaticText",
    role: "StaticText",
    name: "1",
    text: "1",
    bounds: { x: 0, y: 0, w: 9, h: 17 },
  });
  const status = makeNode({
    className: "status",
    role: "status",
    testId: "count",
    bounds: { x: 0, y: 0, w: 9, h: 17 },
    children: [text],
  });
  const s = screenOf(status);
  assertEquals(nodeAtBounds(s, { x: 0, y: 0, w: 9, h: 17 }, status), status);
  assertEquals(nodeAtBounds(s, { x: 0, y: 0, w: 9, h: 17 }, text), text);
  assertEquals(nodeAtBounds(s, { x: 100, y: 0, w: 9, h: 17 }), undefined);
});

Deno.test("compareAction() fails the right element clicked when the page it led to is an error page, as an outcome (not refined)", () => {
  const same = screenOf(button("Save", 10));
  const replayed: ReplayedAction = {
    status: "ok",
    strategy: "role_name",
    bounds: { x: 10, y: 10, w: 80, h: 24 },
    screen: same,
  };
  assert(compareAction(captured, replayed).passed);
  const v = compareAction(captured, {
    ...replayed,
    pageError: "http://127.0.0.1:8000/next answered HTTP 500 Internal Server Error",
  });
  assertEquals(v.passed, false);
  assertEquals(v.elementFailure, false);
  assert(v.evidence.includes("same element (role, name and size agree)"), v.evidence.join("|"));
  assert(
    v.evidence.includes(
      "led to an error page: http://127.0.0.1:8000/next answered HTTP 500 Internal Server Error",
    ),
    v.evidence.join("|"),
  );
});

Deno.test("compareAction() takes a restyled element singled out by its name as the same one, but not a resized twin", () => {
  const capScreen = screenOf(button("Save", 10), button("Cancel", 40));
  const cap: CapturedAction = { kind: "tap", node: capScreen.root.children[0]!, screen: capScreen };
  const wide = { x: 10, y: 10, w: 140, h: 32 };
  const restyled = screenOf(button("Save", 10, { bounds: wide }), button("Cancel", 50));
  const v = compareAction(cap, {
    status: "ok",
    strategy: "role_name",
    bounds: wide,
    screen: restyled,
  });
  assert(v.passed, v.evidence.join(" | "));
  assert(
    v.evidence.includes("same element (role and name agree; size 80×24 → 140×32 with the layout)"),
    v.evidence.join(" | "),
  );
  // Two "Save" buttons on the replay (a dialog's and the toolbar's): the size is what still tells
  // the picked one from the captured one, so a size change fails as before.
  const twins = screenOf(button("Save", 10, { bounds: wide }), button("Save", 50));
  const t = compareAction(cap, {
    status: "ok",
    strategy: "role_name",
    bounds: wide,
    screen: twins,
  });
  assertEquals(t.passed, false);
  assert(t.evidence.some((e) => e.includes("a different element: size 80×24 → 140×32")));
  // An unnamed element is never singled out by its name: a size change fails.
  const box = (w: number) =>
    makeNode({ className: "generic", role: "generic", bounds: { x: 0, y: 0, w, h: 20 } });
  const capBox = screenOf(box(100));
  const b = compareAction(
    { kind: "tap", node: capBox.root.children[0]!, screen: capBox },
    {
      status: "ok",
      strategy: "css_path",
      bounds: { x: 0, y: 0, w: 200, h: 20 },
      screen: screenOf(box(200)),
    },
  );
  assertEquals(b.passed, false);
});

Deno.test("compareAction() takes a restyled Add button in the captured row as the same one, and one in another row as another", () => {
  const row = (product: string, y: number, w: number) =>
    makeNode({
      className: "listitem",
      role: "listitem",
      bounds: { x: 0, y, w: 300, h: 30 },
      children: [
        makeNode({ className: "StaticText", text: product, bounds: { x: 0, y, w: 60, h: 20 } }),
        button("Add", y, { bounds: { x: 200, y, w, h: 24 } }),
      ],
    });
  const list = (order: string[], w: number) =>
    screenOf(
      makeNode({
        className: "list",
        role: "list",
        bounds: { x: 0, y: 0, w: 300, h: 100 },
        children: order.map((p, k) => row(p, 30 * k, w)),
      }),
    );
  const cap = list(["Fern", "Cactus"], 40);
  const node = cap.root.children[0]!.children[0]!.children[1]!; // Fern's Add
  const rep = list(["Cactus", "Fern"], 66);
  const at = (k: number) => rep.root.children[0]!.children[k]!.children[1]!.bounds;
  const fern = compareAction({ kind: "tap", node, screen: cap }, {
    status: "ok",
    strategy: "text",
    bounds: at(1),
    screen: rep,
  });
  assert(fern.passed, fern.evidence.join(" | "));
  assert(fern.evidence.some((e) => e.includes("size 40×24 → 66×24 with the layout")));
  const cactus = compareAction({ kind: "tap", node, screen: cap }, {
    status: "ok",
    strategy: "text",
    bounds: at(0),
    screen: rep,
  });
  assertEquals(cactus.passed, false);
});
