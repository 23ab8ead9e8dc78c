/**
 * Heuristics v2's iOS tap target on real hierarchies: a tap or typing goes to the interactive
 * node drawn on top at the point, not a deeper, empty layer of an earlier sibling (Safari's
 * address field over the web view, Contacts' "Block Contact" over the alert's layers). The
 * Safari capture (`testdata/ios_v2/`) is built over the corpus XCUITest source, the Trailblaze
 * "block contact" waypoint and the Maestro React Native hierarchy; v1's trails stay as stored
 * (the `v1/` goldens, byte for byte). A sweep over every corpus iOS screen taps each labelled
 * interactive element and checks no tap lands on an unlabelled container.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import {
  buildCapture,
  loadCaptureFile,
  type ScriptAction,
} from "../../_fixtures/optimizer_support.ts";
import { optimize, type OptimizeResult } from "../../../engine/optimizer/optimize.ts";
import { projectTrail } from "../../../engine/optimizer/trail_projection.ts";
import { iosTarget } from "../../../engine/optimizer/ios_target.ts";
import { inputSlotName } from "../../../engine/nl/naming.ts";
import { parseHierarchy } from "../../../engine/screens/hierarchy.ts";
import { ScreenTable } from "../../../engine/screens/screen_table.ts";
import { makeNode, type UiNode } from "../../../engine/screens/ui_node.ts";
import type { SelectorMode, TrailAction } from "../../../engine/trail/trail.ts";

const DIR = new URL("../../testdata/ios_v2/", import.meta.url);
const CORPUS = new URL("../../../../shared/corpus/ios/", import.meta.url);

async function run(heuristics: string, mode?: SelectorMode): Promise<OptimizeResult> {
  const c = await loadCaptureFile(new URL("safari.capture.json", DIR).pathname, "safari");
  return optimize(c.events, c.screens, { heuristics, ...(mode ? { mode } : {}) });
}

function step(r: OptimizeResult, text: string): TrailAction[] {
  const s = r.trail.trail.find((s) => s.step === text);
  assert(s, `no step ${text}`);
  return s.recording ?? [];
}

function explainOf(r: OptimizeResult, action: number) {
  const e = r.explain.find((e) => e.action === action);
  assert(e, `no explain entry for action ${action}`);
  return e;
}

for (const mode of ["adaptive", "strict", "flexible"] as const) {
  Deno.test(`optimize() under v1 keeps the iOS Safari capture's ${mode} trail byte for byte`, async () => {
    const c = await loadCaptureFile(new URL("safari.capture.json", DIR).pathname, "safari");
    const got = projectTrail(c.events, { screens: c.screens, mode, heuristics: "v1" }).yaml;
    assertEquals(got, await Deno.readTextFile(new URL(`v1/safari.${mode}.yaml`, DIR)));
  });
}

Deno.test("optimize() under v2 types into Safari's Address field drawn over the web view, slot named from its label", async () => {
  const v2 = await run("v2");
  const [input] = step(v2, "Type a new address");
  assertEquals(input?.kind, "inputText");
  assertEquals(input?.selector, { id: "TabBarItemTitle" });
  assertEquals(input?.text, "{{address}}");
  assertEquals(v2.trail.config.memory, { address: "example.com" });
  for (const action of [3, 4]) { // the tap on the field and the typing, both at (215, 828)
    const e = explainOf(v2, action);
    assert(
      e.lines.some((l) => l.includes(`the interactive XCUIElementTypeTextField "Address"`)),
      e.lines.join("\n"),
    );
  }
  const v1 = await run("v1");
  const [old] = step(v1, "Type a new address");
  assertEquals(old?.selectors?.[0], { className: "XCUIElementTypeOther", index: 13 });
  assertEquals(v1.trail.config.memory, { input: "example.com" });
});

Deno.test("optimize() under v2 taps Contacts' Block Contact, not the empty alert layer beside it", async () => {
  const v2 = await run("v2");
  const [tap] = step(v2, "Block the contact");
  assertEquals(tap?.kind, "tap");
  assertEquals(tap?.selectors?.[0], { contentDescription: "Block Contact" });
  const strict = await run("v2", "strict");
  assertEquals(step(strict, "Block the contact")[0]?.selector, {
    contentDescription: "Block Contact",
  });
  const v1 = await run("v1");
  assertEquals(step(v1, "Block the contact")[0]?.selectors?.[0], {
    className: "XCUIElementTypeOther",
    index: 16,
  });
});

Deno.test("inputSlotName() with labelFirst names an iOS field by its label before its identifier", () => {
  const field = makeNode({
    className: "XCUIElementTypeTextField",
    resourceId: "TabBarItemTitle",
    contentDescription: "Address",
  });
  assertEquals(inputSlotName(field, "Type a new address", { labelFirst: true }), "address");
  assertEquals(inputSlotName(field, "Type a new address"), "tabBarItem");
  const email = makeNode({ className: "XCUIElementTypeTextField", resourceId: "emailField" });
  assertEquals(inputSlotName(email, "Sign in", { labelFirst: true }), "email");
});

function box(x: number, y: number, w: number, h: number) {
  return { x, y, w, h };
}

function wrap(n: UiNode): UiNode {
  return makeNode({ className: "XCUIElementTypeOther", bounds: n.bounds, children: [n] });
}

Deno.test("iosTarget() keeps a label over the control, a nested control, and a whole-covering catch-all's victim", () => {
  // A web view's deep empty layer, a toolbar button drawn after it, a label drawn over the button.
  const layer = makeNode({ className: "XCUIElementTypeOther", bounds: box(0, 0, 100, 100) });
  const web = makeNode({
    className: "XCUIElementTypeWebView",
    bounds: box(0, 0, 100, 100),
    children: [
      makeNode({
        className: "XCUIElementTypeOther",
        bounds: box(0, 0, 100, 100),
        children: [layer],
      }),
    ],
  });
  const button = makeNode({
    className: "XCUIElementTypeButton",
    clickable: true,
    contentDescription: "Back",
    bounds: box(0, 80, 50, 20),
  });
  const inner = makeNode({
    className: "XCUIElementTypeSwitch",
    clickable: true,
    contentDescription: "Wi-Fi",
    bounds: box(60, 80, 20, 20),
  });
  const cell = makeNode({
    className: "XCUIElementTypeCell",
    clickable: true,
    contentDescription: "Row",
    bounds: box(50, 80, 50, 20),
    children: [inner],
  });
  const badge = makeNode({
    className: "XCUIElementTypeStaticText",
    text: "3",
    bounds: box(40, 80, 10, 10),
  });
  const root = makeNode({
    className: "XCUIElementTypeWindow",
    bounds: box(0, 0, 100, 100),
    children: [web, button, cell, wrap(wrap(wrap(badge)))], // the badge is the deepest there
  });
  const t = ScreenTable.from({
    platform: "ios",
    format: "xcuitest",
    root,
    width: 100,
    height: 100,
  });
  const at = (x: number, y: number) => iosTarget(t, t.hitTest({ x, y }), { x, y }, "tap").node;
  assertEquals(at(10, 90), t.indexOf(button)); // over the web view's empty layer
  assertEquals(at(45, 85), t.indexOf(badge)); // a label drawn over the button
  assertEquals(at(65, 85), t.indexOf(inner)); // a control nested in the cell
  assertEquals(at(90, 85), t.indexOf(cell));
  assertEquals(at(10, 10), t.indexOf(layer)); // nothing interactive there
  assertEquals(
    iosTarget(t, t.hitTest({ x: 10, y: 90 }), { x: 10, y: 90 }, "scroll").node,
    t.indexOf(layer),
  );
  // A full-screen dismiss region listed after the sheet covers the sheet's empty layer whole.
  const sheetLayer = makeNode({ className: "XCUIElementTypeOther", bounds: box(0, 50, 100, 50) });
  const sheet = makeNode({
    className: "XCUIElementTypeOther",
    bounds: box(0, 50, 100, 50),
    children: [sheetLayer],
  });
  const dismiss = makeNode({
    className: "XCUIElementTypeButton",
    clickable: true,
    resourceId: "PopoverDismissRegion",
    bounds: box(0, 0, 100, 100),
  });
  const t2 = ScreenTable.from({
    platform: "ios",
    format: "xcuitest",
    root: makeNode({
      className: "XCUIElementTypeWindow",
      bounds: box(0, 0, 100, 100),
      children: [sheet, dismiss],
    }),
    width: 100,
    height: 100,
  });
  assertEquals(
    iosTarget(t2, t2.hitTest({ x: 50, y: 70 }), { x: 50, y: 70 }, "tap").node,
    t2.indexOf(sheetLayer),
  );
});

/** Has the node a label or an id of its own? */
function labelled(n: UiNode): boolean {
  return n.text !== undefined || n.contentDescription !== undefined ||
    n.resourceId !== undefined || n.testId !== undefined;
}

