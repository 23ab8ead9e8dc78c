/**
 * Heuristics v2's value changes (generalization, slots, expressions, concision), each on the
 * real capture it was found in or a tiny fixture, and each checked to leave v1 as it was.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { formatPattern } from "../../../engine/optimizer/generalize.ts";
import { interpolateValues } from "../../../engine/optimizer/substitution.ts";
import { countNoun, shapePattern } from "../../../engine/optimizer/value_shape.ts";
import { parseTrail, type Trail, type TrailAction } from "../../../engine/trail/trail.ts";
import { projectTrail } from "../../../engine/optimizer/trail_projection.ts";
import { loadCaptureFile } from "../../_fixtures/optimizer_support.ts";

const DIR = new URL("../../testdata/optimizer_v2/", import.meta.url).pathname;

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

Deno.test("interpolateValues() places whole values at word boundaries, longest first, never a short one", () => {
  const values = {
    message: "Hello from Trail Blaze, sent today",
    name: "Trail Blaze",
    email: "trail@example.com",
    code: "42",
    city: "Paris",
  };
  const r = interpolateValues(
    "Name: Trail Blaze, Email: trail@example.com, Code: 42, City: Paris, Message: Hello from Trail Blaze, sent today",
    values,
  );
  assertEquals(
    r.template,
    "Name: {{name}}, Email: {{email}}, Code: 42, City: Paris, Message: {{message}}",
  );
  assertEquals(r.keys, ["message", "email", "name"]);
  assertEquals(r.rejected, [
    "city: value shorter than 8 characters: too ambiguous inside a longer text",
  ]);
  // a provisioned key counts from 3 characters; a value inside a longer word never
  const p = interpolateValues("Store 4821 of Trailblazers", { code: "4821", name: "Trailblaze" }, {
    writtenBy: { code: "merchantFactory_loadAccount" },
  });
  assertEquals(p.template, "Store {{code}} of Trailblazers");
  assertEquals(p.rejected, ["name: only inside a longer word or value"]);
  assertEquals(
    interpolateValues("Hi {{x}} Trail Blaze", { name: "Trail Blaze" }).template,
    undefined,
  );
});

Deno.test("projectTrail() v2 writes the merchant's signed-in line with {{merchant_email}}", async () => {
  const c = await loadCaptureFile("examples/merchant.capture.json", "merchant");
  const line = (heuristics: string) =>
    parseTrail(projectTrail(c.events, { screens: c.screens, heuristics }).yaml).trail
      .flatMap((s) => s.recording ?? []).find((a) => a.selector?.id === "signed-in-as");
  assertEquals(line("v2"), {
    kind: "assertText",
    selector: { id: "signed-in-as" },
    equals: "Signed in as {{merchant_email}}",
  });
  assertEquals(
    line("v1")?.equals,
    "Signed in as trailblaze+merchant.coffee-shop.abc123@example.com",
  );
});

Deno.test("projectTrail() v2 writes the form summary with the typed name, email and message", async () => {
  const step = "Verify the summary names the sender";
  const v2 = await trailOf("form", "v2");
  assertEquals(
    actionOf(v2, step, "assertText")?.equals,
    "Name: {{name}}, Email: {{email}}, Category: , Message: {{message}}",
  );
  assertEquals(v2.config.memory, {
    email: "trail@example.com",
    message: "Hello from Trail Blaze, sent 2026-11-24 02:55",
    name: "Trail Blaze",
  });
  assertEquals(
    actionOf(await trailOf("form", "v1"), step, "assertText")?.equals,
    "Name: Trail Blaze, Email: trail@example.com, Category: , Message: Hello from Trail Blaze, sent 2026-11-24 02:55",
  );
});

const TOTAL_STEP = "Verify the cart total is the fern price plus the cactus price";

Deno.test("projectTrail() v2 keeps the shop's total check on the checkout button the agent named", async () => {
  const v2 = await trailOf("shop", "v2");
  assertEquals(v2.trail.find((s) => s.step === TOTAL_STEP)?.recording, [{
    kind: "assertText",
    selectors: [
      { cssPath: "body > header > button" },
      { xy: [229, 27], viewport: { width: 1280, height: 800 } },
    ],
    equals: "Checkout (2 items) $37.50",
  }]);
  // v1: the "2 items" span under the point, its visibility only
  assertEquals(
    (await trailOf("shop", "v1")).trail.find((s) => s.step === TOTAL_STEP)?.recording,
    [{ kind: "assertVisible", selector: { id: "cnt" } }],
  );
});

Deno.test("projectTrail() v2 writes the shop's total as the sum of the two prices read", async () => {
  const capture = JSON.parse(await Deno.readTextFile(`${DIR}shop.capture.json`));
  const cactus = capture.actions[0];
  capture.actions.unshift({
    ...cactus,
    id: "fern-read",
    coordinates: { x: 103, y: 70 },
    storeAs: "fernPrice",
    toolParams: { ref: "f1", storeAs: "fernPrice" },
    target: { role: "StaticText", name: "$25.00" },
    nlStep: "Note the fern price",
    value: "$25.00",
    memoryState: { fernPrice: "$25.00" },
    memoryWrittenBy: { fernPrice: "readText" },
  });
  const dir = await Deno.makeTempDir({ prefix: "cairn-v2-total-" });
  try {
    await Deno.writeTextFile(`${dir}/shop.capture.json`, JSON.stringify(capture));
    const c = await loadCaptureFile(`${dir}/shop.capture.json`, "shop-fern");
    const p = projectTrail(c.events, { screens: c.screens, heuristics: "v2" });
    const t = parseTrail(p.yaml);
    assertEquals(t.trail[0]!.recording![0]!.storeAs, "fernPrice");
    assertEquals(
      actionOf(t, TOTAL_STEP, "assertText")?.equals,
      "Checkout (2 items) {{fernPrice + cactusPrice}}",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("projectTrail() v2 hands seed 001's provisioning step to the agent (recordable: false), v1 froze it", async () => {
  const c = await loadCaptureFile("examples/merchant.capture.json", "merchant");
  const step = "Load the coffee shop merchant account";
  const v2 = projectTrail(c.events, { screens: c.screens, heuristics: "v2" });
  const t2 = parseTrail(v2.yaml);
  assertEquals(t2.trail[0], { step, recordable: false });
  assert(
    v2.warnings.some((w) =>
      w.startsWith(`Step 1 "${step}" is not recordable: merchantFactory_loadAccount provisions`)
    ),
    v2.warnings.join("\n"),
  );
  // the later steps read what the provisioning wrote; config.memory keeps this capture's values
  assertEquals(t2.trail[1]!.recording![0]!.text, "{{merchant_email}}");
  assertEquals(t2.config.memory?.merchant_token, "ML4XV8YWNMESK");
  const t1 = parseTrail(projectTrail(c.events, { screens: c.screens, heuristics: "v1" }).yaml);
  assertEquals(t1.trail[0], { step, recording: [] });
});

Deno.test("projectTrail() v2 writes a step with no captured action as an empty recording, v1 as not recordable", async () => {
  const c = await loadCaptureFile(`${DIR}shop.capture.json`, "shop");
  // a step started and left (the agent only looked), as blaze sessions record it
  const events = [...c.events];
  const first = events.findIndex((e) => e.type === "StepStarted");
  events.splice(first, 0, {
    type: "StepStarted",
    data: { index: 0, text: "Look at the shop" },
  });
  const v2 = projectTrail(events, { screens: c.screens, heuristics: "v2" });
  assertEquals(parseTrail(v2.yaml).trail[0], { step: "Look at the shop", recording: [] });
  assert(
    v2.warnings.includes(
      'Step 1 "Look at the shop" has no captured action: written with an empty recording (nothing to replay)',
    ),
    v2.warnings.join("\n"),
  );
  const v1 = projectTrail(events, { screens: c.screens, heuristics: "v1" });
  assertEquals(parseTrail(v1.yaml).trail[0], { step: "Look at the shop", recordable: false });
});

Deno.test("projectTrail() v2 explains a dropped failed call without a selector choice", async () => {
  const c = await loadCaptureFile("examples/inventory.capture.json", "inventory");
  const failed = (heuristics: string) =>
    projectTrail(c.events, { screens: c.screens, heuristics }).explain.find((x) => x.action === 2)!;
  const v2 = failed("v2");
  assertEquals(
    v2.outcome,
    'dropped: failed call dropped (No element with text "Sign in" is clickable)',
  );
  assertEquals(v2.lines, [
    'resolved by the runtime selector {"text":"Sign in"} (no point captured)',
  ]);
  assert(failed("v1").lines.includes('chose {"id":"screen-title"} (id, adaptive)'));
});
