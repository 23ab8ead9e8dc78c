/**
 * The generalization's reading of the NL step under heuristics v2: a format asked for after a
 * read is the format, not the read slot; a format noun naming a particular value stays exact.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { formatPattern, isFormatIntent } from "../../../engine/optimizer/generalize.ts";
import { parseTrail, type TrailAction } from "../../../engine/trail/trail.ts";
import { projectTrail } from "../../../engine/optimizer/trail_projection.ts";
import { makeNode, type Screen } from "../../../engine/screens/ui_node.ts";
import {
  buildCapture,
  loadCaptureFile,
  type ScriptAction,
} from "../../_fixtures/optimizer_support.ts";

const DIR = new URL("../../testdata/optimizer_slots/", import.meta.url).pathname;

async function project(path: string, heuristics: string) {
  const c = await loadCaptureFile(path, "t");
  const p = projectTrail(c.events, { screens: c.screens, heuristics });
  return { trail: parseTrail(p.yaml), explain: p.explain };
}

Deno.test("projectTrail() v2 writes the date format for Gmail's 'Verify a date is shown' after noting the date, v1 the slot", async () => {
  const v2 = await project(`${DIR}gm.capture.json`, "v2");
  const step = v2.trail.trail.find((s) => s.step === "Verify a date is shown")!;
  assertEquals(step.recording, [{
    kind: "assertText",
    selector: { id: "com.google.android.gm:id/date" },
    matches: "[A-Z][a-z]{2,8} \\d{1,2}",
  }]);
  const lines = v2.explain.find((e) => e.stepText === "Verify a date is shown")!.lines;
  assert(
    lines.some((l) => l.startsWith("not {{emailDate}}: the NL asks for a format")),
    lines.join("\n"),
  );
  // the read that noted the date is unchanged
  assertEquals(v2.trail.trail.find((s) => s.step === "Note the date of the email")!.recording, [{
    kind: "readText",
    selector: { id: "com.google.android.gm:id/date" },
    storeAs: "emailDate",
  }]);
  const v1 = await project(`${DIR}gm.capture.json`, "v1");
  assertEquals(v1.trail.trail.find((s) => s.step === "Verify a date is shown")!.recording, [{
    kind: "assertText",
    selector: { id: "com.google.android.gm:id/date" },
    equals: "{{emailDate}}",
  }]);
});

function dateScreen(value: string): Screen {
  const root = makeNode({
    className: "android.widget.FrameLayout",
    bounds: { x: 0, y: 0, w: 1080, h: 2400 },
    children: [
      makeNode({
        className: "android.widget.TextView",
        resourceId: "date",
        text: value,
        bounds: { x: 0, y: 500, w: 1080, h: 100 },
      }),
    ],
  });
  return { platform: "android", format: "uiautomator2", root, width: 1080, height: 2400 };
}

/** A date read (and stored by the agent as `orderDate`), then asserted in the next step. */
function readThenAssert(assertStep: string, value: string): TrailAction | undefined {
  const s = dateScreen(value);
  const memory = { orderDate: value };
  const script: ScriptAction[] = [
    {
      step: "Note the order date",
      screen: s,
      kind: "readText",
      point: { x: 5, y: 550 },
      value,
      storeAs: "orderDate",
      memory,
      writtenBy: { orderDate: "memory.set" },
    },
    {
      step: assertStep,
      screen: s,
      kind: "assertText",
      point: { x: 5, y: 550 },
      expected: value,
      memory,
    },
  ];
  const { events, screens } = buildCapture("android", script);
  const t = parseTrail(projectTrail(events, { screens, heuristics: "v2" }).yaml);
  return t.trail[1]!.recording?.[0];
}

Deno.test("projectTrail() v2 asserts a format after a read only when the NL asks for one", () => {
  const sel = { id: "date" };
  // the memory holds the value read too: no reverse substitution brings the tautology back
  assertEquals(readThenAssert("Verify a date appears", "March 9, 2026"), {
    kind: "assertText",
    selector: sel,
    matches: "\\w+ \\d{1,2}, \\d{4}",
  });
  // equality with the value read, or the read value named: the slot
  for (const nl of ["Verify the date is still the same", "Verify the order's date is shown"]) {
    assertEquals(
      readThenAssert(nl, "March 9, 2026"),
      { kind: "assertText", selector: sel, equals: "{{orderDate}}" },
      nl,
    );
  }
  // no format fits a value without a digit: the slot is kept rather than the literal
  assertEquals(readThenAssert("Verify a date is shown", "Yesterday"), {
    kind: "assertText",
    selector: sel,
    equals: "{{orderDate}}",
  });
});

Deno.test("isFormatIntent() v2 tells a particular value named from any value of a format", () => {
  const particular = [
    "Verify the detail panel shows the selected product's id",
    "Verify the panel shows the id of the order",
    "Verify the order shows its date",
    "Verify the user’s email is displayed",
    "Verify the noted order number is shown",
  ];
  const formats = [
    "Verify an id is shown",
    "Verify the page shows an order number",
    "Verify a date appears",
    "Verify a price is shown",
    "Verify item count shown",
    "Verify that a date is shown",
    "Verify the id of each row is shown",
    "Verify the selected row shows a date",
  ];
  for (const nl of particular) {
    assert(isFormatIntent(nl, "x-1"), `v1 reads ${nl} as a format`);
    assert(!isFormatIntent(nl, "x-1", 2), nl);
  }
  for (const nl of formats) {
    assert(isFormatIntent(nl, "x-1"), nl);
    assert(isFormatIntent(nl, "x-1", 2), nl);
  }
  assert(!isFormatIntent("Verify total is correct", "$5.00", 2));
});

Deno.test("projectTrail() v2 keeps the selected product's id exact, as v1 does", async () => {
  const path = "tests/testdata/optimizer_v2/dup.capture.json";
  for (const heuristics of ["v1", "v2"]) {
    const { trail } = await project(path, heuristics);
    const step = trail.trail.find((s) =>
      s.step === "Verify the detail panel shows the selected product's id"
    )!;
    assertEquals(step.recording?.find((a) => a.kind === "assertText"), {
      kind: "assertText",
      selector: { id: "detail-id" },
      equals: "office-1",
    }, heuristics);
  }
});

Deno.test("formatPattern() v2 knows a month and day date ('Mar 10', '10 March 2026'), v1 does not", () => {
  assertEquals(formatPattern("Mar 10"), undefined);
  for (
    const [v, pattern] of [
      ["Mar 10", "[A-Z][a-z]{2,8} \\d{1,2}"],
      ["September 3", "[A-Z][a-z]{2,8} \\d{1,2}"],
      ["10 March 2026", "\\d{1,2} [A-Z][a-z]{2,8} \\d{4}"],
      ["4 Jul", "\\d{1,2} [A-Z][a-z]{2,8}"],
    ]
  ) {
    const f = formatPattern(v!, { level: 2 });
    assertEquals(f, { name: "date", pattern: pattern! }, v);
    assert(new RegExp(`^(?:${f!.pattern})$`).test(v!), v);
  }
  assertEquals(formatPattern("Page 3", { level: 2 }), undefined);
});
