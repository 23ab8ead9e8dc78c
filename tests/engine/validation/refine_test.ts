import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { makeNode, type Screen, type UiNode, walk } from "../../../engine/screens/ui_node.ts";
import { parseAndroid } from "../../../engine/screens/parse_android.ts";
import { pruneSelectors, refineSelectors } from "../../../engine/validation/refine.ts";

function page(children: UiNode[]): Screen {
  return {
    platform: "web",
    format: "chrome",
    width: 600,
    height: 600,
    root: makeNode({ className: "RootWebArea", bounds: { x: 0, y: 0, w: 600, h: 600 }, children }),
  };
}

function add(product: string, testId: string, y: number, enabled = true): UiNode {
  return makeNode({
    className: "button",
    role: "button",
    name: `Add ${product}`,
    contentDescription: `Add ${product}`,
    testId,
    resourceId: `p-${testId}`,
    clickable: true,
    enabled,
    bounds: { x: 500, y, w: 40, h: 21 },
    children: [
      makeNode({
        className: "StaticText",
        role: "StaticText",
        text: "Add",
        name: "Add",
        bounds: { x: 505, y, w: 30, h: 17 },
      }),
    ],
  });
}

Deno.test("refineSelectors() drops the test id regenerated between runs and keeps the label both runs share", () => {
  const capture = page([add("Latte", "add-qkzv", 100), add("Espresso", "add-mwtr", 130)]);
  const replay = page([add("Espresso", "add-bxyo", 100), add("Latte", "add-jjeu", 130)]); // shuffled
  const target = capture.root.children[1]!;
  const r = refineSelectors({ screen: capture, node: target }, [replay], {
    platform: "web",
    kind: "tap",
  });
  assert(r.ok);
  assertEquals(r.selectors[0], { ariaLabel: "Add Espresso" });
  assert(
    r.selectors.every((s) => s.testId === undefined && s.id === undefined && s.xy === undefined),
  );
});

Deno.test("refineSelectors() finds no selector when the captured target is disabled on the replay", () => {
  const slot = (t: string, on: boolean) =>
    makeNode({
      className: "button",
      role: "button",
      name: t,
      enabled: on,
      clickable: true,
      bounds: { x: 10, y: 10 + 30 * Number(t.slice(0, 2)), w: 70, h: 21 },
    });
  const capture = page([slot("09:00", false), slot("10:00", true)]);
  const replay = page([slot("09:00", true), slot("10:00", false)]);
  const r = refineSelectors({ screen: capture, node: capture.root.children[1]! }, [replay], {
    platform: "web",
    kind: "tap",
  });
  assert(!r.ok);
  assertStringIncludes(r.reason, "picks a disabled element in replay 1");
});

Deno.test("refineSelectors() climbs to an ancestor with the same box when the text run has no identity", () => {
  const count = (n: string) =>
    makeNode({
      className: "status",
      role: "status",
      testId: "cart-count",
      bounds: { x: 55, y: 400, w: 9, h: 17 },
      children: [
        makeNode({
          className: "StaticText",
          role: "StaticText",
          text: n,
          name: n,
          bounds: { x: 55, y: 400, w: 9, h: 17 },
        }),
      ],
    });
  const capture = page([count("1")]);
  const replay = page([count("1")]);
  const r = refineSelectors({ screen: capture, node: capture.root.children[0]!.children[0]! }, [
    replay,
  ], {
    platform: "web",
    kind: "readText",
  });
  assert(r.ok);
  assertEquals(r.selectors[0], { testId: "cart-count" });
});

