/**
 * Heuristics v2's web selector choice on the exploratory tester's sessions (shop, duplicate
 * list, form) and Chrome Recorder flows of the corpus: each test fails under v2 as v1 made it
 * and checks that v1's output of the same capture is what it was.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { optimize, type OptimizeResult } from "../../../engine/optimizer/optimize.ts";
import { dynamicPattern } from "../../../engine/optimizer/anchors.ts";
import { regexLiterals, webCascade } from "../../../engine/playback/cascade.ts";
import { targetFromTrailSelectors } from "../../../engine/playback/from_trail.ts";
import {
  type Selector,
  type SelectorMode,
  textAnchors,
  type TrailAction,
} from "../../../engine/trail/trail.ts";
import { makeNode, type Screen } from "../../../engine/screens/ui_node.ts";
import {
  buildCapture,
  loadCaptureFile,
  loadEventsFile,
} from "../../_fixtures/optimizer_support.ts";

const DATA = new URL("../../testdata/optimizer_v2/", import.meta.url).pathname;
const CORPUS = new URL("../../../../shared/corpus/chrome-recorder/", import.meta.url).pathname;

async function run(
  file: string,
  heuristics: string,
  mode: SelectorMode = "adaptive",
): Promise<OptimizeResult> {
  const cap = file.endsWith(".jsonl")
    ? await loadEventsFile(file)
    : await loadCaptureFile(file, "s-v2");
  return optimize(cap.events, cap.screens, { heuristics, mode });
}

/** Every action of a trail by step (1-based), `undefined` for a step that is not recordable. */
function steps(r: OptimizeResult): (TrailAction[] | undefined)[] {
  return r.trail.trail.map((s) => s.recording);
}

function selectorsOf(a: TrailAction): Selector[] {
  return [...(a.selector ? [a.selector] : []), ...(a.selectors ?? [])];
}

const VALUE_KINDS = new Set(["readText", "assertText", "assertVisible"]);

Deno.test("optimize() v2 gives a read and an assertion on row text without an id a row-anchored pattern, not coordinates the player refuses", async () => {
  const v2 = steps(await run(`${DATA}shop.capture.json`, "v2"));
  assertEquals(v2[0]![0]!.selector, {
    textRegex: "\\$\\d[\\d.,]*",
    childOf: { text: "Cactus" },
  });
  assertEquals(v2[2]![0]!.selector, {
    textRegex: "\\d+ items?",
    childOf: { text: "Items in cart:" },
  });
  assertEquals(v2[2]![0]!.matches, "\\d+ items?");
  for (const mode of ["adaptive", "flexible", "strict"] as const) {
    const r = await run(`${DATA}shop.capture.json`, "v2", mode);
    for (const a of steps(r).flat()) {
      if (!a || !VALUE_KINDS.has(a.kind)) continue;
      // the reads and the count on text: no coordinates at all; the total check, kept on the
      // checkout button the agent named (a control the player may reach by its point): only
      // as the last fallback
      const all = selectorsOf(a);
      const onButton = a.selectors?.[0]?.cssPath === "body > header > button";
      assert(
        onButton ? all.slice(0, -1).every((s) => s.xy === undefined) : all.every((s) => !s.xy),
        `${mode}: ${JSON.stringify(a)}`,
      );
    }
  }
  // v1 keeps what stored trails have
  const v1 = steps(await run(`${DATA}shop.capture.json`, "v1"));
  assertEquals(v1[0]![0]!.selector?.xy, [118, 92]);
});

Deno.test("optimize() v2 marks a read with neither an id nor a row text to anchor it not recordable, with a warning", () => {
  const text = (t: string, x: number) =>
    makeNode({
      className: "StaticText",
      role: "StaticText",
      text: t,
      name: t,
      attrs: { tag: "#text" },
      bounds: { x, y: 10, w: 50, h: 20 },
    });
  const root = makeNode({
    className: "RootWebArea",
    role: "RootWebArea",
    bounds: { x: 0, y: 0, w: 800, h: 600 },
    children: [text("$5.00", 0), text("$7.00", 100)],
  });
  const screen: Screen = { platform: "web", format: "chrome", root, width: 800, height: 600 };
  const { events, screens } = buildCapture("web", [
    { step: "Note the price", screen, kind: "readText", point: { x: 120, y: 20 }, value: "$7.00" },
  ]);
  const v1 = optimize(events, screens, { heuristics: "v1" });
  assertEquals(v1.trail.trail[0]!.recording![0]!.selector?.xy, [120, 20]);
  const v2 = optimize(events, screens, { heuristics: "v2" });
  assertEquals(v2.trail.trail[0]!.recordable, false);
  assert(
    v2.warnings.some((w) => w.includes("Note the price") && w.includes("not recordable")),
    v2.warnings.join("\n"),
  );
});

