import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { formatPattern, isFormatIntent } from "../../../engine/optimizer/generalize.ts";
import { parseTrail, type TrailAction } from "../../../engine/trail/trail.ts";
import { projectTrail } from "../../../engine/optimizer/trail_projection.ts";
import { makeNode, type Screen, type UiNode } from "../../../engine/screens/ui_node.ts";
import { buildCapture, type ScriptAction } from "../../_fixtures/optimizer_support.ts";

function screenOf(...children: UiNode[]): Screen {
  const root = makeNode({
    className: "android.widget.FrameLayout",
    bounds: { x: 0, y: 0, w: 1080, h: 2400 },
    children,
  });
  return { platform: "android", format: "uiautomator2", root, width: 1080, height: 2400 };
}
function label(id: string, text: string, y: number): UiNode {
  return makeNode({
    className: "android.widget.TextView",
    resourceId: id,
    text,
    bounds: { x: 0, y, w: 1080, h: 100 },
  });
}
function btn(id: string, text: string, y: number): UiNode {
  return makeNode({
    className: "android.widget.Button",
    resourceId: id,
    text,
    clickable: true,
    bounds: { x: 0, y, w: 1080, h: 100 },
  });
}
function recording(
  script: ScriptAction[],
  mode: "adaptive" | "strict" = "adaptive",
  // v3 adds fallback chains (tests/engine/optimizer/optimizer_chain_selectors_test.ts): these check the other passes
  heuristics = "v2",
): TrailAction[] {
  const { events, screens } = buildCapture("android", script);
  const p = projectTrail(events, { screens, mode, heuristics });
  return parseTrail(p.yaml).trail.flatMap((s) => s.recording ?? []);
}

// 000's generalization table, as v1 writes it; v2 lets a count's noun be singular too.
const TABLE: [string, string, string, string][] = [
  ["Verify a price is shown", "$50.00", "\\$\\d+\\.\\d{2}", "\\$\\d+\\.\\d{2}"],
  ["Verify a date appears", "March 9, 2026", "\\w+ \\d{1,2}, \\d{4}", "\\w+ \\d{1,2}, \\d{4}"],
  ["Verify item count shown", "3 items", "\\d+ items", "\\d+ items?"],
];
for (const [nl, value, v1, v2] of TABLE) {
  Deno.test(`projectTrail() generalizes ${JSON.stringify(value)} to a regex for "${nl}"`, () => {
    const s = screenOf(label("value", value, 500));
    const script = [{ step: nl, screen: s, kind: "assertVisible" as const, expected: value }];
    for (const [heuristics, matches] of [["v1", v1], ["v2", v2]]) {
      const rec = recording(script, "adaptive", heuristics);
      assertEquals(rec, [{ kind: "assertText", selector: { id: "value" }, matches }], heuristics);
    }
  });
}

Deno.test("projectTrail() keeps a value exact when the NL names a specific value", () => {
  const s = screenOf(label("total", "$50.00", 500));
  const rec = recording([
    { step: "Verify total is correct", screen: s, kind: "assertVisible", expected: "$50.00" },
  ]);
  assertEquals(rec, [{ kind: "assertText", selector: { id: "total" }, equals: "$50.00" }]);
});

Deno.test("isFormatIntent() and formatPattern() cover the other formats", () => {
  assert(isFormatIntent("Check an email is displayed", "a@b.co"));
  assert(!isFormatIntent("Check a@b.co is displayed", "a@b.co"));
  const cases: [string, string][] = [
    ["bob@example.com", "email"],
    ["3f2504e0-4f89-11d3-9a0c-0305e82c3301", "uuid"],
    ["10:30 AM", "time"],
    ["2026-03-09", "date"],
    ["+1 (555) 010-9999", "phone"],
    ["$1,250.00", "money"],
  ];
  for (const [v, name] of cases) {
    const f = formatPattern(v);
    assertEquals(f?.name, name, v);
    assert(new RegExp(`^(?:${f!.pattern})$`).test(v), v);
  }
});

function counter(value: string): Screen {
  return screenOf(label("count", value, 300), btn("add", "Add", 600));
}