Deno.test("pruneSelectors() keeps the first selector and drops fallbacks that changed between runs", () => {
  const capture = page([add("Latte", "add-qkzv", 100)]);
  const replay = page([add("Latte", "add-abcd", 160)]);
  const { kept, dropped } = pruneSelectors(
    [{ ariaLabel: "Add Latte" }, { id: "p-add-qkzv" }, { role: "button", name: "Add Latte" }, {
      xy: [520, 110],
    }],
    capture.root.children[0]!,
    [replay],
    { platform: "web", kind: "tap" },
  );
  assertEquals(kept, [{ ariaLabel: "Add Latte" }, { role: "button", name: "Add Latte" }]);
  assertEquals(dropped, [{ id: "p-add-qkzv" }, { xy: [520, 110] }]);
});

Deno.test("pruneSelectors() says why each fallback was dropped: changed between runs, or matched nothing in either run", () => {
  const capture = page([add("Latte", "add-qkzv", 100)]);
  const replay = page([add("Latte", "add-abcd", 160)]);
  const { dropped, reasons } = pruneSelectors(
    [{ ariaLabel: "Add Latte" }, { id: "p-add-qkzv" }, { text: "Sign in" }],
    capture.root.children[0]!,
    [replay],
    { platform: "web", kind: "tap" },
    capture,
  );
  assertEquals(dropped, [{ id: "p-add-qkzv" }, { text: "Sign in" }]);
  assertEquals(reasons, ["changed between runs", "matched nothing in either run"]);
});

Deno.test("refineSelectors() at v2 never adopts a position among identical controls whose test id changed: no anchor, no refinement", () => {
  const plain = (testId: string, y: number) =>
    makeNode({
      className: "button",
      role: "button",
      name: "Add",
      testId,
      clickable: true,
      bounds: { x: 500, y, w: 40, h: 21 },
    });
  const capture = page([plain("add-qkzv", 100), plain("add-mwtr", 130), plain("add-pbno", 160)]);
  const replay = page([plain("add-bxyo", 100), plain("add-jjeu", 130), plain("add-zzra", 160)]);
  const r = refineSelectors({ screen: capture, node: capture.root.children[1]! }, [replay], {
    platform: "web",
    kind: "tap",
    level: 2,
  });
  assert(!r.ok, JSON.stringify(r));
  assertStringIncludes(r.reason, "positional among 3 identical elements");
});

Deno.test("refineSelectors() in strict mode keeps only the one proven exact selector (strict replays the primary only)", () => {
  const capture = page([add("Latte", "add-qkzv", 100), add("Espresso", "add-mwtr", 130)]);
  const replay = page([add("Espresso", "add-bxyo", 100), add("Latte", "add-jjeu", 130)]);
  const target = capture.root.children[1]!;
  // The control: adaptive keeps the label and its fallbacks.
  const adaptive = refineSelectors({ screen: capture, node: target }, [replay], {
    platform: "web",
    kind: "tap",
    level: 2,
  });
  assert(adaptive.ok);
  assert(adaptive.selectors.length > 1, JSON.stringify(adaptive.selectors));
  for (const level of [1, 2]) {
    const r = refineSelectors({ screen: capture, node: target }, [replay], {
      platform: "web",
      kind: "tap",
      level,
      mode: "strict",
    });
    assert(r.ok, `v${level}: ${JSON.stringify(r)}`);
    assertEquals(r.selectors, [{ ariaLabel: "Add Espresso" }], `v${level}`);
    assertEquals(r.evidence.length, 1);
  }
});

Deno.test("refineSelectors() in strict mode adopts no text or (at v1) role + name: with no exact property left, no refinement", () => {
  const save = (testId: string, y: number) =>
    makeNode({
      className: "button",
      role: "button",
      name: "Save",
      text: "Save",
      testId,
      clickable: true,
      bounds: { x: 20, y, w: 60, h: 21 },
    });
  const capture = page([save("save-qkzv", 100)]);
  const replay = page([save("save-bxyo", 140)]);
  const v1 = refineSelectors({ screen: capture, node: capture.root.children[0]! }, [replay], {
    platform: "web",
    kind: "tap",
    mode: "strict",
  });
  assert(!v1.ok, JSON.stringify(v1));
  assertStringIncludes(v1.reason, "strict mode");
  // v2's strict takes a unique role + name, and only that.
  const v2 = refineSelectors({ screen: capture, node: capture.root.children[0]! }, [replay], {
    platform: "web",
    kind: "tap",
    level: 2,
    mode: "strict",
  });
  assert(v2.ok, JSON.stringify(v2));
  assertEquals(v2.selectors, [{ role: "button", name: "Save" }]);
});