Deno.test("optimize() v2 keeps no coordinates for a tap whose point hit nothing on the captured screen", () => {
  const root = makeNode({
    className: "RootWebArea",
    role: "RootWebArea",
    bounds: { x: 0, y: 0, w: 800, h: 600 },
  });
  const screen: Screen = { platform: "web", format: "chrome", root, width: 800, height: 600 };
  const { events, screens } = buildCapture("web", [
    { step: "Tap outside", screen, kind: "tap", point: { x: 900, y: 700 } },
  ]);
  const v1 = optimize(events, screens, { heuristics: "v1" });
  assertEquals(v1.trail.trail[0]!.recording![0]!.selector?.xy, [900, 700]);
  const v2 = optimize(events, screens, { heuristics: "v2" });
  assertEquals(v2.trail.trail[0]!.recordable, false);
  assert(v2.warnings.some((w) => w.includes("no resolved element")), v2.warnings.join("\n"));
});

Deno.test("optimize() v2 turns a name holding a count and a total into a pattern of the text, and keeps a product's own numbers", async () => {
  const shop = steps(await run(`${DATA}shop.capture.json`, "v2"));
  const checkout = selectorsOf(shop[5]![0]!);
  assertEquals(checkout[0], { textRegex: "Checkout \\(\\d+ items?\\) \\$\\d[\\d.,]*" });
  assert(checkout.every((s) => s.name === undefined), JSON.stringify(checkout));
  const flexible = steps(await run(`${DATA}shop.capture.json`, "v2", "flexible"));
  assertEquals(selectorsOf(flexible[5]![0]!), [
    { textRegex: "Checkout \\(\\d+ items?\\) \\$\\d[\\d.,]*" },
  ]);
  const walmart = steps(await run(`${CORPUS}catchpoint_walmart-product.json`, "v2"))[0]!;
  const cart = walmart.find((a) => selectorsOf(a).some((s) => s.textRegex !== undefined))!;
  assertEquals(selectorsOf(cart)[0], { textRegex: "View cart \\(\\d+\\)" });
  assert(!JSON.stringify(walmart).includes('"View cart (1)"'));
  assert(JSON.stringify(walmart).includes("ZURU (3 Pack)"), "a pack size is no count");
  const v1 = steps(await run(`${DATA}shop.capture.json`, "v1"));
  assertEquals(selectorsOf(v1[5]![0]!)[0], { role: "button", name: "Checkout (2 items) $37.50" });
});

Deno.test("dynamicPattern() turns counts, prices and times into digits, and leaves other numbers", () => {
  assertEquals(
    dynamicPattern("Checkout (1 item) $25.00"),
    "Checkout \\(\\d+ items?\\) \\$\\d[\\d.,]*",
  );
  assertEquals(dynamicPattern("Updated 02:55:13"), "Updated \\d+:\\d+:\\d+");
  assertEquals(dynamicPattern("Step 2 of 3"), undefined);
  assertEquals(dynamicPattern("iPhone 15"), undefined);
  assertEquals(dynamicPattern("$12.50"), "\\$\\d[\\d.,]*");
  assertEquals(dynamicPattern("7", true), "\\d+");
  const re = new RegExp(`^(?:${dynamicPattern("Checkout (2 items) $37.50")})$`);
  assert(re.test("Checkout (12 items) $1,237.50") && !re.test("Checkout (2 items)"));
});

Deno.test("optimize() v2 scopes a button repeated in every row to its row by the row's texts, not by its position", async () => {
  const file = `${DATA}dup.capture.json`;
  for (const mode of ["adaptive", "flexible"] as const) {
    const v2 = steps(await run(file, "v2", mode));
    assertEquals(selectorsOf(v2[0]![0]!), [{
      text: "View",
      childOf: { text: "Premium Cable", childOf: { text: "Office Supplies" } },
    }]);
    // identical rows: counted among the rows that show "Accessories", not among all rows
    assertEquals(selectorsOf(v2[2]![0]!), [{
      text: "View",
      index: 1,
      childOf: { text: "Accessories" },
    }]);
  }
  const v1 = steps(await run(file, "v1"));
  assertEquals(selectorsOf(v1[0]![0]!)[0], { role: "button", name: "View", index: 3 });
});

