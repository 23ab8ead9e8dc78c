/**
 * Heuristics v2's value changes (generalization, slots, expressions, concision), each on the
 * real capture it was found in or a tiny fixture, and each checked to leave v1 as it was.
 */
import { assert, assertEquals } from "./assert.ts";
import { formatPattern } from "../engine/optimizer/generalize.ts";
import { countNoun, shapePattern } from "../engine/optimizer/value_shape.ts";
import { parseTrail, type Trail, type TrailAction } from "../engine/trail.ts";
import { projectTrail } from "../engine/trail_projection.ts";
import { loadCaptureFile } from "./optimizer_support.ts";

const DIR = new URL("./testdata/optimizer_v2/", import.meta.url).pathname;

async function trailOf(name: string, heuristics: string): Promise<Trail> {
  const c = await loadCaptureFile(`${DIR}${name}.capture.json`, name);
  return parseTrail(projectTrail(c.events, { screens: c.screens, heuristics }).yaml);
}

function actionOf(t: Trail, step: string, kind: string): TrailAction | undefined {
  return t.trail.find((s) => s.step === step)?.recording?.find((a) => a.kind === kind);
}

Deno.test("shapePattern() keeps code prefixes and fixed widths, generalizes lone numbers", () => {
  const cases: [string, string | undefined][] = [
    ["ORD-2026-004217", "ORD-\\d{4}-\\d{6}"],
    ["Updated 02:55:13", "Updated \\d{2}:\\d{2}:\\d{2}"],
    ["Order #42", "Order #\\d+"],
    ["Page 3 of 10", "Page \\d+ of \\d+"],
    ["Checkout (1 item) $25.00", "Checkout \\(\\d+ items?\\) \\$\\d+\\.\\d{2}"],
    ["ML4XV8YWNMESK", "[A-Z0-9]{13}"],
    ["US", undefined],
    ["x".repeat(70) + "1", undefined],
  ];
  for (const [value, pattern] of cases) {
    assertEquals(shapePattern(value), pattern, value);
    if (pattern) assert(new RegExp(`^(?:${pattern})$`).test(value), value);
  }
});

Deno.test("countNoun() accepts the singular and the plural of a counted noun", () => {
  for (
    const [word, forms] of [["items", ["1 item", "2 items"]], ["entries", ["1 entry"]]] as const
  ) {
    const re = new RegExp(`^\\d+ ${countNoun(word)}$`);
    for (const f of forms) assert(re.test(f), `${word}: ${f}`);
  }
});

Deno.test("formatPattern() adds ISO date-time, semver and a plural-aware count only at level 2", () => {
  assertEquals(formatPattern("2026-11-24 02:57"), undefined);
  assertEquals(formatPattern("1.0.0"), undefined);
  assertEquals(formatPattern("2 items")?.pattern, "\\d+ items");
  assertEquals(formatPattern("2026-11-24 02:57", { level: 2 }), {
    name: "date-time",
    pattern: "\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}",
  });
  assertEquals(formatPattern("1.0.0", { level: 2 }), {
    name: "version",
    pattern: "\\d+\\.\\d+\\.\\d+",
  });
  const count = formatPattern("2 items", { level: 2 })!.pattern;
  assertEquals(count, "\\d+ items?");
  assert(new RegExp(`^(?:${count})$`).test("1 item"));
});

Deno.test("projectTrail() v2 turns the shop's order number, order time and item count into their formats", async () => {
  const v2 = await trailOf("shop", "v2");
  assertEquals(actionOf(v2, "Verify an order number is shown", "assertText"), {
    kind: "assertText",
    selector: { id: "ord" },
    matches: "ORD-\\d{4}-\\d{6}",
  });
  assertEquals(actionOf(v2, "Verify the order time is displayed", "assertText"), {
    kind: "assertText",
    selector: { id: "placed" },
    matches: "\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}",
  });
  assertEquals(
    actionOf(v2, "Verify the item count is shown", "assertText")?.matches,
    "\\d+ items?",
  );
  const v1 = await trailOf("shop", "v1");
  assertEquals(
    actionOf(v1, "Verify an order number is shown", "assertText")?.equals,
    "ORD-2026-004217",
  );
  assertEquals(
    actionOf(v1, "Verify the order time is displayed", "assertText")?.equals,
    "2026-11-24 02:57",
  );
  assertEquals(actionOf(v1, "Verify the item count is shown", "assertText")?.matches, "\\d+ items");
});

Deno.test("projectTrail() v2 turns the form's version number into semver", async () => {
  const step = "Open About and verify a version number is shown";
  const v2 = await trailOf("form", "v2");
  assertEquals(actionOf(v2, step, "assertText"), {
    kind: "assertText",
    selector: { id: "version" },
    matches: "\\d+\\.\\d+\\.\\d+",
  });
  assertEquals(actionOf(await trailOf("form", "v1"), step, "assertText")?.equals, "1.0.0");
});