Deno.test("pruneSelectors() in strict mode keeps only the first selector: strict never tries a fallback", () => {
  const capture = page([add("Latte", "add-qkzv", 100)]);
  const replay = page([add("Latte", "add-abcd", 160)]);
  const { kept, dropped } = pruneSelectors(
    [{ ariaLabel: "Add Latte" }, { role: "button", name: "Add Latte" }],
    capture.root.children[0]!,
    [replay],
    { platform: "web", kind: "tap", level: 2, mode: "strict" },
  );
  assertEquals(kept, [{ ariaLabel: "Add Latte" }]);
  assertEquals(dropped, [{ role: "button", name: "Add Latte" }]);
});

// Google Tasks' list (a real corpus page source): 17 rows, each with an identical "Add star"
// button (same id, description, class and size), told apart only by the row's description.
const TASKS = Deno.readTextFileSync(
  new URL("../../../../shared/corpus/android/uiautomator_google_tasks_list.xml", import.meta.url),
);

function starOfTask16(screen: Screen): UiNode {
  for (const [n] of walk(screen.root)) {
    if (n.resourceId?.endsWith("star_button") && n.bounds.x === 1429 && n.bounds.y === 336) {
      return n;
    }
  }
  throw new Error("no star button at [1429,336]");
}

Deno.test("refineSelectors() on Android scopes a control repeated in rows by its labelled row, never an index among identical controls", () => {
  const capture = parseAndroid(TASKS);
  // The app renamed the button's id: the captured id is gone, the rows keep their descriptions.
  const replay = parseAndroid(TASKS.replaceAll("id/star_button", "id/star"));
  const r = refineSelectors({ screen: capture, node: starOfTask16(capture) }, [replay], {
    platform: "android",
    kind: "tap",
    level: 2,
  });
  assert(r.ok, JSON.stringify(r));
  assertEquals(r.selectors[0], {
    contentDescription: "Add star",
    childOf: { contentDescription: "Task 16" },
  });
  assert(r.selectors.every((s) => s.index === undefined), JSON.stringify(r.selectors));
  assert(r.selectors.every((s) => s.childOf?.text === undefined), JSON.stringify(r.selectors));
});

// The Android notification shade (a real corpus page source): three notifications, each with an
// identical "Expandir" button (id, description, class and size agree) and no labelled ancestor.
const SHADE = Deno.readTextFileSync(
  new URL(
    "../../../../shared/corpus/android/uiautomator_systemui_notification_shade_es.xml",
    import.meta.url,
  ),
);

Deno.test("refineSelectors() on Android adopts no index among identical controls when no labelled row holds: no refinement", () => {
  const capture = parseAndroid(SHADE);
  let second: UiNode | undefined;
  for (const [n] of walk(capture.root)) {
    if (n.className === "android.widget.Button" && n.bounds.y === 1100) second = n;
  }
  assert(second?.contentDescription === "Expandir");
  // The button's id was renamed in the replay: what is left is its description, the same on
  // every notification, and a position among them (which a reordered shade would swap).
  const replay = parseAndroid(SHADE.replaceAll("android:id/expand_button", "android:id/expand"));
  for (const level of [1, 2]) {
    const r = refineSelectors({ screen: capture, node: second }, [replay], {
      platform: "android",
      kind: "tap",
      level,
    });
    assert(!r.ok, `v${level}: ${JSON.stringify(r)}`);
    assertStringIncludes(r.reason, "positional among 3 identical elements");
  }
});