Deno.test("projectTrail() writes an expression the NL and the arithmetic both support", () => {
  const rec = recording([
    {
      step: "Note the apple count",
      screen: counter("5"),
      kind: "readText",
      point: { x: 5, y: 350 },
      value: "5",
    },
    { step: "Remove 3 apples", screen: counter("5"), kind: "tap", point: { x: 5, y: 650 } },
    {
      step: "Verify the count decreased by 3",
      screen: counter("2"),
      kind: "assertVisible",
      expected: "2",
    },
  ]);
  // v2 names the slot by the element's id; v3 from the NL step (tests/engine/optimizer/optimizer_unseen_apps_test.ts)
  assertEquals(rec[0], { kind: "readText", selector: { id: "count" }, storeAs: "count" });
  assertEquals(rec[2], { kind: "assertText", selector: { id: "count" }, equals: "{{count - 3}}" });
});

Deno.test("projectTrail() invents no expression without an NL relation", () => {
  const rec = recording([
    {
      step: "Note the count",
      screen: counter("5"),
      kind: "readText",
      point: { x: 5, y: 350 },
      value: "5",
    },
    { step: "Verify the count is 7", screen: counter("7"), kind: "assertVisible", expected: "7" },
  ]);
  assertEquals(rec[1], { kind: "assertText", selector: { id: "count" }, equals: "7" });
});

Deno.test("projectTrail() invents no expression the arithmetic does not support", () => {
  const rec = recording([
    {
      step: "Note the count",
      screen: counter("5"),
      kind: "readText",
      point: { x: 5, y: 350 },
      value: "5",
    },
    {
      step: "Verify the count increased by 2",
      screen: counter("8"),
      kind: "assertVisible",
      expected: "8",
    },
  ]);
  assertEquals(rec[1]!.equals, "8");
});

Deno.test("projectTrail() keeps the format of a doubled price", () => {
  const rec = recording([
    {
      step: "Note the price",
      screen: counter("$12.50"),
      kind: "readText",
      point: { x: 5, y: 350 },
      value: "$12.50",
    },
    {
      step: "Verify the price doubled",
      screen: counter("$25.00"),
      kind: "assertVisible",
      expected: "$25.00",
    },
  ]);
  assertEquals(rec[1]!.equals, "{{count * 2}}");
});

Deno.test("projectTrail() drops failed calls and collapses repeated scrolls", () => {
  const s = counter("1");
  const rec = recording([
    { step: "Scroll and add", screen: s, kind: "tap", point: { x: 5, y: 650 }, ok: false },
    { screen: s, kind: "scroll", direction: "down" },
    { screen: s, kind: "scroll", direction: "down" },
    { screen: s, kind: "scroll", direction: "down" },
    { screen: s, kind: "scroll", direction: "up" },
    { screen: s, kind: "tap", point: { x: 5, y: 650 } },
  ]);
  assertEquals(rec, [
    { kind: "scroll", direction: "down", repeat: 3 },
    { kind: "scroll", direction: "up" },
    { kind: "tap", selector: { id: "add" } },
  ]);
});

Deno.test("projectTrail() merges keystrokes and drops the focus tap before typing", () => {
  const field = (focused: boolean, text?: string) =>
    makeNode({
      className: "android.widget.EditText",
      resourceId: "search_src_text",
      hint: "Search",
      focused,
      clickable: true,
      bounds: { x: 0, y: 100, w: 1080, h: 100 },
      ...(text ? { text } : {}),
    });
  const s0 = screenOf(field(false));
  const s1 = screenOf(field(true));
  const { events, screens } = buildCapture("android", [
    { step: "Search for shoes", screen: s0, kind: "tap", point: { x: 50, y: 150 } },
    { screen: s1, kind: "inputText", text: "sh" },
    { screen: screenOf(field(true, "sh")), kind: "inputText", text: "oes" },
  ]);
  const p = projectTrail(events, { screens, heuristics: "v2" });
  assertEquals(parseTrail(p.yaml).trail[0]!.recording, [
    { kind: "inputText", selector: { id: "search_src_text" }, text: "{{searchTerm}}" },
  ]);
  assertEquals(parseTrail(p.yaml).config.memory, { searchTerm: "shoes" });
});

Deno.test("projectTrail() keeps xy and flags a point that hits nothing", () => {
  const { events, screens } = buildCapture("android", [
    { step: "Tap outside", screen: counter("1"), kind: "tap", point: { x: 5000, y: 5000 } },
  ]);
  const p = projectTrail(events, { screens });
  assertEquals(parseTrail(p.yaml).trail[0]!.recording, [
    { kind: "tap", selector: { xy: [5000, 5000], viewport: { width: 1080, height: 2400 } } },
  ]);
  assertStringIncludes(p.explain[0]!.lines.join("\n"), "flagged: no node contains (5000, 5000)");
});