/**
 * A labelled element a person taps, as this test reads a tree: on XCUITest a control type (the
 * nodes parse_ios marks clickable); on a tree without types (Maestro, Trailblaze) a labelled
 * leaf, or a labelled node holding a labelled node (a row with its title), not a scroll bar over
 * its unlabelled thumb.
 */
function tappable(n: UiNode, typeless: boolean): boolean {
  if (!labelled(n)) return false;
  if (!typeless) return n.clickable;
  const holdsLabel = (m: UiNode): boolean => m.children.some((c) => labelled(c) || holdsLabel(c));
  return n.children.length === 0 || holdsLabel(n);
}

Deno.test("optimize() under v2 sends no tap on a labelled interactive element of a corpus iOS screen to an unlabelled container", () => {
  let taps = 0, v1Bad = 0, v2Bad = 0;
  const files = [...Deno.readDirSync(CORPUS)].map((e) => e.name).sort();
  assert(files.length >= 6, `only ${files.length} iOS corpus files`);
  for (const name of files) {
    const screen = parseHierarchy(Deno.readTextFileSync(new URL(name, CORPUS)));
    const t = ScreenTable.from(screen);
    const typeless = screen.format !== "xcuitest";
    const actions: ScriptAction[] = [];
    const wanted: number[] = [];
    for (let i = 0; i < t.size; i++) {
      const n = t.node(i), b = n.bounds;
      // the table's interactive flag is this test's reading of the tree
      assertEquals(
        t.hasFlags(i, { interactive: true }),
        tappable(n, typeless) || n.clickable,
        `${name} node ${i}`,
      );
      if (!n.visible || b.w < 2 || b.h < 2 || !tappable(n, typeless)) continue;
      for (const fx of [0.2, 0.5, 0.8]) {
        const point = { x: Math.floor(b.x + b.w * fx), y: Math.floor(b.y + b.h / 2) };
        if (point.x < 0 || point.y < 0 || point.x >= screen.width || point.y >= screen.height) {
          continue;
        }
        actions.push({ step: `tap ${i} at ${fx}`, screen, kind: "tap", point });
        wanted.push(i);
      }
    }
    if (actions.length === 0) continue; // the lock screen's controls are all hidden
    const c = buildCapture("ios", actions);
    for (const heuristics of ["v1", "v2"]) {
      const r = optimize(c.events, c.screens, { heuristics });
      assertEquals(r.explain.length, actions.length, name);
      for (const [k, e] of r.explain.entries()) {
        const got = e.target?.node;
        assert(got !== undefined, `${name}: tap ${k} resolved no node`);
        const n = t.node(got);
        const bad = got !== wanted[k] && !labelled(n);
        if (heuristics === "v1") {
          if (bad) v1Bad++;
          continue;
        }
        taps++;
        if (bad) v2Bad++;
        assert(
          !bad,
          `${name}: the tap at ${JSON.stringify(actions[k]!.point)} on ${
            t.node(wanted[k]!).className
          } ${
            JSON.stringify(t.node(wanted[k]!).contentDescription ?? t.node(wanted[k]!).text)
          } resolved to an unlabelled ${n.className} (${JSON.stringify(e.written)})`,
        );
      }
    }
  }
  assert(taps >= 200, `only ${taps} taps swept`);
  assertEquals(v2Bad, 0);
  assert(
    v1Bad >= 20,
    `v1 sent only ${v1Bad} taps to unlabelled containers: the sweep finds nothing`,
  );
});