Deno.test("optimize() v2 keeps the text a visibility check saw", async () => {
  const file = `${DATA}dup.capture.json`;
  for (const mode of ["adaptive", "strict"] as const) {
    const check = steps(await run(file, "v2", mode))[1]![2]!;
    assertEquals(check, {
      kind: "assertText",
      selector: { id: "detail-name" },
      equals: "Premium Cable",
    });
  }
  const flexible = steps(await run(file, "v2", "flexible"))[1]![2]!;
  assertEquals(flexible.selector, { text: "Premium Cable", childOf: { id: "detail-panel" } });
  const v1 = steps(await run(file, "v1"))[1]![2]!;
  assertEquals(v1, { kind: "assertVisible", selector: { id: "detail-name" } });
});

Deno.test("optimize() v2 reads a Recorder flow's aria/Name as a name, not a guessed aria-label: strict takes the recorded id first, lists say the name once", async () => {
  const file = `${CORPUS}nightwatch_order-a-coffee.json`;
  const strict = steps(await run(file, "v2", "strict"))[0]!;
  const clicks = strict.filter((a) => a.kind === "tap").map((a) => a.selector);
  assert(clicks.some((s) => s?.id === "submit-payment"), JSON.stringify(clicks));
  assert(clicks.some((s) => s?.id === "promotion-label"), JSON.stringify(clicks));
  assert(clicks.some((s) => s?.name === "Cart page"), JSON.stringify(clicks));
  assert(clicks.every((s) => s?.ariaLabel === undefined), JSON.stringify(clicks));
  for (const mode of ["adaptive", "flexible"] as const) {
    for (const a of steps(await run(file, "v2", mode))[0]!) {
      const sels = selectorsOf(a);
      const labels = sels.map((s) => s.ariaLabel).filter((l) => l !== undefined);
      const names = sels.map((s) => s.name).filter((n) => n !== undefined);
      assertEquals(labels.filter((l) => names.includes(l)), [], `${mode}: ${JSON.stringify(sels)}`);
    }
  }
  const v1 = steps(await run(file, "v1", "strict"))[0]!;
  assert(v1.some((a) => a.selector?.ariaLabel === "Submit"));
});

Deno.test("optimize() v2 in strict mode takes an authored id over copy and a unique role + name; in flexible mode a label over a glyph", async () => {
  const file = `${DATA}form.capture.json`;
  const strict = await run(file, "v2", "strict");
  const s = steps(strict);
  assertEquals(s[1]![0]!.selector, { id: "name-input" });
  assertEquals(s[2]![0]!.selector, { id: "email-input" });
  assertEquals(s[4]![0]!.selector, { role: "button", name: "Submit" });
  assertEquals(s[7]![0]!.selector, { id: "increment-btn" });
  assertEquals(strict.warnings, []);
  const flexible = steps(await run(file, "v2", "flexible"));
  assertEquals(flexible[7]![0]!.selector, { ariaLabel: "Increment" });
  const v1 = steps(await run(file, "v1", "strict"));
  assertEquals(v1[1]![0]!.selector, { ariaLabel: "Name" });
  assertEquals(v1[4], undefined);
  assertEquals(steps(await run(file, "v1", "flexible"))[7]![0]!.selector, { text: "+" });
});

Deno.test("webCascade() looks a trail's text-only childOf (a row anchor, textAnchors()) up by XPath", () => {
  const sel: Selector = { text: "Add", childOf: { text: "Cactus" } };
  assertEquals(textAnchors(sel), ["Cactus"]);
  assertEquals(textAnchors({ text: "Add", childOf: { id: "list" } }), undefined);
  const target = targetFromTrailSelectors([sel]);
  assertEquals(target.within, { texts: ["Cactus"] });
  const levels = webCascade(target, "adaptive");
  assertEquals(levels.map((l) => l.strategy), ["text"]);
  assertEquals(
    levels[0]!.queries[0]!.value,
    '//body//*[text()[. = "Add"]][ancestor::*[.//text()[translate(normalize-space(.), ' +
      '"ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz") = "cactus"]][1]' +
      '[count(.//*[text()[. = "Add"]]) = 1]]',
  );
  assertEquals(regexLiterals("Cart \\(\\d+ items?\\)"), ["Cart (", " item", ")"]);
  assertEquals(regexLiterals("a(b|c)"), undefined);
});