Deno.test("projectTrail() replaces a runtime selector that picked another node", () => {
  const s = screenOf(btn("cancel", "OK", 300), btn("ok", "Confirm", 600));
  const { events, screens } = buildCapture("android", [
    { step: "Confirm", screen: s, kind: "tap", point: { x: 5, y: 650 }, runtime: { text: "OK" } },
  ]);
  const p = projectTrail(events, { screens, heuristics: "v2" });
  assertEquals(parseTrail(p.yaml).trail[0]!.recording, [{ kind: "tap", selector: { id: "ok" } }]);
  assertStringIncludes(p.explain[0]!.lines.join("\n"), "resolves to a different node");
});

Deno.test("projectTrail() marks a step not recordable when strict mode finds no exact property", () => {
  const s = screenOf(
    makeNode({
      className: "android.widget.Button",
      text: "Go",
      clickable: true,
      bounds: { x: 0, y: 0, w: 100, h: 100 },
    }),
  );
  const { events, screens } = buildCapture("android", [
    { step: "Go", screen: s, kind: "tap", point: { x: 50, y: 50 } },
  ]);
  const p = projectTrail(events, { screens, mode: "strict" });
  assertEquals(parseTrail(p.yaml).trail[0], { step: "Go", recordable: false });
  assertStringIncludes(p.warnings[0]!, "not recordable in strict mode");
});

Deno.test("projectTrail() applies a per-step selector mode override", () => {
  const s = screenOf(btn("go", "Go", 300));
  const { events, screens } = buildCapture("android", [
    { step: "Go", screen: s, kind: "tap", point: { x: 5, y: 350 } },
  ]);
  const p = projectTrail(events, { screens, mode: "strict", stepModes: { 0: "flexible" } });
  assertEquals(parseTrail(p.yaml).trail[0], {
    step: "Go",
    selectorMode: "flexible",
    recording: [{ kind: "tap", selector: { text: "Go" } }],
  });
});

Deno.test("projectTrail() types a value read earlier as its captured slot, not a new input", () => {
  const order = screenOf(label("order-number", "A-10442", 300));
  const search = screenOf(
    makeNode({
      className: "android.widget.EditText",
      resourceId: "search",
      focused: true,
      bounds: { x: 0, y: 100, w: 1080, h: 100 },
    }),
  );
  const { events, screens } = buildCapture("android", [
    {
      step: "Note the order number",
      screen: order,
      kind: "readText",
      point: { x: 5, y: 350 },
      value: "A-10442",
    },
    { step: "Search for the order", screen: search, kind: "inputText", text: "A-10442" },
  ]);
  const t = parseTrail(projectTrail(events, { screens }).yaml);
  assertEquals(t.trail[1]!.recording, [{ kind: "inputText", text: "{{orderNumber}}" }]);
  assertEquals(t.config.memory, undefined);
});

Deno.test("projectTrail() under v1 marks a step with no successful action, or none at all, not recordable", () => {
  const { events, screens } = buildCapture("android", [
    { step: "Add an apple", screen: counter("1"), kind: "tap", point: { x: 5, y: 650 } },
    {
      step: "Verify the total is the price doubled",
      screen: counter("2"),
      kind: "assertVisible",
      point: { x: 5, y: 350 },
      expected: "4",
      ok: false,
    },
  ]);
  events.push({ type: "StepStarted", data: { index: 2, text: "Check the receipt" } });
  // v1: a step with no action at all is not recordable either (v2 writes `recording: []`)
  const p = projectTrail(events, { screens, heuristics: "v1" });
  assertStringIncludes(
    p.yaml,
    [
      "  - step: Verify the total is the price doubled",
      "    recordable: false",
      "  - step: Check the receipt",
      "    recordable: false",
      "",
    ].join("\n"),
  );
  assertEquals(parseTrail(p.yaml).trail.map((s) => s.recordable), [undefined, false, false]);
  assertEquals(p.warnings, [
    'Step 2 "Verify the total is the price doubled" is not recordable: no action succeeded, ' +
    "nothing to replay (failed: assertVisible (failed))",
    'Step 3 "Check the receipt" is not recordable: no action was captured',
  ]);
  assertEquals(p.explain[1]!.outcome, "dropped: failed call dropped (failed)");
});
